// Proof, checked by `npm run typecheck` (protocol/tsconfig.json), that the engine is host-free: neither the
// DOM's nor Node's globals exist here. The root tsconfig.json, which has both, leaves *.guard.ts out.

// @ts-expect-error The engine has no DOM: inject a Transport.
export type NoDocument = typeof document;
// @ts-expect-error The engine has no Node: use Uint8Array.
export type NoBuffer = typeof Buffer;
// @ts-expect-error The engine has no Node: configuration is passed in.
export type NoProcess = typeof process;
