import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionCatalogue } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { adminRoleId, type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { type Db, openDatabase } from '../../server/db/database.ts';
import { migrations } from '../../server/db/migrations/index.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { loginAs, loginAsAdmin, injectTestServer, type TestServer, tryLogin } from '../support/server.ts';

/*
 * Privilege escalation through organisation and account management (security issue, item 3): an account
 * holding only org_list and device_list added an organisation whose login account got the admin role,
 * reset that login's password with /org/restpassword and logged in with every permission. Nobody may
 * create, assign, edit or take over an account or role holding keys they do not hold themselves.
 * Also item 13: account and role names are unique regardless of case.
 */

const targets = await dbTargets();

const NOT_ASSIGNABLE = { code: 40003, message: 'You cannot assign this role' };
const MORE_PRIVILEGED = { code: 40003, message: 'You cannot change an account with permissions you do not hold' };
const ACCOUNT_TAKEN = { code: 40001, message: 'Account Already Exists' };
const ROLE_TAKEN = { code: 40001, message: 'Role Name Already Exists' };
const LIMITED_KEYS = ['org_list', 'device_list'];

let serial = 0;
/** Unique names per test, as every test of a file shares one server. */
const unique = (prefix: string) => `${prefix}${++serial}`;

/** The permission keys a login gets, or undefined when the login is refused. */
async function loginKeys(ts: TestServer, account: string, password: string): Promise<string[] | undefined> {
  const res = await tryLogin(ts, account, password);
  if (res.code !== 20000) return undefined;
  const [first] = (res.data as unknown as { list: { permissionList: string[] }[] }).list;
  return [...(first?.permissionList ?? [])].sort();
}

for (const target of targets) {
  describe.skipIf(!target.available)(`privilege escalation (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let platformId: number;
    let adminRole: number;
    /** The reported attacker: an account of the platform organisation holding only org_list and device_list. */
    let mallory: Client;
    let limitedRole: number;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      platformId = login.orgId;
      adminRole = await adminRoleId(admin);
      limitedRole = await createRole(admin, unique('limited_'), LIMITED_KEYS);
      const name = unique('mallory');
      await createAccount(admin, name, 'Mallory_pw1', limitedRole);
      mallory = client(ts, (await loginAs(ts, name, 'Mallory_pw1')).token);
    });
    afterAll(async () => ts?.stop());

    const orgBody = (account: string, roleId?: number) => ({
      name: unique('Escalation '),
      account,
      password: clientPasswordHash('Login_pw1'),
      ...(roleId === undefined ? {} : { roleId }),
    });

    it("the new organisation's login role must be chosen, and only among the roles the creator may grant", async () => {
      const wider = await createRole(admin, unique('wider_'), [...LIMITED_KEYS, 'role_list']);
      const narrower = await createRole(admin, unique('narrower_'), ['device_list']);
      // No silent default: before the fix the login account got the creator's role.
      expect(await mallory.call('POST', '/org/add', orgBody(unique('nochoice')))).toMatchObject({ code: 40001, message: 'Role cannot be empty!' });
      for (const roleId of [adminRole, wider]) {
        const account = unique('escalated');
        expect(await mallory.call('POST', '/org/add', orgBody(account, roleId)), `role ${roleId}`).toMatchObject(NOT_ASSIGNABLE);
        expect((await tryLogin(ts, account, 'Login_pw1')).code).not.toBe(20000);
      }
      // The dialog's choices are exactly the roles it may grant.
      const offered = await mallory.ok<{ id: number; name: string }[]>('GET', '/org/loginRoles');
      const offeredIds = offered.map((r) => r.id);
      expect(offeredIds).toEqual(expect.arrayContaining([limitedRole, narrower]));
      expect(offeredIds).not.toContain(adminRole);
      expect(offeredIds).not.toContain(wider);
      // A granted role gives the new login no key its creator lacks.
      const account = unique('granted');
      await mallory.ok('POST', '/org/add', orgBody(account, limitedRole));
      expect(await loginKeys(ts, account, 'Login_pw1')).toEqual([...LIMITED_KEYS].sort());
    });

    it('the reported chain fails: a password reset cannot take over an organisation login holding more keys', async () => {
      // An organisation an admin made, whose login holds every key.
      const richAccount = unique('rich');
      const rich = await createOrg(admin, { name: unique('Rich '), account: richAccount, password: 'Rich_pw1', parentId: platformId, roleId: adminRole });
      expect(await mallory.call('POST', '/org/restpassword', { id: rich, password: clientPasswordHash('Stolen_pw1') })).toMatchObject(MORE_PRIVILEGED);
      expect((await tryLogin(ts, richAccount, 'Stolen_pw1')).code).not.toBe(20000);
      expect(await loginKeys(ts, richAccount, 'Rich_pw1')).toHaveLength(permissionCatalogue.length);
      // An organisation whose login holds no more than the caller: the reset is the caller's to make.
      const modestAccount = unique('modest');
      const modest = await createOrg(admin, { name: unique('Modest '), account: modestAccount, password: 'Modest_pw1', parentId: platformId, roleId: limitedRole });
      await mallory.ok('POST', '/org/restpassword', { id: modest, password: clientPasswordHash('Reset_pw1') });
      expect(await loginKeys(ts, modestAccount, 'Reset_pw1')).toEqual([...LIMITED_KEYS].sort());
    });

    it("/org/update cannot re-role or re-date a more privileged organisation's accounts, only its descriptive fields", async () => {
      const richAccount = unique('richer');
      const rich = await createOrg(admin, { name: unique('Richer '), account: richAccount, password: 'Rich_pw1', parentId: platformId, roleId: adminRole });
      // Down-roling the login to a role the caller covers, then resetting its password, was the detour.
      expect(await mallory.call('POST', '/org/update', { id: rich, roleId: limitedRole })).toMatchObject(MORE_PRIVILEGED);
      expect(await mallory.call('POST', '/org/restpassword', { id: rich, password: clientPasswordHash('Stolen_pw1') })).toMatchObject(MORE_PRIVILEGED);
      expect(await mallory.call('POST', '/org/update', { id: rich, expireTime: 4_000_000_000_000 })).toMatchObject(MORE_PRIVILEGED);
      expect(await mallory.call('POST', '/org/update', { id: rich, remark: 'seen by a manager' })).toMatchObject({ code: 20000 });
      const detail = await admin.ok<{ roleId: number; expireTime: number | null; remark: string }>('GET', `/org/getOrg/${rich}`);
      expect(detail).toMatchObject({ roleId: adminRole, expireTime: null, remark: 'seen by a manager' });
      // Nor may it raise an organisation it covers to a role it may not grant.
      const modest = await createOrg(admin, { name: unique('Modest '), account: unique('modest'), password: 'Modest_pw1', parentId: platformId, roleId: limitedRole });
      expect(await mallory.call('POST', '/org/update', { id: modest, roleId: adminRole })).toMatchObject(NOT_ASSIGNABLE);
      await mallory.ok('POST', '/org/update', { id: modest, expireTime: 4_000_000_000_000 });
    });

    it('/permit/*: no account or role is created, assigned, edited or taken over beyond the caller keys', async () => {
      const managerKeys = ['admin_list', 'role_list', 'device_list'];
      const managerRole = await createRole(admin, unique('manager_'), managerKeys);
      const bigRole = await createRole(admin, unique('big_'), [...managerKeys, 'org_list']);
      const smallRole = await createRole(admin, unique('small_'), ['device_list']);
      const managerName = unique('manager');
      await createAccount(admin, managerName, 'Manager_pw1', managerRole);
      const manager = client(ts, (await loginAs(ts, managerName, 'Manager_pw1')).token);
      const bigHolder = await createAccount(admin, unique('bigholder'), 'Big_pw1', bigRole);
      const smallHolder = await createAccount(admin, unique('smallholder'), 'Small_pw1', smallRole);

      // Create: an account with a role beyond the caller, or a role with a key it lacks.
      for (const roleId of [adminRole, bigRole]) {
        expect(await manager.call('POST', '/permit/addAccount', { account: unique('made'), password: clientPasswordHash('Made_pw1'), roleId })).toMatchObject(NOT_ASSIGNABLE);
      }
      expect(await manager.call('POST', '/permit/addRole', { name: unique('forged_'), permissionList: ['device_list', 'org_list'] })).toMatchObject({ code: 40003 });
      // Assign: a lesser account raised to a role beyond the caller.
      expect(await manager.call('POST', '/permit/updateAccount', { id: smallHolder, roleId: bigRole })).toMatchObject(NOT_ASSIGNABLE);
      // Take over or edit: a more privileged account's password or role.
      expect(await manager.call('POST', '/permit/updateAccount', { id: bigHolder, password: clientPasswordHash('Stolen_pw1') })).toMatchObject(MORE_PRIVILEGED);
      expect(await manager.call('POST', '/permit/updateAccount', { id: bigHolder, roleId: smallRole })).toMatchObject(MORE_PRIVILEGED);
      // Edit a role: one holding a key the caller lacks, or adding such a key to one it may edit.
      expect(await manager.call('POST', '/permit/updateRole', { id: bigRole, name: unique('big_'), permissionList: managerKeys })).toMatchObject({ code: 40003 });
      const own = await createRole(manager, unique('own_'), ['device_list']);
      expect(await manager.call('POST', '/permit/updateRole', { id: own, name: unique('own_'), permissionList: ['device_list', 'org_list'] })).toMatchObject({ code: 40003 });
      // Within its keys, all of it works.
      await createAccount(manager, unique('made'), 'Made_pw1', own);
      await manager.ok('POST', '/permit/updateAccount', { id: smallHolder, password: clientPasswordHash('Small_pw2') });
      await manager.ok('POST', '/permit/updateRole', { id: own, name: unique('own_'), permissionList: ['device_list', 'role_list'] });
    });

    it("a child organisation's role is held only in its subtree, so the child never sets the keys of an account above it", async () => {
      // Review M3: the platform gave a helpdesk account of its own a role the child owns; the child then
      // widened that role, and with it the platform account's keys over the whole fleet.
      const childKeys = ['role_list', 'admin_list', 'org_list', 'device_list', 'device_reboot', 'device_reset'];
      const childAccount = unique('childlogin');
      const childOrg = await createOrg(admin, { name: unique('Child '), account: childAccount, password: 'Child_pw1', parentId: platformId, roleId: await createRole(admin, unique('childkeys_'), childKeys) });
      const child = client(ts, (await loginAs(ts, childAccount, 'Child_pw1')).token);
      const childRole = await createRole(child, unique('childrole_'), ['device_list']);

      // Assigning it above its owner is refused, on every path that assigns a role.
      expect(await admin.call('POST', '/permit/addAccount', { account: unique('helpdesk'), password: clientPasswordHash('Help_pw1'), roleId: childRole })).toMatchObject(NOT_ASSIGNABLE);
      const helper = await createAccount(admin, unique('helper'), 'Help_pw1', limitedRole);
      expect(await admin.call('POST', '/permit/updateAccount', { id: helper, roleId: childRole })).toMatchObject(NOT_ASSIGNABLE);
      expect(await admin.call('POST', '/org/add', { ...orgBody(unique('sibling'), childRole), parentId: platformId })).toMatchObject(NOT_ASSIGNABLE);
      const sibling = await createOrg(admin, { name: unique('Sibling '), account: unique('siblogin'), password: 'Sib_pw1', parentId: platformId, roleId: limitedRole });
      expect(await admin.call('POST', '/org/update', { id: sibling, roleId: childRole })).toMatchObject(NOT_ASSIGNABLE);
      expect((await admin.ok<{ id: number; grantable: boolean }[]>('GET', '/permit/getAllRole')).find((r) => r.id === childRole)).toMatchObject({ grantable: false });
      // In the owner's subtree it may be held: the child's own accounts, an organisation below the child.
      await createAccount(child, unique('childmate'), 'Mate_pw1', childRole);
      const grandAccount = unique('grandlogin');
      await admin.ok('POST', '/org/add', { ...orgBody(grandAccount, childRole), parentId: childOrg });
      expect(await loginKeys(ts, grandAccount, 'Login_pw1')).toEqual(['device_list']);

      // Data from before the rule: a platform account holding the child's role. The child may no longer edit it.
      const helpdesk = unique('helpdesk');
      await createAccount(admin, helpdesk, 'Help_pw1', limitedRole);
      await ts.server.db.updateTable('accounts').set({ role_id: childRole }).where('account', '=', helpdesk).execute();
      const widened = { id: childRole, name: unique('childrole_'), summary: 'x', permissionList: ['device_list', 'device_reboot', 'device_reset'] };
      expect(await child.call('POST', '/permit/updateRole', widened)).toMatchObject({ code: 40003, message: 'You cannot change this role' });
      expect(await loginKeys(ts, helpdesk, 'Help_pw1')).toEqual(['device_list']);
    });

    it('account names are unique regardless of case, on every path that creates one', async () => {
      const name = unique('Casey');
      const roleId = limitedRole;
      await createAccount(admin, name, 'Casey_pw1', roleId);
      for (const variant of [name.toUpperCase(), name.toLowerCase()]) {
        expect(await admin.call('POST', '/permit/addAccount', { account: variant, password: clientPasswordHash('Casey_pw1'), roleId })).toMatchObject(ACCOUNT_TAKEN);
        expect(await admin.call('POST', '/org/add', { ...orgBody(variant, roleId) })).toMatchObject(ACCOUNT_TAKEN);
      }
      expect(await admin.call('POST', '/permit/addAccount', { account: 'ADMIN', password: clientPasswordHash('Casey_pw1'), roleId })).toMatchObject(ACCOUNT_TAKEN);
      // The database holds the rule too (the race between two creations): a direct insert is refused.
      const org = await ts.server.db.selectFrom('accounts').select('org_id').where('account', '=', name).executeTakeFirstOrThrow();
      await expect(
        ts.server.db
          .insertInto('accounts')
          .values({ org_id: org.org_id, role_id: roleId, account: name.toUpperCase(), nickname: '', password_hash: 'x', update_password_last_time: 0, expire_time: null, created_at: 0 })
          .execute(),
      ).rejects.toThrow();
      // Login still matches the name as typed.
      expect((await tryLogin(ts, name, 'Casey_pw1')).code).toBe(20000);
    });

    it('role names are unique regardless of case, on add and on rename', async () => {
      const name = unique('Auditors_');
      await createRole(admin, name, ['device_list']);
      const other = await createRole(admin, unique('others_'), ['device_list']);
      expect(await admin.call('POST', '/permit/addRole', { name: name.toUpperCase(), permissionList: [] })).toMatchObject(ROLE_TAKEN);
      expect(await admin.call('POST', '/permit/addRole', { name: 'ADMIN', permissionList: [] })).toMatchObject(ROLE_TAKEN);
      expect(await admin.call('POST', '/permit/updateRole', { id: other, name: name.toLowerCase(), permissionList: ['device_list'] })).toMatchObject(ROLE_TAKEN);
      await expect(ts.server.db.insertInto('roles').values({ name: name.toLowerCase(), summary: '', created_by: null }).execute()).rejects.toThrow();
    });
  });
}

const CASE_MIGRATION = '0014-account-names-ignore-case';

for (const target of targets) {
  describe.skipIf(!target.available)(`migration ${CASE_MIGRATION} (${target.name})`, () => {
    it('renames the later of two account names differing only in case, keeping the oldest, then builds the index', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-case-'));
      const pg = target.name === 'postgres' ? await freshPgSchema() : undefined;
      const db: Db = await openDatabase({ dataDir, migrate: false, ...(pg ? { databaseUrl: TEST_PG_URL, pgSchema: pg.schema } : {}) });
      try {
        const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(pg ? { migrationTableSchema: pg.schema } : {}) });
        const names = Object.keys(migrations);
        const before = names[names.indexOf(CASE_MIGRATION) - 1] as string;
        expect((await migrator.migrateTo(before)).error).toBeUndefined();
        // A database written before the rule: three spellings of one name, and the name the rename would
        // pick first already taken (in another case), so it must pick another.
        const org = await db.insertInto('organisations').values({ parent_id: null, name: 'Root', enroll_key: 'k', created_at: 0 }).returning('id').executeTakeFirstOrThrow();
        const role = await db.insertInto('roles').values({ name: 'r', summary: '', created_by: null }).returning('id').executeTakeFirstOrThrow();
        const add = async (account: string) =>
          (
            await db
              .insertInto('accounts')
              .values({ org_id: org.id, role_id: role.id, account, nickname: '', password_hash: 'x', update_password_last_time: 0, expire_time: null, created_at: 0 })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id;
        const first = await add('Casey');
        const second = await add('CASEY');
        const third = await add('casey');
        await add(`CASEY_${second}`);
        expect((await migrator.migrateToLatest()).error).toBeUndefined();
        const byId = new Map((await db.selectFrom('accounts').select(['id', 'account']).execute()).map((r) => [r.id, r.account]));
        expect(byId.get(first)).toBe('Casey');
        expect(byId.get(second)).toBe(`CASEY_${second}_1`);
        expect(byId.get(third)).toBe(`casey_${third}`);
        await expect(add('cAsEy')).rejects.toThrow();
      } finally {
        await db.destroy();
        await pg?.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
