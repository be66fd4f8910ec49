import { findShellRoute, type ShellRoute } from '../router/routes.ts';
import type { Tag } from './tags-view/tags.ts';

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
