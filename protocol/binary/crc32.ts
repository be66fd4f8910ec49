// CRC-32 (IEEE 802.3, as zlib). Written here because protocol/ may import only rxjs, msgpackr and mitt.
//
// Slicing-by-8: eight tables let each step fold eight bytes with eight independent lookups instead of
// eight dependent ones. Every chunk is checksummed twice (sent and received), and the byte-at-a-time
// loop was the largest CPU item of a file transfer on either end (bench/gateway.bench.ts, transfer
// phase); this one is several times faster in V8.
const TABLES = (() => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n] as number;
    for (let s = 1; s < 8; s++) {
      c = (t[c & 0xff] as number) ^ (c >>> 8);
      t[s * 256 + n] = c;
    }
  }
  return t;
})();

/** A host's own CRC-32 with zlib's signature: the bytes and the CRC to continue (0 for a new one). */
export type NativeCrc32 = (bytes: Uint8Array, crc: number) => number;
let native: NativeCrc32 | undefined;

/**
 * Lets a host that has a native CRC-32 (Node's `zlib.crc32`, 20.15 and later) compute chunk checksums
 * with it: the same values, about ten times faster than the loop below. Node entry points (the agent's
 * and the simulator's transport, the server) install it; browsers keep the loop.
 */
export function useNativeCrc32(fn: NativeCrc32 | undefined): void {
  native = fn;
}

/** Continues a CRC-32 over `bytes[start, end)`; start a new one with crc = 0. */
export function crc32(bytes: Uint8Array, crc = 0, start = 0, end = bytes.length): number {
  if (native) return native(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), crc) >>> 0;
  const t = TABLES;
  let c = ~crc;
  let i = start;
  // A plain Uint8Array view: a Buffer (a subclass) at some call sites would make the loads polymorphic.
  const b = bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const last = end - 8; i <= last; i += 8) {
    const lo = c ^ ((b[i] as number) | ((b[i + 1] as number) << 8) | ((b[i + 2] as number) << 16) | ((b[i + 3] as number) << 24));
    c =
      (t[1792 + (lo & 0xff)] as number) ^
      (t[1536 + ((lo >>> 8) & 0xff)] as number) ^
      (t[1280 + ((lo >>> 16) & 0xff)] as number) ^
      (t[1024 + (lo >>> 24)] as number) ^
      (t[768 + (b[i + 4] as number)] as number) ^
      (t[512 + (b[i + 5] as number)] as number) ^
      (t[256 + (b[i + 6] as number)] as number) ^
      (t[b[i + 7] as number] as number);
  }
  for (; i < end; i++) c = (t[(c ^ (b[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}
