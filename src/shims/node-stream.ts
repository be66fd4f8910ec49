/**
 * The browser's stand-in for Node's `stream` module, aliased in vite.config.ts. jmuxer's UMD build
 * requires `stream` for its Node-only `createStream()` (a Duplex to pipe into); the console only feeds
 * it frames, so nothing here is ever constructed. Without the alias Vite externalises `stream` for
 * browser compatibility and warns on every build.
 */
export function Duplex(): never {
  throw new Error('Node streams are not available in the browser');
}

export default { Duplex };
