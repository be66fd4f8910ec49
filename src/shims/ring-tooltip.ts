import { FloatingTip } from '../layout/floating/deferred.tsx';

/**
 * What Mantine's RingProgress curve imports as `Tooltip` (it renders `Tooltip.Floating` round each
 * section): vite.config.ts points that import here, so the dashboard's rings do not bring floating-ui
 * into the shell's first load (issue 21). The section tooltips are the real Tooltip.Floating once the
 * floating parts are in (src/layout/floating/deferred.tsx).
 */
export const Tooltip = { Floating: FloatingTip };
