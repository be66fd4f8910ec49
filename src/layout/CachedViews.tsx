import { Activity, useMemo } from 'react';
import { useSnapshot } from 'valtio';
import { Router } from 'wouter';
import { useBrowserLocation, useSearch as useBrowserSearch } from 'wouter/use-browser-location';
import { AreaPlaceholder } from '../pages/placeholder/AreaPlaceholder.tsx';
import { builtPages } from '../router/pages.ts';
import { findShellRoute, type ShellRoute } from '../router/routes.ts';
import { mountedViews } from './cached-views.ts';
import { tagsView } from './tags-view/store.ts';

/** The console's base path; a page's own router repeats it because a custom location hook starts afresh. */
const BASE = '/user';

type LocationHook = ((router: { ssrPath?: string }) => [string, (to: string, opts?: { replace?: boolean }) => void]) & {
  searchHook?: (router: { ssrSearch?: string }) => string;
};

/**
 * A location hook for one kept page. While its page is hidden, it keeps answering the location the page
 * was left at (its tag's path and query), so a hidden page never re-renders against another page's URL
 * (a device detail must not lose its ?sn= when the user opens the dashboard). Navigation stays live.
 */
function frozenLocation(frozen: string | undefined): LocationHook {
  const [path, search = ''] = (frozen ?? '').split('?');
  const useFrozenLocation: LocationHook = (router) => {
    const [location, navigate] = useBrowserLocation(router);
    return [frozen === undefined ? location : `${BASE}${path}`, navigate];
  };
  const useFrozenSearch = (router: { ssrSearch?: string }) => {
    const live = useBrowserSearch(router);
    return frozen === undefined ? live : search;
  };
  useFrozenLocation.searchHook = useFrozenSearch;
  return useFrozenLocation;
}

function KeptPage({ route, frozen }: { route: ShellRoute; frozen: string | undefined }) {
  const hook = useMemo(() => frozenLocation(frozen), [frozen]);
  const Page = builtPages[route.path];
  return (
    <Router hook={hook} searchHook={hook.searchHook} base={BASE}>
      {Page ? <Page /> : <AreaPlaceholder titleKey={route.titleKey} />}
    </Router>
  );
}

/**
 * Cached route views (platform-core section 2): the page of every open tag stays mounted, hidden, with
 * its state (a typed filter, a scroll position) while another tag is shown; its effects pause while
 * hidden (React Activity), so hidden pages neither poll nor listen. A route marked no-cache mounts afresh
 * each visit. Closing a tag drops its page; refresh re-mounts it (the tag's epoch is its key).
 */
export function CachedViews({ route }: { route: ShellRoute }) {
  const { tags, epochs } = useSnapshot(tagsView);
  return mountedViews(tags, route.path).map(({ path, frozen }) => {
    const view = findShellRoute(path);
    if (!view) return null;
    return (
      <Activity key={`${path}#${epochs[path] ?? 0}`} mode={frozen === undefined ? 'visible' : 'hidden'}>
        <KeptPage route={view} frozen={frozen} />
      </Activity>
    );
  });
}
