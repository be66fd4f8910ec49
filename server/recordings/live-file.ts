import fs from 'node:fs';
import path from 'node:path';
import { ChunkFlag, decodeChunk, type StreamAudioInfo } from '../../protocol/index.ts';

/**
 * A recorded live-view session on disk (issue 22): the chunk frames of the stream exactly as the gateway's
 * fan-out received them (H.264 access units in Annex B, Opus packets, each with the device's media
 * timestamp and flags), no re-encode. Layout, big-endian:
 *
 *   "DCLV" | u32 header length | header JSON ({@link LiveHeader}) | then per frame: u32 length | chunk frame
 *
 * Frames are appended as they come (a write stream, nothing held back of our own), so a crash loses at
 * most what the operating system had not written; a torn last frame is ignored when read. The MP4 is
 * muxed from this file when it is exported (mp4-export.ts).
 */
export const LIVE_MAGIC = 'DCLV';

export interface LiveHeader {
  readonly version: 1;
  readonly sn: string;
  /** Start of the recording, epoch ms. */
  readonly startedAt: number;
  readonly codec: 'h264';
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  /** The stream's voice, when the device sends one. */
  readonly audio?: StreamAudioInfo;
}

/**
 * Bytes the file may have queued (not yet on disk) before frames are skipped: a disk that cannot keep up
 * costs a gap in the recording (up to the next key frame), never the gateway's memory.
 */
export const LIVE_BACKLOG_BYTES = 8 * 1024 * 1024;

const u32 = (n: number): Buffer => {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(n);
  return b;
};

/** Streams one live-view session's frames to its file while it runs. */
export class LiveFileWriter {
  readonly #out: fs.WriteStream;
  #bytes = 0;
  /** Nothing is written before the first key frame (a picture cannot start elsewhere), nor after a skip until the next. */
  #waitingForKey = true;
  #closed: Promise<void> | undefined;
  #error: Error | undefined;
  frames = 0;
  skipped = 0;

  constructor(file: string, header: LiveHeader) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.#out = fs.createWriteStream(file, { flags: 'wx' });
    this.#out.on('error', (err) => {
      this.#error ??= err;
    });
    const json = Buffer.from(JSON.stringify(header));
    this.#write(Buffer.concat([Buffer.from(LIVE_MAGIC, 'latin1'), u32(json.length), json]));
  }

  /** Bytes written so far (header included). */
  get bytes(): number {
    return this.#bytes;
  }

  /** One chunk frame of the stream (video or voice), as the fan-out saw it. */
  frame(frame: Uint8Array): void {
    if (this.#closed || this.#error) return;
    const flags = frame[2] as number;
    const backlog = this.#out.writableLength > LIVE_BACKLOG_BYTES;
    if ((flags & ChunkFlag.Audio) === 0) {
      if (backlog) this.#waitingForKey = true;
      else if ((flags & ChunkFlag.KeyFrame) !== 0) this.#waitingForKey = false;
    }
    // Voice is kept from the first picture on, and lost with the pictures of a skip.
    if (this.#waitingForKey || backlog) {
      this.skipped++;
      return;
    }
    this.#write(u32(frame.length));
    this.#write(frame);
    this.frames++;
  }

  #write(bytes: Uint8Array): void {
    this.#bytes += bytes.length;
    this.#out.write(bytes);
  }

  /** Ends the file; resolves once it is flushed and closed. */
  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve, reject) => {
      if (this.#error) return reject(this.#error);
      this.#out.once('close', () => (this.#error ? reject(this.#error) : resolve()));
      this.#out.end();
    });
    return this.#closed;
  }
}

/** One frame read back: the chunk frame's fields the export needs. */
export interface LiveFrame {
  readonly audio: boolean;
  readonly key: boolean;
  /** The device's media timestamp, ms. */
  readonly timestamp: number;
  readonly payload: Uint8Array;
}

/** Reads a live recording: its header, then its frames in order (a torn or malformed tail ends the frames). */
export async function openLiveFile(file: string): Promise<{ header: LiveHeader; frames: () => AsyncGenerator<LiveFrame> }> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(8);
    await handle.read(head, 0, 8, 0);
    if (head.subarray(0, 4).toString('latin1') !== LIVE_MAGIC) throw new Error('not a live recording');
    const jsonLength = head.readUInt32BE(4);
    const json = Buffer.alloc(jsonLength);
    await handle.read(json, 0, jsonLength, 8);
    const header = JSON.parse(json.toString('utf8')) as LiveHeader;
    return { header, frames: () => readFrames(file, 8 + jsonLength) };
  } finally {
    await handle.close();
  }
}

async function* readFrames(file: string, start: number): AsyncGenerator<LiveFrame> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const piece of fs.createReadStream(file, { start, highWaterMark: 256 * 1024 })) {
    pending = pending.length === 0 ? (piece as Buffer) : Buffer.concat([pending, piece as Buffer]);
    let at = 0;
    while (pending.length - at >= 4) {
      const length = pending.readUInt32BE(at);
      if (pending.length - at - 4 < length) break;
      const frame = parseFrame(pending.subarray(at + 4, at + 4 + length));
      if (!frame) return;
      yield frame;
      at += 4 + length;
    }
    pending = pending.subarray(at);
  }
}

/** The fields of a chunk frame (its CRC checked); undefined when it is not a sound one. */
function parseFrame(frame: Buffer): LiveFrame | undefined {
  try {
    const chunk = decodeChunk(frame);
    return { audio: (chunk.flags & ChunkFlag.Audio) !== 0, key: (chunk.flags & ChunkFlag.KeyFrame) !== 0, timestamp: chunk.timestamp, payload: chunk.payload };
  } catch {
    return undefined;
  }
}
