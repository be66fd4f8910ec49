// Proof, checked by `npm run typecheck` (src/tsconfig.json), that the console's code runs in the browser:
// Node's globals do not exist here. If a package's types drag Node's in (as @types/jmuxer did), these
// expectations go unmet and the typecheck fails. The root tsconfig.json, which has Node, leaves *.guard.ts out.

// @ts-expect-error Node's Buffer: use Uint8Array.
export type NoBuffer = typeof Buffer;
// @ts-expect-error Node's process: Vite gives import.meta.env.
export type NoProcess = typeof process;
