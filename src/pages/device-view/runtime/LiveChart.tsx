import 'uplot/dist/uPlot.min.css';
import { Box } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

/** A small live line chart: x is epoch seconds, y a percentage. Data changes are drawn without re-creating the plot. */
export function LiveChart({ title, times, values, color, testId }: { title: string; times: readonly number[]; values: readonly number[]; color: string; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const u = new uPlot(
      {
        title,
        width: Math.max(200, el.clientWidth),
        height: 200,
        scales: { y: { range: [0, 100] } },
        series: [{}, { label: title, stroke: color, fill: `${color}22`, width: 2 }],
        axes: [{}, { values: (_u, ticks) => ticks.map((v) => `${v}%`) }],
      },
      [[], []],
      el,
    );
    plot.current = u;
    const observer = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height: 200 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      u.destroy();
      plot.current = undefined;
    };
  }, [title, color]);

  useEffect(() => {
    plot.current?.setData([[...times], [...values]]);
  }, [times, values]);

  return <Box ref={host} data-testid={testId} data-points={times.length} />;
}
