import { Box, Center, Text } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { UPlotChartProps } from './UPlotChart.tsx';

// uPlot and its stylesheet (about 24 kB gzip) load with the first chart, not with the dashboard that
// lands after login: the page's cards show while the chart code is on its way.
const UPlotChart = lazy(() => import('./UPlotChart.tsx').then((m) => ({ default: m.UPlotChart })));

/**
 * A line or bar chart (uPlot), loaded on first use; keeps its height while loading so nothing moves. With no
 * series or no points (a report over a period without data) it says so at the same height instead of
 * drawing empty axes or nothing at all.
 */
export function Chart(props: UPlotChartProps) {
  const { t } = useTranslation();
  const height = props.height ?? 260;
  if (props.labels.length === 0 || props.series.length === 0) {
    return (
      <Center h={height} data-testid={props.testId ? `${props.testId}-empty` : undefined}>
        <Text c="dimmed" size="sm" data-testid="table-empty">
          {t('reports.empty')}
        </Text>
      </Center>
    );
  }
  return (
    <Suspense fallback={<Box h={height} data-testid={props.testId ? `${props.testId}-loading` : undefined} />}>
      <UPlotChart {...props} />
    </Suspense>
  );
}
