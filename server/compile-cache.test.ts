import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;

/** Runs `script` (ESM) in a fresh Node process with `env`, and returns what it prints. */
function runNode(script: string, env: NodeJS.ProcessEnv): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: here, env, encoding: 'utf8' }).trim();
}

describe("Node's compile cache for the server's processes", () => {
  it('is on in the process that asks, and in the processes it starts, in one directory that fills with cached code', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-compile-cache-'));
    const { NODE_DISABLE_COMPILE_CACHE: _off, ...inherited } = process.env;
    const env = { ...inherited, NODE_COMPILE_CACHE: dir };
    // The child turns the cache on, then starts a grandchild with its environment, as the node forks its workers.
    const out = runNode(
      `import { useCompileCache } from ${JSON.stringify(path.join(here, 'compile-cache.ts'))};
       import { execFileSync } from 'node:child_process';
       import module from 'node:module';
       const own = useCompileCache();
       const child = execFileSync(process.execPath, ['--input-type=module', '-e', "import module from 'node:module'; import 'node:http'; console.log(module.getCompileCacheDir() ?? 'off')"], { encoding: 'utf8' }).trim();
       module.flushCompileCache();
       console.log(JSON.stringify({ own, child }));`,
      env,
    );
    const { own, child } = JSON.parse(out) as { own: string; child: string };
    expect(own).toBe(child);
    expect(own.startsWith(dir)).toBe(true);
    expect(fs.readdirSync(dir).length).toBeGreaterThan(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stays off when NODE_DISABLE_COMPILE_CACHE is set, and its processes start without it', () => {
    const { NODE_COMPILE_CACHE: _dir, ...inherited } = process.env;
    const env = { ...inherited, NODE_DISABLE_COMPILE_CACHE: '1' };
    const out = runNode(
      `import { useCompileCache } from ${JSON.stringify(path.join(here, 'compile-cache.ts'))};
       import module from 'node:module';
       console.log(JSON.stringify({ own: useCompileCache() ?? 'off', dir: module.getCompileCacheDir() ?? 'off', env: process.env.NODE_COMPILE_CACHE ?? '' }));`,
      env,
    );
    expect(JSON.parse(out)).toEqual({ own: 'off', dir: 'off', env: '' });
  });
});
