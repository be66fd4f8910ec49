import { Button, Center, Loader, Stack, Text } from '@mantine/core';
import { type ComponentType, lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { withPageAssets } from './page-assets.ts';

/** What a page shows while its code is on the way (the first visit of a route after a load). */
export function PageLoading() {
  const { t } = useTranslation();
  return (
    <Center py="xl" role="status" data-testid="page-loading">
      <Stack align="center" gap="xs">
        <Loader size="sm" />
        <Text size="sm" c="dimmed">
          {t('app.pageLoading')}
        </Text>
      </Stack>
    </Center>
  );
}

/**
 * A page whose code could not be fetched (the network dropped, or a new release replaced the hashed
 * chunk this tab knows): say so and offer a reload, which fetches the current index and chunks.
 */
function PageLoadFailed() {
  const { t } = useTranslation();
  return (
    <Center py="xl" role="alert">
      <Stack align="center" gap="xs">
        <Text size="sm">{t('app.pageLoadFailed')}</Text>
        <Button size="xs" variant="light" onClick={() => window.location.reload()}>
          {t('app.reload')}
        </Button>
      </Stack>
    </Center>
  );
}

/**
 * A route's page loaded on first render from its own chunk (code splitting by route, issue 21), with its
 * own Suspense boundary, so the login page and the shell do not carry every page's code. Its code comes
 * with the rest of Mantine's styles and the pages' texts (withPageAssets), except for a page that needs
 * only what the shell has (`assets: 'base'`: the dashboard, which the shell opens on).
 */
export function lazyPage(load: () => Promise<ComponentType>, assets: 'pages' | 'base' = 'pages'): ComponentType {
  return lazyComponent(assets === 'base' ? load : () => withPageAssets(load));
}

/** A component with props (the shells) loaded from its own chunk on first render, as lazyPage. */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  const Lazy = lazy(() =>
    load().then(
      (Component) => ({ default: Component }),
      () => ({ default: PageLoadFailed as ComponentType<P> }),
    ),
  );
  function LazyComponent(props: P) {
    return (
      <Suspense fallback={<PageLoading />}>
        <Lazy {...props} />
      </Suspense>
    );
  }
  return LazyComponent;
}

/**
 * The pages of one area module (a record by route path), each loaded lazily; the area's module is one
 * chunk fetched on the first visit of any of its routes. `paths` repeats the module's keys so the route
 * table knows them before the chunk arrives (src/router/pages.test.ts checks they match).
 */
export function lazyArea(load: () => Promise<Readonly<Record<string, ComponentType>>>, paths: readonly string[]): Record<string, ComponentType> {
  const out: Record<string, ComponentType> = {};
  for (const path of paths) {
    out[path] = lazyPage(() =>
      load().then((pages) => {
        const Page = pages[path];
        if (!Page) throw new Error(`no page for ${path}`);
        return Page;
      }),
    );
  }
  return out;
}
