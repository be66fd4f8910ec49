import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPermission, permissionCatalogue } from '../../protocol/index.ts';
import { ApiCode, Message } from '../../server/http/envelope.ts';
import { MISSING_PERMISSION_HEADER, type RoutePermission, routePermissions } from '../../server/http/guard.ts';
import { client, type Client, createAccount, createRole } from '../support/console-api.ts';
import { type Envelope, loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

// The permission matrix, generated from the routes the server actually registered (the guard's own table),
// so a route added later is covered without editing this file.

type Method = 'GET' | 'POST' | 'DELETE';

/** A concrete URL for a route pattern: path parameters name nothing that exists, so no call changes anything. */
function concrete(url: string): string {
  return url.replace(/:[A-Za-z_]+/g, '999999').replace(/\*/g, 'x');
}

/** Calls a route with an empty body; the envelope and the key the guard said was missing, if it refused. */
async function call(ts: TestServer, route: RoutePermission, token: string | undefined): Promise<Envelope<unknown> & { missing: string | null }> {
  const method = route.method as Method;
  const res = await fetch(`${ts.server.url}${concrete(route.url)}`, {
    method,
    headers: { ...(token ? { 'X-Token': token } : {}), ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
    body: method === 'POST' ? '{}' : undefined,
  });
  const missing = res.headers.get(MISSING_PERMISSION_HEADER);
  // Downloads and live progress streams answer with their own content; only the guard's verdict matters.
  if (!res.headers.get('content-type')?.includes('application/json')) {
    await res.body?.cancel();
    return { code: ApiCode.Success, data: null, message: `${res.status} ${res.headers.get('content-type') ?? ''}`, missing };
  }
  return { ...((await res.json()) as Envelope<unknown>), missing };
}

const DENIED = { code: ApiCode.Forbidden, message: Message.PermissionDenied };
const PASSWORD = 'Matrix_pw1';

describe('permission matrix (every API route, from the guard table)', () => {
  let ts: TestServer;
  let admin: Client;
  let routes: readonly RoutePermission[];
  const roles = { lacking: 0, holding: 0 };
  const tokens = { lacking: '', holding: '' };

  beforeAll(async () => {
    ts = await startTestServer();
    admin = client(ts, (await loginAsAdmin(ts)).token);
    routes = routePermissions(ts.server.app).filter((r) => ['GET', 'POST', 'DELETE'].includes(r.method));
    // A login with no menu permission is refused, so both start with the dashboard's key.
    roles.lacking = await createRole(admin, 'matrix-lacking', ['home_list']);
    roles.holding = await createRole(admin, 'matrix-holding', ['home_list']);
    await createAccount(admin, 'matrix_lacking', PASSWORD, roles.lacking);
    await createAccount(admin, 'matrix_holding', PASSWORD, roles.holding);
    tokens.lacking = (await loginAs(ts, 'matrix_lacking', PASSWORD)).token;
    tokens.holding = (await loginAs(ts, 'matrix_holding', PASSWORD)).token;
  });
  afterAll(async () => ts?.stop());

  it('every route names a catalogued key, `session`, or is public', () => {
    expect(routes.length).toBeGreaterThan(100);
    for (const r of routes) {
      if (r.permission === undefined || r.permission === 'session') continue;
      expect(isPermission(r.permission), `${r.method} ${r.url}: ${r.permission}`).toBe(true);
    }
  });

  it('without a session every non-public route answers the login-expiry code', async () => {
    const guarded = routes.filter((r) => r.permission !== undefined);
    for (const r of guarded) {
      const res = await call(ts, r, undefined);
      expect(res.code, `${r.method} ${r.url}`).toBe(ApiCode.LoginExpired);
    }
  });

  it('a caller holding every other key is refused; a caller holding only the key gets past the check', async () => {
    const keyed = routes.filter((r) => r.permission !== undefined && r.permission !== 'session');
    const keys = [...new Set(keyed.map((r) => r.permission as string))];
    const allKeys = permissionCatalogue.map((e) => e.key);
    let checked = 0;
    for (const key of keys) {
      await admin.ok('POST', '/permit/updateRole', { id: roles.lacking, name: 'matrix-lacking', permissionList: allKeys.filter((k) => k !== key) });
      await admin.ok('POST', '/permit/updateRole', { id: roles.holding, name: 'matrix-holding', permissionList: [key] });
      for (const r of keyed.filter((x) => x.permission === key)) {
        expect(await call(ts, r, tokens.lacking), `lacking ${key}: ${r.method} ${r.url}`).toMatchObject({ ...DENIED, missing: key });
        // Past the guard the call may still fail (an empty body, an id out of scope): never for want of the key.
        const held = await call(ts, r, tokens.holding);
        expect(held.missing, `holding ${key}: ${r.method} ${r.url} -> ${held.code} ${held.message}`).toBeNull();
        expect(held.code, `holding ${key}: ${r.method} ${r.url}`).not.toBe(ApiCode.LoginExpired);
        checked++;
      }
    }
    expect(checked).toBe(keyed.length);
    console.log(`permission matrix: ${keyed.length} keyed routes over ${keys.length} keys, ${routes.length - keyed.length} session or public routes`);
  }, 300_000);
});
