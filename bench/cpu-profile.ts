import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * Runs `run` under a CPU profile of this thread and writes it to `<dir>/<file>.cpuprofile`; without a
 * `dir` (the bench's switch unset) it only runs it. Benches whose server shares this thread use it to
 * profile the server's side of one load.
 */
export async function profiled<T>(dir: string | undefined, file: string, run: () => Promise<T>): Promise<T> {
  if (!dir) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${file}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
