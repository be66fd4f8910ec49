import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, formatPercent, formatRatio } from './format.ts';

describe('report formatters', () => {
  it('shows ratios as a percent with one decimal', () => {
    expect(formatRatio(0.1234)).toBe('12.3%');
    expect(formatRatio(1)).toBe('100.0%');
    expect(formatRatio(0)).toBe('0.0%');
    expect(formatPercent(99.95)).toBe('100.0%');
    expect(formatPercent(-0.01)).toBe('0.0%');
    expect(formatPercent(Number.NaN)).toBe('0.0%');
    fc.assert(fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (r) => {
        expect(formatRatio(r)).toMatch(/^\d{1,3}\.\d%$/);
      }),
    );
  });

  it('shows bytes in 1024 units with three significant digits', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.00 KB');
    expect(formatBytes(1536)).toBe('1.50 KB');
    expect(formatBytes(4 * 1024 ** 3)).toBe('4.00 GB');
    expect(formatBytes(123.456 * 1024 ** 2)).toBe('123 MB');
    expect(formatBytes(1023.9 * 1024)).toBe('1.00 MB');
    expect(formatBytes(10.26 * 1024 ** 4)).toBe('10.3 TB');
  });

  it('keeps three significant digits and the value within 0.5 % for any size', () => {
    const factor = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4, PB: 1024 ** 5 } as const;
    fc.assert(
      fc.property(fc.integer({ min: 1024, max: Number.MAX_SAFE_INTEGER }), (n) => {
        const text = formatBytes(n);
        const m = /^(\d+(?:\.\d+)?) (KB|MB|GB|TB|PB)$/.exec(text);
        expect(m, text).not.toBeNull();
        const [, digits = '', unit = 'B'] = m ?? [];
        expect(digits.replace('.', '').replace(/^0+/, '').length).toBe(3);
        const shown = Number(digits) * factor[unit as keyof typeof factor];
        expect(Math.abs(shown - n) / n).toBeLessThan(0.005);
      }),
    );
  });

  it('shows durations in hours and minutes', () => {
    expect(formatDuration(0)).toBe('0 min');
    expect(formatDuration(125 * 60_000)).toBe('2 h 05 min');
    const zh = { hoursMinutes: (h: number, m: string) => `${h} 小时 ${m} 分钟`, minutes: (m: number) => `${m} 分钟` };
    expect(formatDuration(125 * 60_000, zh)).toBe('2 小时 05 分钟');
    expect(formatDuration(0, zh)).toBe('0 分钟');
  });
});

describe('chart palette', () => {
  it('has 19 distinct colours and cycles', async () => {
    const { CHART_PALETTE, seriesColour } = await import('./palette.ts');
    expect(CHART_PALETTE).toHaveLength(19);
    expect(new Set(CHART_PALETTE.map((c) => c.toLowerCase())).size).toBe(19);
    expect(seriesColour(19)).toBe(CHART_PALETTE[0]);
  });
});
