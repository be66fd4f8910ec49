import { Box } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { seriesColour } from './palette.ts';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly number[];
}

export interface UPlotChartProps {
  /** Category labels along x (period keys, account names). */
  readonly labels: readonly string[];
  readonly series: readonly ChartSeries[];
  readonly kind?: 'line' | 'bars';
  readonly height?: number;
  /** Formats y values on the axis and in the legend. */
  readonly format?: (v: number) => string;
  /**
   * Fixed ends of the y axis. Bars always start at 0 (a bar's height is its value); a line starts at 0
   * when `min` is 0. `max` caps the axis (percentages end at 100 however the data wobbles).
   */
  readonly yMin?: number;
  readonly yMax?: number;
  /** Show the values under the cursor in the legend (the chart's tooltip), the x value under `xLabel`. */
  readonly hoverValues?: boolean;
  readonly xLabel?: string;
  /** Counts: y ticks at whole numbers only. */
  readonly integers?: boolean;
  /** A time axis: labels may skip categories (every few hours) instead of turning to fit them all. */
  readonly skipLabels?: boolean;
  readonly testId?: string;
}

// uPlot's axis font; category labels are measured in it to decide whether they fit side by side.
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "Noto Sans", "Liberation Sans", Arial, sans-serif';
const LABEL_GAP = 12;
const ROTATION = 40;

let measureContext: CanvasRenderingContext2D | null | undefined;
/** Width of the widest label in the axis font (0 where canvas text cannot be measured). */
function widestLabel(labels: readonly string[]): number {
  measureContext ??= document.createElement('canvas').getContext('2d');
  if (!measureContext) return 0;
  measureContext.font = AXIS_FONT;
  let widest = 0;
  for (const l of labels) widest = Math.max(widest, measureContext.measureText(l).width);
  return widest;
}

/**
 * How the x labels are laid out: straight when each fits its category's width, otherwise turned by
 * ROTATION degrees with room below for the longest, so neighbouring labels never overlap.
 */
export function categoryAxisLayout(labelWidth: number, plotWidth: number, count: number, skipLabels = false): { rotate: number; size: number; space: number } {
  const perCategory = plotWidth / Math.max(1, count);
  if (skipLabels || labelWidth + LABEL_GAP <= perCategory) return { rotate: 0, size: 50, space: Math.max(30, labelWidth + LABEL_GAP) };
  const rad = (ROTATION * Math.PI) / 180;
  // Turned labels need only their line height (about 16 px) between them.
  return { rotate: -ROTATION, size: Math.ceil(labelWidth * Math.sin(rad) + 24), space: 18 };
}

/** The y range: bars from 0, optional fixed ends, otherwise uPlot's own rounding. */
export function yRange(kind: 'line' | 'bars', dataMin: number, dataMax: number, yMin?: number, yMax?: number): [number, number] {
  const lo = yMin ?? (kind === 'bars' ? Math.min(0, dataMin) : dataMin);
  const [autoLo, autoHi] = uPlot.rangeNum(lo, Math.max(lo, dataMax), 0.1, true);
  const min = yMin ?? (kind === 'bars' ? Math.min(0, autoLo ?? 0) : (autoLo ?? lo));
  let max = autoHi ?? dataMax;
  if (yMax !== undefined) max = Math.min(max, yMax);
  if (max <= min) max = yMax ?? min + 1;
  return [min, max];
}

/**
 * A uPlot chart over categories: x is the label index, so periods, models and accounts share one
 * component. Re-created when its data changes (uPlot's setData keeps series fixed), resized with its box.
 */
// Whole-number tick steps for count axes.
const INTEGER_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];

export function UPlotChart({ labels, series, kind = 'line', height = 260, format, yMin, yMax, hoverValues = false, xLabel = '', integers = false, skipLabels = false, testId }: UPlotChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const fmt = format ?? ((v: number) => String(Math.round(v * 10) / 10));
    const x = labels.map((_, i) => i);
    const bars = uPlot.paths.bars?.({ size: [0.6 / Math.max(1, series.length), 60] });
    const width = Math.max(200, el.clientWidth);
    // The y axis takes 60 px of the width; the rest is shared by the categories.
    const layout = categoryAxisLayout(widestLabel(labels), width - 60, labels.length, skipLabels);
    el.dataset.xRotate = String(layout.rotate);
    const opts: uPlot.Options = {
      width,
      height,
      // A single series needs no legend: the card's title names it.
      legend: { show: hoverValues || series.length > 1, live: hoverValues },
      scales: {
        // x is the category index, so the range is known: half a category either side. Not uPlot's data range:
        // with a single category it hands over 0..100, which drew one account's bar at the left of 100 empty slots.
        x: { time: false, range: () => [-0.5, labels.length - 0.5] },
        y: { range: (_u, min, max) => yRange(kind, min, max, yMin, yMax) },
      },
      axes: [
        { values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? (labels[s] ?? '') : '')), space: layout.space, rotate: layout.rotate, size: layout.size, incrs: [1, 2, 5, 10, 20, 50, 100] },
        { values: (_u, splits) => splits.map(fmt), size: 60, ...(integers ? { incrs: INTEGER_INCRS } : {}) },
      ],
      // What the y axis shows, once drawn, for tests and for anyone inspecting the page.
      hooks: {
        draw: [
          (u) => {
            el.dataset.yMin = String(u.scales.y?.min ?? '');
            el.dataset.yMax = String(u.scales.y?.max ?? '');
            el.dataset.xMax = String(u.scales.x?.max ?? '');
          },
        ],
      },
      series: [
        { label: xLabel, value: (_u, v) => (v == null ? '' : (labels[v] ?? '')) },
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
  }, [labels, series, kind, height, format, yMin, yMax, hoverValues, xLabel, integers, skipLabels]);
  return <Box ref={box} data-testid={testId} data-points={labels.length} style={{ width: '100%' }} />;
}
