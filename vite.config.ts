import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/user/',
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 1500 },
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
