import { describe, expect, it } from 'vitest';
import { categoryAxisLayout, yRange } from './UPlotChart.tsx';

describe('report chart axes', () => {
  it('caps a percentage axis at 100 and starts it at 0, however the data wobbles', () => {
    expect(yRange('line', 96.2, 100, 0, 100)).toEqual([0, 100]);
    expect(yRange('line', 40, 60, 0, 100)[0]).toBe(0);
    expect(yRange('line', 40, 60, 0, 100)[1]).toBeLessThanOrEqual(100);
  });

  it('starts bars at 0 even when every value is large', () => {
    const [min, max] = yRange('bars', 120, 180);
    expect(min).toBe(0);
    expect(max).toBeGreaterThanOrEqual(180);
  });

  it('gives a flat series a range that is not empty', () => {
    const [min, max] = yRange('bars', 0, 0);
    expect(max).toBeGreaterThan(min);
  });

  it('turns category labels that would overlap, and leaves room below for the longest', () => {
    expect(categoryAxisLayout(60, 700, 7).rotate).toBe(0);
    const turned = categoryAxisLayout(120, 400, 7);
    expect(turned.rotate).toBeLessThan(0);
    expect(turned.size).toBeGreaterThan(120 * Math.sin((40 * Math.PI) / 180));
  });
});
