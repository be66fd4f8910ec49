/**
 * The tags view of visited pages as pure functions (platform-core section 2, layout shell): tags are
 * unique by path, titled from the route meta or "no-name", and affix tags survive close-others and
 * close-all. Closing the active tag says where to go next; the store and the view only carry it out.
 */

/** Translation key of the spec's default tag title ("no-name"). */
export const NO_NAME = 'tagsView.noName';

export interface Tag {
  readonly path: string;
  /** Path with its query string: where clicking the tag goes. */
  readonly fullPath: string;
  /** Translation key of the title. */
  readonly title: string;
  readonly affix: boolean;
}

/** Route meta the tags view reads. */
export interface TagMeta {
  readonly titleKey?: string;
  readonly affix?: boolean;
}

/** The result of a close: the tags left and, when the active page went away, where to navigate. */
export interface Closed {
  readonly tags: readonly Tag[];
  readonly navigate?: string;
}

export function tagOf(path: string, fullPath: string, meta: TagMeta | undefined): Tag {
  return { path, fullPath, title: meta?.titleKey || NO_NAME, affix: meta?.affix === true };
}

/** Adds a visited page; a path already open keeps its place and takes the newer query and title. */
export function addTag(tags: readonly Tag[], tag: Tag): readonly Tag[] {
  const old = tags.find((t) => t.path === tag.path);
  if (!old) return [...tags, tag];
  if (old.fullPath === tag.fullPath && old.title === tag.title) return tags;
  return tags.map((t) => (t === old ? { ...tag, affix: old.affix || tag.affix } : t));
}

/** Puts the affix tags first (the dashboard), keeping any already open. */
export function withAffix(tags: readonly Tag[], affix: readonly Tag[]): readonly Tag[] {
  let out = tags;
  for (const tag of [...affix].reverse()) {
    if (!out.some((t) => t.path === tag.path)) out = [tag, ...out];
  }
  return out;
}

/** Closes one tag; affix tags cannot be closed. Closing the active tag goes to its right neighbour, else its left, else home. */
export function closeTag(tags: readonly Tag[], path: string, activePath: string, home: string): Closed {
  const at = tags.findIndex((t) => t.path === path);
  if (at === -1 || tags[at]?.affix) return { tags };
  const left = tags.filter((t) => t.path !== path);
  if (path !== activePath) return { tags: left };
  const neighbour = left[at] ?? left[at - 1];
  return { tags: left, navigate: neighbour ? neighbour.fullPath : home };
}

/** Keeps the affix tags and `path`; goes to `path` when it was not the active page. */
export function closeOthers(tags: readonly Tag[], path: string, activePath: string): Closed {
  const kept = tags.filter((t) => t.affix || t.path === path);
  const target = tags.find((t) => t.path === path);
  return { tags: kept, navigate: target && path !== activePath ? target.fullPath : undefined };
}

/** Keeps only the affix tags; when the active page is gone, goes to the last one left, else home. */
export function closeAll(tags: readonly Tag[], activePath: string, home: string): Closed {
  const kept = tags.filter((t) => t.affix);
  if (kept.some((t) => t.path === activePath)) return { tags: kept };
  const last = kept.at(-1);
  return { tags: kept, navigate: last ? last.fullPath : home };
}
