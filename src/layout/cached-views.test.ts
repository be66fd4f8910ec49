import { describe, expect, it } from 'vitest';
import { findShellRoute } from '../router/routes.ts';
import { mountedViews } from './cached-views.ts';

const tag = (path: string, query = '') => ({ path, fullPath: `${path}${query}` });

describe('cached route views', () => {
  it('keeps every open tag mounted, hidden at the URL it was left at; the shown page reads the live URL', () => {
    const views = mountedViews([tag('/dashboard/index'), tag('/device-view/index', '?sn=A1'), tag('/authority-manage/role-manage')], '/authority-manage/role-manage');
    expect(views).toEqual([
      { path: '/authority-manage/role-manage', frozen: undefined },
      { path: '/dashboard/index', frozen: '/dashboard/index' },
      { path: '/device-view/index', frozen: '/device-view/index?sn=A1' },
    ]);
  });

  it('mounts the shown page before its tag exists, and drops closed tags and no-cache routes', () => {
    expect(mountedViews([], '/dashboard/index')).toEqual([{ path: '/dashboard/index', frozen: undefined }]);
    expect(findShellRoute('/pay-data/index')?.noCache).toBe(true);
    const views = mountedViews([tag('/dashboard/index'), tag('/pay-data/index')], '/user-notice/index');
    expect(views.map((v) => v.path)).toEqual(['/dashboard/index', '/user-notice/index']);
    // The no-cache page itself is mounted while shown.
    expect(mountedViews([tag('/pay-data/index')], '/pay-data/index')).toEqual([{ path: '/pay-data/index', frozen: undefined }]);
  });

  it('keeps the order whichever page is shown, so switching remounts nothing', () => {
    const tags = [tag('/b/index'), tag('/a/index'), tag('/c/index')];
    const order = (active: string) => mountedViews(tags, active, () => undefined).map((v) => v.path);
    expect(order('/a/index')).toEqual(order('/c/index'));
  });
});
