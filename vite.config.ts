import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { compression } from 'vite-plugin-compression2';

const api = 'http://127.0.0.1:8080';

/**
 * Two Mantine modules the shell renders import floating-ui for one small thing each: ScrollArea its
 * `useMergeRefs`, RingProgress's curve `Tooltip.Floating` for section tooltips. A module is never split
 * across chunks, so either import put floating-ui.react (with all the pages use of it, and Tooltip's kin)
 * into the shell's first load: 21 kB gzip (issue 21). These imports resolve to the shims named here; the
 * menus, tooltips and select of the shell load on first interaction (src/layout/floating/deferred.tsx).
 * The build fails if an import is no longer met (a Mantine upgrade moved it), rather than silently
 * bringing floating-ui back.
 */
const floatingRedirects = [
  { importer: '/@mantine/core/esm/components/ScrollArea/ScrollArea.mjs', source: '@floating-ui/react', shim: './src/shims/merge-refs.ts' },
  { importer: '/@mantine/core/esm/components/RingProgress/Curve/Curve.mjs', source: '../../Tooltip/Tooltip.mjs', shim: './src/shims/ring-tooltip.ts' },
  // Not floating-ui, the same mechanism: the console holds the server message table of the language it
  // shows, not both (protocol/messages/tables.ts, src/i18n/server-messages.ts).
  { importer: '/protocol/messages/format.ts', source: './tables.ts', shim: './src/i18n/server-messages.ts' },
] as const;

function keepFloatingOut(): Plugin {
  const met = new Set<string>();
  return {
    name: 'keep-floating-ui-out-of-the-shell',
    enforce: 'pre',
    // The build only: the dev server pre-bundles Mantine (these imports are not seen there) and, like the
    // tests, keeps both message tables.
    apply: 'build',
    resolveId(source, importer) {
      const redirect = importer === undefined ? undefined : floatingRedirects.find((r) => r.source === source && importer.replaceAll('\\', '/').endsWith(r.importer));
      if (!redirect) return null;
      met.add(redirect.importer);
      return fileURLToPath(new URL(redirect.shim, import.meta.url));
    },
    generateBundle() {
      const unmet = floatingRedirects.filter((r) => !met.has(r.importer));
      if (unmet.length > 0) this.error(`console redirects not met (did @mantine/core or protocol/messages move them?): ${unmet.map((r) => `${r.importer} -> ${r.source}`).join(', ')}`);
    },
  };
}
const protocolDir = /[\\/]protocol[\\/](?!.*node_modules)/;

export default defineConfig({
  base: '/user/',
  // Precompressed .br and .gz beside every text asset; the server sends them (@fastify/static preCompressed).
  plugins: [keepFloatingOut(), react(), compression({ algorithms: ['brotliCompress', 'gzip'], logLevel: 'silent' })],
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
