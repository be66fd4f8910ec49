import { Box } from '@mantine/core';
import { lazy, Suspense } from 'react';
import type { UPlotChartProps } from './UPlotChart.tsx';

// uPlot and its stylesheet (about 24 kB gzip) load with the first chart, not with the dashboard that
// lands after login: the page's cards show while the chart code is on its way.
const UPlotChart = lazy(() => import('./UPlotChart.tsx').then((m) => ({ default: m.UPlotChart })));

/** A line or bar chart (uPlot), loaded on first use; keeps its height while loading so nothing moves. */
export function Chart(props: UPlotChartProps) {
  return (
    <Suspense fallback={<Box h={props.height ?? 260} data-testid={props.testId ? `${props.testId}-loading` : undefined} />}>
      <UPlotChart {...props} />
    </Suspense>
  );
}
