import fs from 'node:fs';
import path from 'node:path';

/** An asciicast v2 event kind: output, input, resize (https://docs.asciinema.org/manual/asciicast/v2/). */
export type CastEventKind = 'o' | 'i' | 'r';

export interface CastHeader {
  readonly width: number;
  readonly height: number;
  /** Start of the session, epoch ms (written as Unix seconds). */
  readonly startedAt: number;
  readonly title?: string;
}

/**
 * Streams one shell session to an asciicast v2 file while it runs: a header line, then one JSON line per
 * event, `[seconds since start, kind, data]`. Lines go to the file as they come (a write stream, no
 * buffering of our own), so a crash loses at most what the operating system had not written yet.
 */
export class CastWriter {
  readonly #out: fs.WriteStream;
  readonly #startedAt: number;
  readonly #now: () => number;
  #bytes = 0;
  #closed: Promise<void> | undefined;
  /** The file's failure (it existed, the disk is full): later events are dropped and close() rejects with it. */
  #error: Error | undefined;

  constructor(file: string, header: CastHeader, now: () => number = Date.now) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.#out = fs.createWriteStream(file, { flags: 'wx' });
    this.#out.on('error', (err) => {
      this.#error ??= err;
    });
    this.#startedAt = header.startedAt;
    this.#now = now;
    this.#line({ version: 2, width: header.width, height: header.height, timestamp: Math.floor(header.startedAt / 1000), ...(header.title ? { title: header.title } : {}) });
  }

  /** Bytes written so far (header included). */
  get bytes(): number {
    return this.#bytes;
  }

  output(data: string): void {
    this.#event('o', data);
  }

  input(data: string): void {
    this.#event('i', data);
  }

  resize(cols: number, rows: number): void {
    this.#event('r', `${cols}x${rows}`);
  }

  #event(kind: CastEventKind, data: string): void {
    if (this.#closed || this.#error || data === '') return;
    // Microsecond precision, as asciinema writes it.
    const t = Math.max(0, this.#now() - this.#startedAt) / 1000;
    this.#line([Number(t.toFixed(6)), kind, data]);
  }

  #line(value: unknown): void {
    const text = `${JSON.stringify(value)}\n`;
    this.#bytes += Buffer.byteLength(text);
    this.#out.write(text);
  }

  /** Ends the file; resolves once it is flushed and closed. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve, reject) => {
      if (this.#error) return reject(this.#error);
      // 'close' comes after the last write is flushed, or after a failure (whose 'error' comes first).
      this.#out.once('close', () => (this.#error ? reject(this.#error) : resolve()));
      this.#out.end();
    });
    return this.#closed;
  }
}

/** A cast file's events of one kind, in order (for replay checks and search). */
export function castEvents(text: string, kind: CastEventKind): string[] {
  const out: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    if (!line) continue;
    const ev = JSON.parse(line) as [number, string, string];
    if (ev[1] === kind) out.push(ev[2]);
  }
  return out;
}
