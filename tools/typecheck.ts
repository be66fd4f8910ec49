/**
 * `npm run typecheck`: the root tsconfig.json (everything, with Node and the DOM: tests, benchmarks, tools,
 * colocated tests, and what editors and vitest see), then each layer under its own tsconfig, whose libs and
 * types say where it runs: a `Buffer` in src/ or a `window` in server/ fails here (docs/DECISIONS.md,
 * "Layers enforced by the compiler"). Runs every project even after a failure, so one run shows them all.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** The projects, in order; each layer's tsconfig.json sits in its folder. */
export const TYPECHECK_PROJECTS = ['tsconfig.json', 'protocol/tsconfig.json', 'workers/tsconfig.json', 'src/tsconfig.json', 'server/tsconfig.json', 'agent/tsconfig.json'] as const;

function main(): number {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const failed: string[] = [];
  for (const project of TYPECHECK_PROJECTS) {
    process.stdout.write(`tsc -p ${project}\n`);
    const run = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) failed.push(project);
  }
  if (failed.length > 0) process.stderr.write(`typecheck failed: ${failed.join(', ')}\n`);
  return failed.length > 0 ? 1 : 0;
}

if (import.meta.main) process.exitCode = main();
