/*
 * Ogg Opus demuxing (RFC 3533 pages, RFC 7845 Opus mapping), fed bytes in pieces: the simulator reads its
 * committed voice clip with it, and the agent reads AGENT_AUDIO_CMD's stdout with it (what `ffmpeg -f ogg`
 * and `opusenc` write). Pure: no I/O, no timers.
 */

/** Bytes of a page header before its segment table. */
const HEADER = 27;
/** An Opus packet is at most 120 ms of 1275-byte frames (RFC 6716 3.2.5); bigger is not Opus, and is dropped. */
export const MAX_OPUS_PACKET = 6 * 1275 + 16;
/** Bytes held while looking for a page (a page is at most 65,307 bytes); past it the input is not Ogg. */
const MAX_PENDING = 128 * 1024;

// CRC-32 of Ogg: polynomial 0x04C11DB7, not reflected, initial 0, no final xor.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** The Ogg checksum of a page whose CRC field reads as zero. */
export function oggCrc(page: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < page.length; i++) {
    const byte = i >= 22 && i < 26 ? 0 : (page[i] as number);
    crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] as number)) >>> 0;
  }
  return crc;
}

const startsWith = (data: Uint8Array, text: string) => data.length >= text.length && [...text].every((ch, i) => data[i] === ch.charCodeAt(0));

/**
 * Splits an Ogg Opus stream arriving in arbitrary pieces into its audio packets. The identification
 * header (OpusHead) sets {@link channels}; the comment header (OpusTags) is skipped. Only the first
 * logical stream is read. A page whose checksum does not match is skipped (with any packet it
 * continues), and garbage between pages is passed over to the next capture pattern, so a damaged
 * stream costs a few packets, not the rest of the stream.
 */
export class OggOpusReader {
  #pending = new Uint8Array(0);
  /** Bytes of a packet continued on the next page. */
  #partial: Uint8Array[] = [];
  #partialBytes = 0;
  #serial: number | undefined;
  #headersSeen = 0;
  /** Channels from OpusHead; undefined until it has been read. */
  channels: number | undefined;

  /** Takes the next bytes; returns the audio packets they completed. */
  push(bytes: Uint8Array): Uint8Array[] {
    let data: Uint8Array;
    if (this.#pending.length === 0) data = bytes;
    else {
      data = new Uint8Array(this.#pending.length + bytes.length);
      data.set(this.#pending);
      data.set(bytes, this.#pending.length);
    }
    const out: Uint8Array[] = [];
    let at = 0;
    for (;;) {
      at = findCapture(data, at);
      if (at < 0) {
        // Keep the last three bytes: they may be the start of a capture pattern.
        at = Math.max(0, data.length - 3);
        break;
      }
      if (data.length - at < HEADER) break;
      const segments = data[at + 26] as number;
      if (data.length - at < HEADER + segments) break;
      let bodyLength = 0;
      for (let i = 0; i < segments; i++) bodyLength += data[at + HEADER + i] as number;
      const end = at + HEADER + segments + bodyLength;
      if (data.length < end) break;
      const page = data.subarray(at, end);
      const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
      if (page[4] !== 0 || view.getUint32(22, true) !== oggCrc(page)) {
        // Not a page after all (or a damaged one): look for the next capture pattern past this one.
        this.#dropPartial();
        at++;
        continue;
      }
      this.#page(page, view, segments, out);
      at = end;
    }
    const rest = data.subarray(at);
    this.#pending = rest.length > MAX_PENDING ? new Uint8Array(0) : rest.slice();
    return out;
  }

  #page(page: Uint8Array, view: DataView, segments: number, out: Uint8Array[]): void {
    const serial = view.getUint32(14, true);
    this.#serial ??= serial;
    if (serial !== this.#serial) return;
    const continues = ((page[5] as number) & 0x01) !== 0;
    // A page that does not continue a packet ends whatever was left open (a lost page in between); one
    // that continues a packet whose start was lost (or never seen) has its first packet's rest dropped.
    if (!continues) this.#dropPartial();
    let skipping = continues && this.#partial.length === 0;
    let offset = HEADER + segments;
    for (let i = 0; i < segments; i++) {
      const lace = page[HEADER + i] as number;
      offset += lace;
      if (skipping) {
        if (lace < 255) skipping = false;
        continue;
      }
      this.#partial.push(page.subarray(offset - lace, offset));
      this.#partialBytes += lace;
      if (this.#partialBytes > MAX_OPUS_PACKET * 2) this.#dropPartial();
      // A lacing value under 255 ends a packet; 255 means it continues (possibly on the next page).
      if (lace < 255) this.#packet(out);
    }
  }

  #packet(out: Uint8Array[]): void {
    const packet = new Uint8Array(this.#partialBytes);
    let o = 0;
    for (const part of this.#partial) {
      packet.set(part, o);
      o += part.length;
    }
    this.#dropPartial();
    if (this.#headersSeen < 2 && startsWith(packet, 'OpusHead')) {
      this.channels = packet[9];
      this.#headersSeen = 1;
      return;
    }
    if (this.#headersSeen === 1 && startsWith(packet, 'OpusTags')) {
      this.#headersSeen = 2;
      return;
    }
    if (packet.length === 0 || packet.length > MAX_OPUS_PACKET) return;
    out.push(packet);
  }

  #dropPartial(): void {
    this.#partial = [];
    this.#partialBytes = 0;
  }
}

/** Offset of the next "OggS" at or after `from`, or -1. */
function findCapture(data: Uint8Array, from: number): number {
  for (let i = from; i + 3 < data.length; i++) {
    if (data[i] === 0x4f && data[i + 1] === 0x67 && data[i + 2] === 0x67 && data[i + 3] === 0x53) return i;
  }
  return -1;
}

/** The audio packets and channel count of a whole Ogg Opus file. */
export function opusPackets(file: Uint8Array): { channels: number; packets: Uint8Array[] } {
  const reader = new OggOpusReader();
  const packets = reader.push(file);
  return { channels: reader.channels ?? 1, packets };
}

/** Duration in ms of one Opus packet, from its TOC byte (RFC 6716 3.1); undefined when malformed. */
export function opusPacketMs(packet: Uint8Array): number | undefined {
  const toc = packet[0];
  if (toc === undefined) return undefined;
  const config = toc >> 3;
  // SILK-only configs 0-11 are 10/20/40/60 ms; hybrid 12-15 are 10/20; CELT 16-31 are 2.5/5/10/20.
  const frameMs = config < 12 ? ([10, 20, 40, 60][config % 4] as number) : config < 16 ? ([10, 20][config % 2] as number) : ([2.5, 5, 10, 20][config % 4] as number);
  const code = toc & 3;
  if (code === 0) return frameMs;
  if (code === 1 || code === 2) return frameMs * 2;
  const count = (packet[1] ?? 0) & 0x3f;
  return count === 0 ? undefined : frameMs * count;
}
