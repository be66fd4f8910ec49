import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { en } from '../../i18n/locales/en.ts';
import { addTag, closeAll, closeOthers, closeTag, NO_NAME, type Tag, tagOf, withAffix } from './tags.ts';

const HOME = '/dashboard/index';
const dashboard = tagOf(HOME, HOME, { titleKey: 'route.dashboard', affix: true });
const page = (path: string, query = ''): Tag => tagOf(path, path + query, { titleKey: `route${path.replaceAll('/', '.')}` });
const open = (...paths: string[]): readonly Tag[] => paths.reduce<readonly Tag[]>((tags, p) => addTag(tags, page(p)), [dashboard]);
const paths = (tags: readonly Tag[]) => tags.map((t) => t.path);

describe('tags view', () => {
  it('keeps tags unique by path, in first-visit order, for any visit sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('/a', '/b', '/c', '/d', HOME), { maxLength: 30 }), (visits) => {
        const tags = visits.reduce<readonly Tag[]>((acc, p) => addTag(acc, p === HOME ? dashboard : page(p)), []);
        expect(paths(tags)).toEqual([...new Set(visits)]);
      }),
    );
  });

  it('takes the newer query of a page already open without moving it', () => {
    const tags = addTag(open('/a', '/b'), page('/a', '?id=7'));
    expect(paths(tags)).toEqual([HOME, '/a', '/b']);
    expect(tags[1]?.fullPath).toBe('/a?id=7');
    expect(addTag(tags, page('/a', '?id=7'))).toBe(tags);
  });

  it('titles a tag from the route meta, or "no-name"', () => {
    expect(page('/a').title).toBe('route.a');
    expect(tagOf('/x', '/x', undefined).title).toBe(NO_NAME);
    expect(tagOf('/x', '/x', {}).title).toBe(NO_NAME);
    expect(en.tagsView.noName).toBe('no-name');
  });

  it('puts affix tags first, once', () => {
    const tags = withAffix([page('/a')], [dashboard]);
    expect(paths(tags)).toEqual([HOME, '/a']);
    expect(withAffix(tags, [dashboard])).toBe(tags);
  });

  it('keeps affix tags and the chosen one on close-others, for any open set', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom('/a', '/b', '/c', '/d', '/e'), { minLength: 1 }), fc.nat(), (visited, pick) => {
        const tags = open(...visited);
        const keep = visited[pick % visited.length] ?? '/a';
        const { tags: left, navigate } = closeOthers(tags, keep, keep);
        expect(paths(left)).toEqual([HOME, keep]);
        expect(navigate).toBeUndefined();
      }),
    );
  });

  it('goes to the chosen tag on close-others from another page', () => {
    expect(closeOthers(open('/a', '/b'), '/a', '/b')).toEqual({ tags: [dashboard, page('/a')], navigate: '/a' });
    expect(paths(closeOthers(open('/a', '/b'), HOME, '/b').tags)).toEqual([HOME]);
  });

  it('keeps only affix tags on close-all and goes to the last of them when the active page closed', () => {
    expect(closeAll(open('/a', '/b'), '/b', HOME)).toEqual({ tags: [dashboard], navigate: HOME });
    expect(closeAll(open('/a', '/b'), HOME, HOME)).toEqual({ tags: [dashboard] });
    expect(closeAll([page('/a')], '/a', HOME)).toEqual({ tags: [], navigate: HOME });
  });

  it('never closes an affix tag', () => {
    const tags = open('/a');
    expect(closeTag(tags, HOME, HOME, HOME).tags).toBe(tags);
  });

  it('goes to the right neighbour when the active tag closes, else the left, else home', () => {
    expect(closeTag(open('/a', '/b', '/c'), '/b', '/b', HOME)).toEqual({ tags: open('/a', '/c'), navigate: '/c' });
    expect(closeTag(open('/a', '/b', '/c'), '/c', '/c', HOME)).toEqual({ tags: open('/a', '/b'), navigate: '/b' });
    expect(closeTag([page('/a')], '/a', '/a', HOME)).toEqual({ tags: [], navigate: HOME });
    expect(closeTag(open('/a', '/b'), '/a', '/b', HOME)).toEqual({ tags: open('/b') });
  });

  it('navigates to the full path of the neighbour, query included', () => {
    const tags = addTag(open('/a'), page('/b', '?sn=1'));
    expect(closeTag(tags, '/a', '/a', HOME).navigate).toBe('/b?sn=1');
  });
});
