// Proof, checked by `npm run typecheck` (server/tsconfig.json), that this code runs on Node: the DOM's globals
// do not exist here. The root tsconfig.json, which has the DOM, leaves *.guard.ts out.

// @ts-expect-error Node has no window.
export type NoWindow = typeof window;
// @ts-expect-error Node has no document.
export type NoDocument = typeof document;
