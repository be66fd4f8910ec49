import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissionCatalogue } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, injectTestServer, type TestServer, tryLogin } from '../support/server.ts';

const targets = await dbTargets();

const DENIED = { code: 40003, message: 'Permission denied or Session expire' };

interface RoleView {
  id: number;
  name: string;
  summary: string;
  createdBy: string;
  permissionList: string[];
  grantable?: boolean;
}
interface AccountView {
  id: number;
  account: string;
  nickname: string;
  email: string;
  phone: string;
  roleId: number;
  role: string;
}
type Page<T> = { total: number; list: T[] };

let serial = 0;
/** Unique names per test, as every test of a file shares one server. */
const unique = (prefix: string) => `${prefix}${++serial}`;

for (const target of targets) {
  describe.skipIf(!target.available)(`roles and admin accounts (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let adminId: number;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      const login = await loginAsAdmin(ts);
      admin = client(ts, login.token);
      adminId = login.accountId;
    });
    afterAll(async () => ts?.stop());

    /** A new account holding a new role with `permissions`, logged in. */
    async function accountWith(permissions: string[]): Promise<{ c: Client; id: number; account: string; roleId: number }> {
      const roleId = await createRole(admin, unique('role_'), permissions);
      const account = unique('user');
      const id = await createAccount(admin, account, 'User_pw1', roleId);
      return { c: client(ts, (await loginAs(ts, account, 'User_pw1')).token), id, account, roleId };
    }

    it("lists the permission catalogue with labels in the caller's language", async () => {
      const en = await admin.ok<{ id: string; parentId: string | null; name: string; label: string }[]>('GET', '/permit/getAllPermits');
      expect(en).toHaveLength(permissionCatalogue.length);
      expect(en.find((p) => p.id === 'role_list')).toEqual({ id: 'role_list', parentId: 'permit_manage', name: 'role_list', label: 'Roles' });
      const zhUser = await accountWith(['home_list']);
      await ts.server.db.updateTable('accounts').set({ language: 1 }).where('id', '=', zhUser.id).execute();
      const zh = await zhUser.c.ok<{ id: string; label: string }[]>('GET', '/permit/getAllPermits');
      expect(zh.find((p) => p.id === 'org_list')?.label).toBe('组织管理');
    });

    it('adds, lists, reads, updates and deletes a role', async () => {
      const name = unique('Operators ');
      const id = await createRole(admin, name, ['device_list', 'device_reboot', 'home_list', 'device_list']);
      const page = await admin.ok<Page<RoleView>>('POST', '/permit/getRoleList', { pageNum: 1, pageSize: 10, name: 'operators' });
      expect(page.total).toBe(1);
      expect(page.list[0]).toMatchObject({ id, name, summary: `${name} role`, createdBy: 'admin' });
      expect(page.list[0]?.permissionList.sort()).toEqual(['device_list', 'device_reboot', 'home_list']);
      expect((await admin.ok<string[]>('GET', `/permit/getPermitsByRole/${id}`)).sort()).toEqual(['device_list', 'device_reboot', 'home_list']);
      const all = await admin.ok<RoleView[]>('GET', '/permit/getAllRole');
      expect(all.map((r) => r.name)).toEqual(expect.arrayContaining(['admin', name]));
      await admin.ok('POST', '/permit/updateRole', { id, name: `${name} v2`, summary: 'changed', permissionList: ['home_list'] });
      expect(await admin.ok<string[]>('GET', `/permit/getPermitsByRole/${id}`)).toEqual(['home_list']);
      await admin.ok('DELETE', `/permit/delRole/${id}`);
      expect(await admin.call('GET', `/permit/getPermitsByRole/${id}`)).toMatchObject({ code: 40003 });
    });

    it('keeps role names unique, ignoring case, with the spec message', async () => {
      const name = unique('Unique ');
      const id = await createRole(admin, name, ['home_list']);
      const taken = { code: 40001, message: 'Role Name Already Exists' };
      expect(await admin.call('POST', '/permit/addRole', { name, permissionList: [] })).toMatchObject(taken);
      expect(await admin.call('POST', '/permit/addRole', { name: name.toUpperCase(), permissionList: [] })).toMatchObject(taken);
      expect(await admin.call('POST', '/permit/addRole', { name: ' admin ', permissionList: [] })).toMatchObject(taken);
      const other = await createRole(admin, unique('Other '), ['home_list']);
      expect(await admin.call('POST', '/permit/updateRole', { id: other, name, permissionList: [] })).toMatchObject(taken);
      // Keeping its own name is no conflict.
      expect(await admin.call('POST', '/permit/updateRole', { id, name, summary: 'same name', permissionList: [] })).toMatchObject({ code: 20000 });
    });

    it('refuses unknown permissions, emoji names, bad bodies, and any change to the admin role', async () => {
      expect(await admin.call('POST', '/permit/addRole', { name: unique('Bogus '), permissionList: ['home_list', 'root_everything'] })).toMatchObject({
        code: 40001,
        message: 'Unknown permission: root_everything',
      });
      expect(await admin.call('POST', '/permit/addRole', { name: 'Party 🎉', permissionList: [] })).toMatchObject({ code: 40001, message: 'Role name cannot contain emoji!' });
      expect(await admin.call('POST', '/permit/addRole', { name: ' ', permissionList: [] })).toMatchObject({ code: 40001, message: 'Role name cannot be empty!' });
      expect(await admin.call('POST', '/permit/addRole', { name: 'x', permissionList: [], colour: 1 })).toMatchObject({ code: 40001, message: expect.stringContaining('colour') });
      expect(await admin.call('POST', '/permit/addRole', { name: 'x', permissionList: 'home_list' })).toMatchObject({ code: 40001, message: expect.stringContaining('Permissions') });
      const adminRole = (await admin.ok<RoleView[]>('GET', '/permit/getAllRole')).find((r) => r.name === 'admin');
      const fixed = { code: 40003, message: 'The admin role cannot be changed or deleted' };
      expect(await admin.call('POST', '/permit/updateRole', { id: adminRole?.id, name: 'root', permissionList: [] })).toMatchObject(fixed);
      expect(await admin.call('POST', '/permit/updateRole', { id: adminRole?.id, name: 'admin', permissionList: ['home_list'] })).toMatchObject(fixed);
      expect(await admin.call('DELETE', `/permit/delRole/${adminRole?.id}`)).toMatchObject(fixed);
    });

    it('refuses deleting a role while accounts hold it', async () => {
      const roleId = await createRole(admin, unique('Held '), ['home_list']);
      const accountId = await createAccount(admin, unique('holder'), 'Holder_pw1', roleId);
      expect(await admin.call('DELETE', `/permit/delRole/${roleId}`)).toMatchObject({ code: 40001, message: 'The role is still assigned to accounts' });
      await admin.ok('DELETE', `/permit/delAccount/${accountId}`);
      await admin.ok('DELETE', `/permit/delRole/${roleId}`);
    });

    it('adds, lists, updates and deletes admin accounts of the caller organisation', async () => {
      const roleId = await createRole(admin, unique('Staff '), ['home_list', 'device_list']);
      const name = unique('staff');
      const id = await createAccount(admin, name, 'Staff_pw1', roleId);
      const page = await admin.ok<Page<AccountView>>('POST', '/permit/getAdminList', { pageNum: 1, pageSize: 10, account: name });
      expect(page).toMatchObject({ total: 1, list: [{ id, account: name, nickname: name, roleId, email: '', phone: '' }] });
      expect(JSON.stringify(page)).not.toMatch(/password|scrypt/);
      await admin.ok('POST', '/permit/updateAccount', { id, nickname: 'Staff One', email: 's@example.com', phone: '13900000000' });
      const updated = await admin.ok<Page<AccountView>>('POST', '/permit/getAdminList', { account: name });
      expect(updated.list[0]).toMatchObject({ nickname: 'Staff One', email: 's@example.com', phone: '13900000000' });
      // A password set by an administrator works at once and ends the old sessions.
      const before = client(ts, (await loginAs(ts, name, 'Staff_pw1')).token);
      await admin.ok('POST', '/permit/updateAccount', { id, password: clientPasswordHash('Staff_pw2') });
      expect(await before.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
      await loginAs(ts, name, 'Staff_pw2');
      await admin.ok('DELETE', `/permit/delAccount/${id}`);
      expect((await tryLogin(ts, name, 'Staff_pw2')).code).toBe(40002);
      expect(await admin.call('DELETE', `/permit/delAccount/${adminId}`)).toMatchObject({ code: 40001, message: 'You cannot delete your own account' });
      expect(await admin.call('POST', '/permit/addAccount', { account: 'admin', password: clientPasswordHash('x_pw1'), roleId })).toMatchObject({ code: 40001, message: 'Account Already Exists' });
      expect(await admin.call('POST', '/permit/addAccount', { account: 'no', password: clientPasswordHash('x_pw1'), roleId })).toMatchObject({ code: 40001, message: expect.stringContaining('Account must') });
    });

    it('never lets anyone grant more than they hold, or reach accounts and roles of other organisations', async () => {
      const manager = await accountWith(['home_list', 'role_list', 'admin_list']);
      expect(await manager.c.call('POST', '/permit/addRole', { name: unique('Sneaky '), permissionList: ['device_list'] })).toMatchObject({
        code: 40003,
        message: 'You cannot grant a permission you do not hold',
      });
      const adminRole = (await admin.ok<RoleView[]>('GET', '/permit/getAllRole')).find((r) => r.name === 'admin');
      expect(await manager.c.call('POST', '/permit/addAccount', { account: unique('boss'), password: clientPasswordHash('Boss_pw1'), roleId: adminRole?.id })).toMatchObject({
        code: 40003,
        message: 'You cannot assign this role',
      });
      expect(await manager.c.call('POST', '/permit/updateAccount', { id: adminId, nickname: 'pwned' })).toMatchObject({ code: 40003 });
      expect(await manager.c.call('DELETE', `/permit/delAccount/${adminId}`)).toMatchObject({ code: 40003 });
      expect(await manager.c.call('POST', '/permit/updateAccount', { id: manager.id, roleId: adminRole?.id })).toMatchObject({ code: 40003 });
      // A customer organisation sees its own role, not the platform's other roles nor their accounts.
      const ownerAccount = unique('owner');
      await createOrg(admin, { name: unique('Customer '), account: ownerAccount, password: 'Owner_pw1', roleId: manager.roleId });
      const owner = client(ts, (await loginAs(ts, ownerAccount, 'Owner_pw1')).token);
      const seen = await owner.ok<Page<RoleView>>('POST', '/permit/getRoleList', { pageSize: 100 });
      expect(seen.list.map((r) => r.id)).toEqual([manager.roleId]);
      expect(await owner.call('GET', `/permit/getPermitsByRole/${adminRole?.id}`)).toMatchObject(DENIED);
      expect(await owner.call('POST', '/permit/updateRole', { id: manager.roleId, name: 'mine now', permissionList: ['home_list'] })).toMatchObject({ code: 40003 });
      const accounts = await owner.ok<Page<AccountView>>('POST', '/permit/getAdminList', { pageSize: 100 });
      expect(accounts.list.map((a) => a.account)).toEqual([ownerAccount]);
      expect(await owner.call('POST', '/permit/updateAccount', { id: manager.id, nickname: 'x' })).toMatchObject(DENIED);
    });

    it('changes the own password: only the own id, then the new password logs in', async () => {
      const user = await accountWith(['home_list']);
      const other = await accountWith(['home_list']);
      const newHash = clientPasswordHash('Changed_pw2');
      expect(await user.c.call('POST', '/permit/update-self-password', { id: other.id, password: newHash })).toMatchObject(DENIED);
      expect(await user.c.call('POST', '/permit/update-self-password', { id: user.id, password: 'Changed_pw2' })).toMatchObject({ code: 40001, message: 'Password incorrect' });
      const before = await user.c.ok<{ updatePasswordLastTime: number }>('GET', '/home/getAccountDetail');
      const elsewhere = client(ts, (await loginAs(ts, user.account, 'User_pw1')).token);
      await new Promise((r) => setTimeout(r, 5));
      await user.c.ok('POST', '/permit/update-self-password', { id: user.id, password: newHash });
      const after = await user.c.ok<{ updatePasswordLastTime: number }>('GET', '/home/getAccountDetail');
      expect(after.updatePasswordLastTime).toBeGreaterThan(before.updatePasswordLastTime);
      // The session that changed it stays; another one opened with the old password does not.
      expect(await elsewhere.call('GET', '/home/getAccountDetail')).toMatchObject({ code: 3 });
      expect((await tryLogin(ts, user.account, 'User_pw1')).code).toBe(40002);
      await loginAs(ts, user.account, 'Changed_pw2');
    });

    it('checks the old password in the same call, for an account without org_list', async () => {
      const user = await accountWith(['home_list']);
      // The console's old check through /org/authorizationPassword is org_list-gated: this account cannot use it.
      expect(await user.c.call('POST', '/org/authorizationPassword', { password: clientPasswordHash('User_pw1') })).toMatchObject(DENIED);
      const newHash = clientPasswordHash('Changed_pw3');
      expect(await user.c.call('POST', '/permit/update-self-password', { id: user.id, password: newHash, oldPassword: clientPasswordHash('Wrong_pw1') })).toMatchObject({
        code: 40001,
        key: 'permit.oldPasswordWrong',
      });
      expect((await tryLogin(ts, user.account, 'User_pw1')).code).toBe(20000);
      await user.c.ok('POST', '/permit/update-self-password', { id: user.id, password: newHash, oldPassword: clientPasswordHash('User_pw1') });
      await loginAs(ts, user.account, 'Changed_pw3');
    });

    it('role_list and admin_list gate every one of their calls: refused without (40003), served with', async () => {
      const lacking = await accountWith(['home_list', 'org_list']);
      const roleKeeper = await accountWith(['home_list', 'role_list']);
      const accountKeeper = await accountWith(['home_list', 'admin_list']);
      const targetRole = await createRole(admin, unique('Target '), ['home_list']);
      const roleCalls = (roleId: number, name: string): [string, string, unknown?][] => [
        ['POST', '/permit/getRoleList', { pageNum: 1, pageSize: 10 }],
        ['GET', '/permit/getAllRole'],
        ['POST', '/permit/addRole', { name, summary: 's', permissionList: ['home_list'] }],
        ['POST', '/permit/updateRole', { id: roleId, name: `${name} renamed`, summary: 's', permissionList: ['home_list'] }],
        ['GET', `/permit/getPermitsByRole/${roleId}`],
        ['DELETE', `/permit/delRole/${roleId}`],
      ];
      for (const [method, url, body] of roleCalls(targetRole, unique('Matrix '))) {
        expect(await lacking.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject(DENIED);
        expect(await accountKeeper.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject(DENIED);
      }
      // The role keeper works on a role it created, so that it owns it.
      const ownRole = await createRole(roleKeeper.c, unique('Own '), ['home_list']);
      for (const [method, url, body] of roleCalls(ownRole, unique('Matrix '))) {
        expect(await roleKeeper.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject({ code: 20000 });
      }
      const victim = await createAccount(admin, unique('victim'), 'Victim_pw1', accountKeeper.roleId);
      const accountCalls = (id: number): [string, string, unknown?][] => [
        ['POST', '/permit/getAdminList', { pageNum: 1, pageSize: 10 }],
        ['POST', '/permit/addAccount', { account: unique('matrix'), password: clientPasswordHash('Matrix_pw1'), roleId: accountKeeper.roleId }],
        ['POST', '/permit/updateAccount', { id, nickname: 'renamed' }],
        ['DELETE', `/permit/delAccount/${id}`],
      ];
      for (const [method, url, body] of accountCalls(victim)) {
        expect(await lacking.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject(DENIED);
        expect(await roleKeeper.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject(DENIED);
      }
      for (const [method, url, body] of accountCalls(victim)) {
        expect(await accountKeeper.c.call(method as 'GET', url, body), `${method} ${url}`).toMatchObject({ code: 20000 });
      }
      // Session-only calls are open to every logged-in account.
      expect(await lacking.c.call('GET', '/permit/getAllPermits')).toMatchObject({ code: 20000 });
      expect(await client(ts, 'not-a-token').call('GET', '/permit/getAllPermits')).toMatchObject({ code: 3 });
    });
  });
}
