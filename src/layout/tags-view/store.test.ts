import { beforeEach, describe, expect, it } from 'vitest';
import { closeAllTags, closeOtherTags, closeTagAt, refreshTag, resetTags, tagsView, visitTag } from './store.ts';
import { tagOf } from './tags.ts';

const HOME = '/dashboard/index';
const affix = [tagOf(HOME, HOME, { titleKey: 'route.dashboard', affix: true })];
const visit = (path: string) => visitTag(tagOf(path, path, { titleKey: 'route.x' }), affix);
const paths = () => tagsView.tags.map((t) => t.path);

describe('tags view store', () => {
  beforeEach(resetTags);

  it('records visits after the affix tags', () => {
    visit('/a');
    visit('/b');
    visit('/a');
    expect(paths()).toEqual([HOME, '/a', '/b']);
  });

  it('refreshes a page by bumping its epoch, going there when it is not the active one', () => {
    visit('/a');
    visit('/b');
    expect(refreshTag('/b', '/b')).toBeUndefined();
    expect(refreshTag('/a', '/b')).toBe('/a');
    expect(tagsView.epochs).toEqual({ '/a': 1, '/b': 1 });
  });

  it('closes and says where to go', () => {
    visit('/a');
    visit('/b');
    visit('/c');
    expect(closeTagAt('/b', '/b')).toBe('/c');
    expect(closeOtherTags('/a', '/c')).toBe('/a');
    expect(paths()).toEqual([HOME, '/a']);
    expect(closeAllTags('/a')).toBe(HOME);
    expect(paths()).toEqual([HOME]);
  });

  it('forgets everything on logout', () => {
    visit('/a');
    refreshTag('/a', '/a');
    resetTags();
    expect(tagsView.tags).toEqual([]);
    expect(tagsView.epochs).toEqual({});
  });
});
