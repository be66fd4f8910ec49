import { Activity, useMemo } from 'react';
import { useSnapshot } from 'valtio';
import { Router } from 'wouter';
import { useBrowserLocation, useSearch as useBrowserSearch } from 'wouter/use-browser-location';
import { AreaPlaceholder } from '../pages/placeholder/AreaPlaceholder.tsx';
import { builtPages } from '../router/pages.ts';
import { findShellRoute, type ShellRoute } from '../router/routes.ts';
import { tagsView } from './tags-view/store.ts';
import type { Tag } from './tags-view/tags.ts';

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

/** A mounted page: its path and, while hidden, the path and query it was left at. */
export interface MountedView {
  readonly path: string;
  readonly frozen: string | undefined;
}

/**
 * The pages to keep mounted: the shown one, and every open tag's unless its route is no-cache. Sorted by
 * path, a stable order, so showing another page moves no DOM and remounts nothing.
 */
export function mountedViews(tags: readonly Pick<Tag, 'path' | 'fullPath'>[], activePath: string, find: (path: string) => ShellRoute | undefined = findShellRoute): MountedView[] {
  const kept = tags.filter((tag) => tag.path !== activePath && find(tag.path)?.noCache !== true);
  const views: MountedView[] = [...kept.map((tag) => ({ path: tag.path, frozen: tag.fullPath })), { path: activePath, frozen: undefined }];
  return views.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
