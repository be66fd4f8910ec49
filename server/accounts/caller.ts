import { ADMIN_ROLE, isPermission, permissionCatalogue } from '../../protocol/index.ts';
import type { Session } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { currentOrgTree, type OrgTree } from './org-scope.ts';

/** Who is making a call: the account, its role's permissions and the organisations it may reach. */
export interface Caller {
  readonly session: Session;
  readonly accountId: number;
  readonly account: string;
  readonly nickname: string;
  readonly orgId: number;
  readonly orgName: string;
  readonly role: string;
  readonly permissions: ReadonlySet<string>;
  /** The caller's organisation and every organisation below it. */
  readonly scope: ReadonlySet<number>;
  /** True when the scope is every organisation there is, so queries need no organisation filter. */
  readonly scopeCoversAll: boolean;
  /**
   * The organisation-tree version the scope was taken from: a query later in the same request asks for the
   * cached tree at least this new (currentOrgTree) instead of reading the version again.
   */
  readonly treeVersion?: number;
  readonly updatePasswordLastTime: number;
  readonly expireTime: number | null;
  readonly language: number;
  readonly customerType: number;
  /** Its organisation requires a second factor it has not set up: it holds no key until it does (issue 23). */
  readonly totpSetupRequired?: boolean;
}

/** A caller as loaded, with what tells which changes touch its rights (server/gateway/console-rights.ts). */
export interface LoadedCaller extends Caller {
  readonly roleId: number;
  /** The caller's organisation and its ancestors up to the root: freezing any of them ends its sessions. */
  readonly orgPath: readonly number[];
}

// Every API call loads its caller: both reads are compiled once (server/db/prepared.ts), as building them
// cost more CPU than running them (docs/DECISIONS.md, API under 200 clients).
const callerRow = prepared((db, accountId: number) =>
  db
    .selectFrom('accounts')
    .innerJoin('roles', 'roles.id', 'accounts.role_id')
    .innerJoin('organisations', 'organisations.id', 'accounts.org_id')
    .leftJoin('account_totp', 'account_totp.account_id', 'accounts.id')
    .select([
      'accounts.id',
      'accounts.account',
      'accounts.nickname',
      'accounts.org_id',
      'accounts.role_id',
      'accounts.update_password_last_time',
      'accounts.expire_time',
      'accounts.language',
      'accounts.customer_type',
      'roles.name as role',
      'organisations.name as org_name',
      'organisations.require_totp',
      'account_totp.enabled_at as totp_enabled_at',
      // The tree version comes with the account, so a request whose cached tree is current costs no extra read.
      (eb) => eb.selectFrom('org_tree_version').select('version').where('id', '=', 1).as('tree_version'),
    ])
    .where('accounts.id', '=', accountId),
);
const rolePermissions = prepared((db, roleId: number) => db.selectFrom('role_permissions').select('permission').where('role_id', '=', roleId));

/** Loads the caller behind a session, or undefined when its account is gone. */
export async function loadCaller(db: Db, session: Session): Promise<LoadedCaller | undefined> {
  const row = (await callerRow(db, session.accountId)).rows[0];
  // A frozen organisation's sessions stop working at once, as if they had expired.
  if (!row) return undefined;
  const tree = await currentOrgTree(db, Number(row.tree_version ?? 0));
  if (tree.frozen(row.org_id)) return undefined;
  const scope = tree.scopeOf(row.org_id);
  let permissions: string[];
  if (row.role === ADMIN_ROLE) {
    permissions = permissionCatalogue.map((e) => e.key);
  } else {
    const granted = (await rolePermissions(db, row.role_id)).rows;
    permissions = granted.map((g) => g.permission).filter(isPermission);
  }
  // An API token uses only its own keys that the account still holds now (a key the account loses, the token loses).
  const tokenKeys = session.apiToken?.keys;
  if (tokenKeys) permissions = permissions.filter((key) => tokenKeys.has(key));
  // An organisation that requires a second factor gives an account without one no key: it may only set one up.
  const totpSetupRequired = row.require_totp === 1 && (row.totp_enabled_at === null || row.totp_enabled_at === undefined);
  if (totpSetupRequired) permissions = [];
  return {
    session,
    accountId: row.id,
    account: row.account,
    nickname: row.nickname,
    orgId: row.org_id,
    orgName: row.org_name,
    roleId: row.role_id,
    role: row.role,
    orgPath: pathToRoot(tree.tree, row.org_id),
    permissions: new Set(permissions),
    scope,
    scopeCoversAll: tree.coversAll(scope),
    treeVersion: tree.version,
    updatePasswordLastTime: row.update_password_last_time,
    expireTime: row.expire_time,
    language: row.language,
    customerType: row.customer_type,
    ...(totpSetupRequired ? { totpSetupRequired: true } : {}),
  };
}

/** `orgId` and its ancestors, nearest first; bounded by the tree's size, so a corrupt cycle cannot loop. */
export function pathToRoot(tree: OrgTree, orgId: number): number[] {
  const out: number[] = [];
  for (let id: number | null | undefined = orgId; id !== null && id !== undefined && out.length <= tree.parentOf.size; id = tree.parentOf.get(id)) out.push(id);
  return out;
}
