/**
 * The chart palette: 19 colours (devices-and-commerce section 9 gives the count, not the colours). It
 * starts with the theme colour #1890ff and alternates hue families so neighbouring series stay distinct.
 */
export const CHART_PALETTE = [
  '#1890ff',
  '#2fc25b',
  '#facc14',
  '#f04864',
  '#8543e0',
  '#13c2c2',
  '#fa8c16',
  '#223273',
  '#a0d911',
  '#eb2f96',
  '#3436c7',
  '#52c41a',
  '#fa541c',
  '#08979c',
  '#722ed1',
  '#d4b106',
  '#2f54eb',
  '#c41d7f',
  '#5b8ff9',
] as const;

/** The colour of series `index`, cycling through the palette. */
export function seriesColour(index: number): string {
  return CHART_PALETTE[((index % CHART_PALETTE.length) + CHART_PALETTE.length) % CHART_PALETTE.length] as string;
}
