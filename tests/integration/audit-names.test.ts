// Issue 19, system operation log: "actions shown as translated names ... read-only list calls not logged".
// Every route the recorder logs has a name in both languages (protocol/catalogue/audit-actions.ts), so no raw
// "POST /some/path" reaches the log, its filter or its export; a route that only reads is not logged at all.
// A new route fails here until it is named or marked read-only (server/audit/recorder.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditActionName } from '../../protocol/index.ts';
import { isAuditedRoute } from '../../server/audit/recorder.ts';
import { registeredRoutes } from '../../server/http/route-registry.ts';
import { injectTestServer, type TestServer } from '../support/server.ts';

describe('operation log names', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
  });
  afterAll(async () => {
    await ts?.stop();
  });

  it('every recorded route has a name in en and zh', () => {
    const audited = registeredRoutes(ts.server.app).filter((r) => isAuditedRoute(r.method, r.url));
    expect(audited.length).toBeGreaterThan(50);
    const unnamed = audited.map((r) => `${r.method} ${r.url}`).filter((key) => {
      const [method = '', url = ''] = key.split(' ');
      return auditActionName(method, url, 'en') === key || auditActionName(method, url, 'zh') === key;
    });
    expect(unnamed).toEqual([]);
  });

  it('list, detail and getter calls are not recorded', () => {
    for (const url of ['/recording/list', '/push-coupon/ledger', '/recording/policy-of', '/device/timeline', '/approval/list']) {
      expect(isAuditedRoute('POST', url), url).toBe(false);
    }
    expect(isAuditedRoute('POST', '/org/add')).toBe(true);
  });
});
