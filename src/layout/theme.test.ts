import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { colorScale, DEFAULT_THEME_COLOR } from './theme.ts';

const lightness = (hex = '') => [1, 3, 5].reduce((sum, i) => sum + parseInt(hex.slice(i, i + 2), 16), 0);

describe('theme colour scale', () => {
  it('keeps the designed scale of the default #1890ff', () => {
    expect(colorScale(DEFAULT_THEME_COLOR)).toHaveLength(10);
    expect(colorScale(DEFAULT_THEME_COLOR)[5]).toBe('#1890ff');
    expect(colorScale('#1890FF')).toEqual(colorScale(DEFAULT_THEME_COLOR));
    expect(colorScale('nonsense')).toEqual(colorScale(DEFAULT_THEME_COLOR));
  });

  it('puts any colour at shade 5, lighter shades before and darker after', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^#[0-9a-f]{6}$/), (color) => {
        const scale = colorScale(color);
        expect(scale).toHaveLength(10);
        expect(scale[5]).toBe(color);
        for (const shade of scale) expect(shade).toMatch(/^#[0-9a-f]{6}$/);
        for (let i = 1; i < 10; i++) expect(lightness(scale[i])).toBeLessThanOrEqual(lightness(scale[i - 1]));
      }),
    );
  });
});
