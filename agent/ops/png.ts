import zlib from 'node:zlib';

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, zlib.crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** Encodes 8-bit RGB pixels (width x height x 3 bytes, row by row) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Uint8Array {
  if (rgb.length !== width * height * 3) throw new RangeError('rgb must hold width x height x 3 bytes');
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  // Each row is prefixed by its filter type (0, none); deflate does the compressing.
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (1 + width * 3) + 1);
  const parts = [SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', new Uint8Array(zlib.deflateSync(raw))), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * A simulated screen: a status bar, a gradient wallpaper tinted by the device's serial, app tiles and a
 * clock hand at the current time, so consecutive screenshots differ and devices look different.
 */
export function renderSimulatedScreen(sn: string, now: number, width = 180, height = 320): Uint8Array {
  let hue = 0;
  for (let i = 0; i < sn.length; i++) hue = (hue * 31 + sn.charCodeAt(i)) % 360;
  const rgb = new Uint8Array(width * height * 3);
  const [br, bg, bb] = hsl(hue, 0.55, 0.45);
  const minute = new Date(now).getMinutes() + new Date(now).getSeconds() / 60;
  const angle = (minute / 60) * 2 * Math.PI - Math.PI / 2;
  const cx = width / 2;
  const cy = height * 0.3;
  // Drawn for 180x320; other sizes (thumbnails, landscape screens) scale it by their shorter side.
  const k = Math.min(width / 180, height / 320);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      let r: number;
      let g: number;
      let b: number;
      if (y < 14 * k) [r, g, b] = [20, 20, 24];
      else {
        const t = y / height;
        [r, g, b] = [br * (1 - t * 0.5), bg * (1 - t * 0.5), bb * (1 - t * 0.3) + 40 * t];
        const tx = (x - 14 * k) % (42 * k);
        const ty = (y - 170 * k) % (48 * k);
        if (y > 170 * k && y < height - 10 * k && x > 14 * k && x < width - 14 * k && tx < 30 * k && ty < 30 * k) [r, g, b] = [240, 240, 245];
        const dx = x - cx;
        const dy = y - cy;
        const d = Math.hypot(dx, dy);
        if (Math.abs(d - 50 * k) < Math.max(1, 2 * k)) [r, g, b] = [255, 255, 255];
        const along = dx * Math.cos(angle) + dy * Math.sin(angle);
        const across = Math.abs(-dx * Math.sin(angle) + dy * Math.cos(angle));
        if (along > 0 && along < 44 * k && across < Math.max(1, 2 * k)) [r, g, b] = [255, 210, 60];
      }
      rgb[i] = r;
      rgb[i + 1] = g;
      rgb[i + 2] = b;
    }
  }
  return encodePng(width, height, rgb);
}

function hsl(h: number, s: number, l: number): [number, number, number] {
  const c = (1 - Math.abs(2 * l - 1)) * s;
  const x = c * (1 - Math.abs(((h / 60) % 2) - 1));
  const m = l - c / 2;
  const [r, g, b] = h < 60 ? [c, x, 0] : h < 120 ? [x, c, 0] : h < 180 ? [0, c, x] : h < 240 ? [0, x, c] : h < 300 ? [x, 0, c] : [c, 0, x];
  return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}
