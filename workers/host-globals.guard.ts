// Proof, checked by `npm run typecheck` (workers/tsconfig.json), that the worker has neither the DOM nor
// Node. The root tsconfig.json, which has both, leaves *.guard.ts out.

// @ts-expect-error A worker has no window.
export type NoWindow = typeof window;
// @ts-expect-error A worker has no document.
export type NoDocument = typeof document;
// @ts-expect-error Node's Buffer: use Uint8Array.
export type NoBuffer = typeof Buffer;
