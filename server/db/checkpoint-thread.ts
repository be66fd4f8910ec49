/*
 * The body of the checkpointer thread (server/db/checkpointer.ts): copies the write-ahead log of one SQLite
 * file into the database at a steady pace, so that no process serving sockets does it at the end of a commit.
 * Run by node:worker_threads from its own file; it imports nothing of the server, only Node.
 */
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/** What the thread is started with. */
export interface CheckpointThreadData {
  readonly file: string;
  readonly intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointThreadData;
const db = new DatabaseSync(file);
// PASSIVE never waits for a lock, so the timeout only covers opening the file beside a writer.
db.exec('PRAGMA busy_timeout = 5000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const run = () => {
  try {
    // Copies what the log holds up to the oldest snapshot a reader still uses; the next writer then starts
    // the log over from its beginning once every frame is in the database.
    checkpoint.get();
  } catch {
    // A busy or locked file: the next turn tries again; the writers' far ceiling (checkpointer.ts) bounds
    // the log meanwhile.
  }
};

const timer = setInterval(run, intervalMs);
parentPort?.on('message', (m: unknown) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  run();
  db.close();
  parentPort?.postMessage('stopped');
  parentPort?.close();
});
