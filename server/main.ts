import { useCompileCache } from './compile-cache.ts';

// The entry of `npm start`: Node's compile cache first (see compile-cache.ts), then the launcher, which
// loads the rest of the server, so that its modules and those of every process it starts use the cache.
useCompileCache();
await import('./launcher.ts');
