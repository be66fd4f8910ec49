import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

const api = 'http://127.0.0.1:8080';
const protocolDir = /[\\/]protocol[\\/](?!.*node_modules)/;

export default defineConfig({
  base: '/user/',
  // Precompressed .br and .gz beside every text asset; the server sends them (@fastify/static preCompressed).
  plugins: [react(), compression({ algorithms: ['brotliCompress', 'gzip'], logLevel: 'silent' })],
  resolve: {
    // jmuxer's UMD build requires Node's `stream` for its Node-only createStream(); a stub instead of
    // Vite's externalisation (and its warning). See src/shims/node-stream.ts.
    alias: { stream: fileURLToPath(new URL('./src/shims/node-stream.ts', import.meta.url)) },
  },
  // Pages are lazy chunks (src/router/pages.ts); the default 500 kB limit holds again.
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      // protocol/ is declarations only (no top-level statements), so what the console does not use of its
      // barrel (protocol/index.ts: the engine, codecs and msgpackr, transfers) stays out of the entry chunk.
      treeshake: { moduleSideEffects: (id: string) => (protocolDir.test(id) ? false : undefined) },
    },
  },
  worker: { format: 'es' },
  server: {
    proxy: {
      '/login': api,
      '/home': api,
      '/device': api,
      '/websocket': { target: api.replace('http', 'ws'), ws: true },
    },
  },
});
