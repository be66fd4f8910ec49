import { spawnSync } from 'node:child_process';

/** This process's open-file limit (soft), from /proc. */
export function openFileLimit(): number {
  const line = spawnSync('prlimit', ['--pid', String(process.pid), '--nofile', '--output=SOFT', '--noheadings']).stdout?.toString().trim();
  return Number(line) || 0;
}

/**
 * Raises this process's open-file limit (soft and hard) to `wanted` with prlimit(1); children forked
 * afterwards inherit it. Raising the hard limit needs root (CAP_SYS_RESOURCE); otherwise the limit stays
 * and the caller sizes the run to what fits. Returns the limit in force.
 */
export function raiseOpenFileLimit(wanted: number): number {
  if (openFileLimit() < wanted) spawnSync('prlimit', ['--pid', String(process.pid), `--nofile=${wanted}:${wanted}`]);
  return openFileLimit();
}
