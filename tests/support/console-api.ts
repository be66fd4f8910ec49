import { expect } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { api, type TestServer } from './server.ts';

type Method = 'GET' | 'POST' | 'DELETE';

/** A logged-in client of one test server: calls return the whole envelope. */
export interface Client {
  call<T = unknown>(method: Method, url: string, body?: unknown): ReturnType<typeof api<T>>;
  /** Calls and expects success, returning the data. */
  ok<T = unknown>(method: Method, url: string, body?: unknown): Promise<T>;
}

export function client(ts: { readonly server: Pick<TestServer['server'], 'url'> }, token: string): Client {
  const call = <T>(method: Method, url: string, body?: unknown) => api<T>(ts.server.url, method, url, { token, body });
  return {
    call,
    async ok<T>(method: Method, url: string, body?: unknown): Promise<T> {
      const res = await call<T>(method, url, body);
      expect(res, `${method} ${url}: ${res.message}`).toMatchObject({ code: 20000 });
      return res.data;
    },
  };
}

/** Creates a role through the API and returns its id. */
export async function createRole(c: Client, name: string, permissionList: string[]): Promise<number> {
  return (await c.ok<{ id: number }>('POST', '/permit/addRole', { name, summary: `${name} role`, permissionList })).id;
}

/** Creates an account in the caller's organisation through the API and returns its id. */
export async function createAccount(c: Client, account: string, password: string, roleId: number): Promise<number> {
  return (await c.ok<{ id: number }>('POST', '/permit/addAccount', { account, password: clientPasswordHash(password), roleId, nickname: account })).id;
}

export interface OrgInput {
  readonly name: string;
  readonly account: string;
  readonly password: string;
  readonly parentId?: number;
  readonly roleId?: number;
  readonly contactPerson?: string;
}

/**
 * Creates an organisation with its login account through the API and returns its id. The login account's
 * role is `roleId`, or else the admin role (which only an admin may give: pass a roleId otherwise).
 */
export async function createOrg(c: Client, org: OrgInput): Promise<number> {
  const { password, roleId, ...rest } = org;
  return (await c.ok<{ id: number }>('POST', '/org/add', { ...rest, roleId: roleId ?? (await adminRoleId(c)), password: clientPasswordHash(password) })).id;
}

/** The admin role's id, from the roles the caller may give a new organisation's login account. */
export async function adminRoleId(c: Client): Promise<number> {
  const roles = await c.ok<{ id: number; name: string }[]>('GET', '/org/loginRoles');
  const admin = roles.find((r) => r.name === 'admin');
  if (!admin) throw new Error('the caller may not give the admin role: pass a roleId');
  return admin.id;
}

/**
 * Lets factory reset and clear data run at once in organisation `orgId` (its four-eyes policy off, issue
 * 23), for tests of the command paths themselves; tests/integration/approvals.test.ts tests the approval.
 */
export async function wipesWithoutApproval(c: Client, orgId: number): Promise<void> {
  await c.ok('POST', '/approval/policy', { orgId, wipes: false, bulkOver: 20, campaignOver: 100, ttlMinutes: 1440 });
}
