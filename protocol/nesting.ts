/**
 * Deepest nesting of objects and arrays a frame may carry, the envelope counting as level one (ENV-5).
 * Real payloads stay under ten levels. The cap is far below what would exhaust the stack: msgpackr's
 * decoder recurses per level and overflows at a few thousand, and so does JSON.stringify when such a
 * value is sent on (a command's data from a console to a device, or over the cluster bus).
 */
export const MAX_NESTING = 64;

/**
 * True when `value` nests objects or arrays deeper than `max` levels, `value` itself being level one.
 * The recursion stops at `max`, so it cannot overflow the stack however deep the value is. Byte arrays
 * (msgpack bin) count as values, not as containers.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return false;
  if (max <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) if (nestedDeeperThan(item, max - 1)) return true;
    return false;
  }
  const rec = value as Record<string, unknown>;
  for (const key in rec) if (nestedDeeperThan(rec[key], max - 1)) return true;
  return false;
}

// Items still expected at each open level of the msgpack scan; grown when a larger cap is asked for.
let open = new Float64Array(MAX_NESTING + 1);

/**
 * True when msgpack `bytes` nest maps or arrays deeper than `max` levels. Reads only the type bytes and
 * length fields, without decoding or recursing, so it runs before the decoder (which recurses per level).
 * Truncated or malformed input answers false: the decoder reports it.
 */
export function msgpackNestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  if (open.length < max + 1) open = new Float64Array(max + 1);
  const at = (i: number): number => bytes[i] ?? 0;
  const u16 = (i: number): number => at(i) * 0x100 + at(i + 1);
  const u32 = (i: number): number => at(i) * 0x1000000 + at(i + 1) * 0x10000 + at(i + 2) * 0x100 + at(i + 3);
  let pos = 0;
  let depth = 0;
  while (pos < bytes.length) {
    const b = at(pos);
    // A container's header size and how many items it holds (a map holds two per entry); -1: a scalar.
    let size = 1;
    let items = -1;
    if (b <= 0x7f || b >= 0xe0) size = 1;
    else if (b <= 0x8f) items = (b & 0x0f) * 2;
    else if (b <= 0x9f) items = b & 0x0f;
    else if (b <= 0xbf) size = 1 + (b & 0x1f);
    else {
      switch (b) {
        case 0xc4:
        case 0xd9:
          size = 2 + at(pos + 1);
          break;
        case 0xc5:
        case 0xda:
          size = 3 + u16(pos + 1);
          break;
        case 0xc6:
        case 0xdb:
          size = 5 + u32(pos + 1);
          break;
        case 0xc7:
          size = 3 + at(pos + 1);
          break;
        case 0xc8:
          size = 4 + u16(pos + 1);
          break;
        case 0xc9:
          size = 6 + u32(pos + 1);
          break;
        case 0xca:
          size = 5;
          break;
        case 0xcb:
          size = 9;
          break;
        case 0xcc:
        case 0xd0:
          size = 2;
          break;
        case 0xcd:
        case 0xd1:
          size = 3;
          break;
        case 0xce:
        case 0xd2:
          size = 5;
          break;
        case 0xcf:
        case 0xd3:
          size = 9;
          break;
        case 0xd4:
          size = 3;
          break;
        case 0xd5:
          size = 4;
          break;
        case 0xd6:
          size = 6;
          break;
        case 0xd7:
          size = 10;
          break;
        case 0xd8:
          size = 18;
          break;
        case 0xdc:
          size = 3;
          items = u16(pos + 1);
          break;
        case 0xdd:
          size = 5;
          items = u32(pos + 1);
          break;
        case 0xde:
          size = 3;
          items = u16(pos + 1) * 2;
          break;
        case 0xdf:
          size = 5;
          items = u32(pos + 1) * 2;
          break;
        default:
          size = 1; // nil, booleans, and the unused 0xc1
      }
    }
    pos += size;
    if (items >= 0) {
      if (depth >= max) return true;
      if (items > 0) {
        open[depth++] = items;
        continue;
      }
    }
    // One whole item (a scalar or an empty container) ends: it counts against each level it closes.
    while (depth > 0) {
      const left = (open[depth - 1] ?? 1) - 1;
      open[depth - 1] = left;
      if (left > 0) break;
      depth--;
    }
  }
  return false;
}
