import { Box } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { seriesColour } from './palette.ts';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly number[];
}

interface Props {
  /** Category labels along x (period keys, account names). */
  readonly labels: readonly string[];
  readonly series: readonly ChartSeries[];
  readonly kind?: 'line' | 'bars';
  readonly height?: number;
  /** Formats y values on the axis and in the legend. */
  readonly format?: (v: number) => string;
  readonly testId?: string;
}

/**
 * A uPlot chart over categories: x is the label index, so periods, models and accounts share one
 * component. Re-created when its data changes (uPlot's setData keeps series fixed), resized with its box.
 */
export function UPlotChart({ labels, series, kind = 'line', height = 260, format, testId }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fmt = format ?? ((v: number) => String(Math.round(v * 10) / 10));
    const x = labels.map((_, i) => i);
    const bars = uPlot.paths.bars?.({ size: [0.6 / Math.max(1, series.length), 60] });
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      // A single series needs no legend: the card's title names it.
      legend: { show: series.length > 1, live: false },
      scales: { x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } },
      axes: [
        { values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? (labels[s] ?? '') : '')), space: 60 },
        { values: (_u, splits) => splits.map(fmt), size: 60 },
      ],
      series: [
        { label: '', value: (_u, v) => (v == null ? '' : (labels[v] ?? '')) },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: seriesColour(i),
          fill: kind === 'bars' ? seriesColour(i) : undefined,
          width: kind === 'bars' ? 0 : 2,
          points: { show: labels.length < 40 },
          value: (_u: uPlot, v: number | null) => (v == null ? '' : fmt(v)),
          ...(kind === 'bars' && bars ? { paths: bars } : {}),
        })),
      ],
    };
    const plot = new uPlot(opts, [x, ...series.map((s) => [...s.values])], el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [labels, series, kind, height, format]);
  return <Box ref={box} data-testid={testId} data-points={labels.length} style={{ width: '100%' }} />;
}
