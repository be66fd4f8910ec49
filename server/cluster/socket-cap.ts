import fs from 'node:fs';

/** Descriptors kept for everything that is not a client socket: database, IPC, logs, uploads, the runtime. */
export const FD_RESERVE = 500;

/** The soft open-file limit from a /proc/<pid>/limits text; undefined when unlimited or not found. */
export function openFileLimitOf(limits: string): number | undefined {
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  const n = Number(soft);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Most client sockets one worker accepts. Past it the worker closes new connections at once, so the
 * device backs off and the next attempt goes to another worker in the round-robin, instead of the
 * worker failing on EMFILE. It matters when a worker dies: its devices reconnect to the others, which
 * may not have room for a third of them each.
 */
export function workerSocketCap(limits = readLimits()): number | undefined {
  const limit = openFileLimitOf(limits);
  return limit === undefined ? undefined : Math.max(1, limit - FD_RESERVE);
}

function readLimits(): string {
  try {
    return fs.readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return '';
  }
}
