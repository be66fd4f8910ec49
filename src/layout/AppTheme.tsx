import { colorsTuple, createTheme, MantineProvider } from '@mantine/core';
import { type ReactNode, useMemo } from 'react';
import { useSnapshot } from 'valtio';
import { layout } from '../state/layout.ts';
import { colorScale } from './theme.ts';

/** Mantine with the settings panel's theme colour as the primary colour (default #1890ff). */
export function AppTheme({ children }: { children: ReactNode }) {
  const { themeColor } = useSnapshot(layout).settings;
  const theme = useMemo(
    () =>
      createTheme({
        primaryColor: 'brand',
        colors: { brand: colorsTuple(colorScale(themeColor)) },
        primaryShade: 5,
        defaultRadius: 'sm',
      }),
    [themeColor],
  );
  return <MantineProvider theme={theme}>{children}</MantineProvider>;
}
