import { Worker } from 'node:worker_threads';
import type { CheckpointThreadData } from './checkpoint-thread.ts';

/**
 * How often the checkpointer copies the write-ahead log into the database. A commit appends to the log
 * only; what a second of a node's writes adds (telemetry, logins, presence) is copied in one pass. Every
 * 500 ms copied as much in all (a node of workers under ingest, gateway bench): the pages written are
 * what costs, not the passes.
 */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * The log size, in pages, at which a committing connection checkpoints by itself (SQLite's default is
 * 1,000). Far above what the checkpointer leaves between passes, so a commit does it only if the
 * checkpointer has stopped or fallen far behind; the log still cannot grow without bound.
 */
export const WRITER_CHECKPOINT_CEILING_PAGES = 50_000;

/** A running checkpointer thread. */
export interface Checkpointer {
  /** Runs a last pass, closes the thread's connection and ends the thread. */
  stop(): Promise<void>;
}

/**
 * Starts a thread that checkpoints `file` every {@link CHECKPOINT_INTERVAL_MS}. In WAL mode SQLite copies
 * the log into the database at the end of the commit that took it past 1,000 pages, inside that commit's
 * call: in a node of workers that stalled a worker's event loop up to 73 ms at a time with its sockets
 * unread (gateway bench, issue 21). One thread per node does it instead, beside the event loops; the
 * node's connections raise their own threshold to {@link WRITER_CHECKPOINT_CEILING_PAGES}.
 *
 * The thread never keeps the process alive by itself, except while it stops.
 */
export function startCheckpointer(file: string, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const data: CheckpointThreadData = { file, intervalMs };
  const thread = new Worker(new URL('./checkpoint-thread.ts', import.meta.url), { workerData: data });
  thread.unref();
  const exited = new Promise<void>((resolve) => {
    thread.once('exit', () => resolve());
    // A thread that cannot open the file ends; the writers' ceiling then keeps checkpointing.
    thread.once('error', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        // Held while it stops: awaited on an unreferenced thread, a process with nothing else to do exited
        // with the close unfinished (the gateway bench's last `await server.close()` never settled).
        thread.ref();
        thread.postMessage('stop');
        await exited;
      })();
      return stopping;
    },
  };
}
