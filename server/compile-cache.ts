import module from 'node:module';

/**
 * Turns on Node's compile cache (V8's code cache of every module loaded, kept on disk, checked against
 * each file's contents) for this process and, through NODE_COMPILE_CACHE, for the processes it starts:
 * the node's workers and the fleet simulator. A node of three workers on two cores had them all up
 * 4.95-5.5 s after its start without it, 4.0-4.2 s with it from the second start (docs/DECISIONS.md,
 * Start-up).
 * Only modules loaded after this call use it, so the entry calls it before importing the rest.
 * The directory is Node's default (`node-compile-cache` under the system's temporary folder) unless
 * NODE_COMPILE_CACHE names one; NODE_DISABLE_COMPILE_CACHE=1 turns it off. A cache that cannot be opened
 * (a read-only folder) only costs the time it would have saved. Returns the directory, when on.
 */
export function useCompileCache(): string | undefined {
  const env = process.env;
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const result = module.enableCompileCache();
  if (result.directory === undefined || result.status === module.constants.compileCacheStatus.FAILED) return undefined;
  env.NODE_COMPILE_CACHE ??= result.directory;
  return result.directory;
}
