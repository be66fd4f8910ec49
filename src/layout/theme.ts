/** Default theme colour (platform-core section 9; the first reading's #1890ff, as DESIGN.md chose). */
export const DEFAULT_THEME_COLOR = '#1890ff';

/** The ten shades of the default colour, as the design system that introduced #1890ff has them. */
const DEFAULT_SCALE = ['#e6f4ff', '#bae0ff', '#91caff', '#69b1ff', '#4096ff', '#1890ff', '#0958d9', '#003eb3', '#002c8c', '#001d66'] as const;

/** Swatches offered by the settings panel: the default, the shell reading's #409EFF and a few more. */
export const THEME_SWATCHES = ['#1890ff', '#409eff', '#304156', '#11a983', '#13c2c2', '#6959cd', '#f5222d', '#fa8c16'] as const;

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

export function isHexColor(value: string): boolean {
  return HEX.test(value);
}

/** '#ABC' and '#aabbcc' both become '#aabbcc'. */
export function normalizeHex(value: string): string {
  const hex = value.toLowerCase();
  return hex.length === 4 ? `#${hex[1]}${hex[1]}${hex[2]}${hex[2]}${hex[3]}${hex[3]}` : hex;
}

function mix(hex: string, toward: number, weight: number): string {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return `#${channels.map((c) => Math.round(c + (toward - c) * weight).toString(16).padStart(2, '0')).join('')}`;
}

/** Tint weights toward white for shades 0-4 and toward black for shades 6-9; shade 5 is the colour itself. */
const TINTS = [0.9, 0.75, 0.6, 0.4, 0.2];
const SHADES = [0.18, 0.36, 0.52, 0.68];

/**
 * A ten-shade scale with `color` at index 5 (the primary shade), lighter before and darker after. The
 * default colour keeps its designed scale; any other colour is mixed with white and black.
 */
export function colorScale(color: string): string[] {
  if (!isHexColor(color)) return [...DEFAULT_SCALE];
  const hex = normalizeHex(color);
  if (hex === DEFAULT_THEME_COLOR) return [...DEFAULT_SCALE];
  return [...TINTS.map((w) => mix(hex, 255, w)), hex, ...SHADES.map((w) => mix(hex, 0, w))];
}
