import { proxy } from 'valtio';
import { HOME_PATH } from '../../router/guard.ts';
import { addTag, closeAll, closeOthers, closeTag, type Closed, type Tag, withAffix } from './tags.ts';

interface TagsViewState {
  tags: readonly Tag[];
  /** Bumped by "refresh": the page of that path is keyed by it, so it mounts afresh. */
  epochs: Record<string, number>;
}

/** Open tags of this browser tab. Components read it with useSnapshot; the actions below change it. */
export const tagsView = proxy<TagsViewState>({ tags: [], epochs: {} });

function apply(result: Closed): string | undefined {
  tagsView.tags = result.tags;
  return result.navigate;
}

/** Records a visited page, with the affix tags the user may open kept in front. */
export function visitTag(tag: Tag, affix: readonly Tag[]): void {
  const next = withAffix(addTag(tagsView.tags, tag), affix);
  if (next !== tagsView.tags) tagsView.tags = next;
}

/** Remounts the page of `path`; returns where to navigate when that page is not the active one. */
export function refreshTag(path: string, activePath: string): string | undefined {
  tagsView.epochs[path] = (tagsView.epochs[path] ?? 0) + 1;
  return path === activePath ? undefined : tagsView.tags.find((t) => t.path === path)?.fullPath;
}

export const closeTagAt = (path: string, activePath: string): string | undefined => apply(closeTag(tagsView.tags, path, activePath, HOME_PATH));
export const closeOtherTags = (path: string, activePath: string): string | undefined => apply(closeOthers(tagsView.tags, path, activePath));
export const closeAllTags = (activePath: string): string | undefined => apply(closeAll(tagsView.tags, activePath, HOME_PATH));

/** Logout forgets the open tabs (platform-core section 4). */
export function resetTags(): void {
  tagsView.tags = [];
  tagsView.epochs = {};
}
