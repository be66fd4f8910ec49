import { ADMIN_ROLE, isPermission, permissionCatalogue } from '../../protocol/index.ts';
import { type Session, type SessionStore, tokenDigest } from '../auth/sessions.ts';
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

// What a caller is made of: the account, its role's name, its organisation and second factor, and the
// tree version. The same columns whether the account is known (a socket's session) or a token is (an API call).
const CALLER_COLUMNS = [
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
] as const;

// Every API call loads its caller: the reads are compiled once (server/db/prepared.ts), as building them
// cost more CPU than running them (docs/DECISIONS.md, API under 200 clients).
const callerRow = prepared((db, accountId: number) =>
  db
    .selectFrom('accounts')
    .innerJoin('roles', 'roles.id', 'accounts.role_id')
    .innerJoin('organisations', 'organisations.id', 'accounts.org_id')
    .leftJoin('account_totp', 'account_totp.account_id', 'accounts.id')
    .select(CALLER_COLUMNS)
    // The tree version comes with the account, so a request whose cached tree is current costs no extra read.
    .select((eb) => eb.selectFrom('org_tree_version').select('version').where('id', '=', 1).as('tree_version'))
    .where('accounts.id', '=', accountId),
);

/** The session stored under a token's digest with its caller's columns, in one statement (one round trip). */
const sessionCallerRow = prepared((db, tokenHash: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
    .innerJoin('roles', 'roles.id', 'accounts.role_id')
    .innerJoin('organisations', 'organisations.id', 'accounts.org_id')
    .leftJoin('account_totp', 'account_totp.account_id', 'accounts.id')
    .select(CALLER_COLUMNS)
    .select((eb) => eb.selectFrom('org_tree_version').select('version').where('id', '=', 1).as('tree_version'))
    .select(['sessions.token_hash', 'sessions.account_id as session_account_id', 'sessions.expires_at as session_expires_at'])
    .where('sessions.token_hash', '=', tokenHash),
);
const rolePermissions = prepared((db, roleId: number) => db.selectFrom('role_permissions').select('permission').where('role_id', '=', roleId));

type CallerRow = NonNullable<Awaited<ReturnType<typeof callerRow>>['rows'][number]>;

/**
 * The caller behind a token (an API call's X-Token or bearer), or undefined when the token is unknown,
 * expired or ended, or its account is gone or frozen. A login session and its caller are read in one
 * statement; anything else (an API token, a session whose account did not join) takes the two-step path,
 * `sessions.byDigest` then `loadCaller`, which decides exactly as before.
 */
export async function loadCallerByToken(db: Db, sessions: SessionStore, token: string): Promise<LoadedCaller | undefined> {
  const tokenHash = tokenDigest(token);
  const row = (await sessionCallerRow(db, tokenHash)).rows[0];
  if (!row) {
    const session = await sessions.byDigest(tokenHash);
    return session && loadCaller(db, session);
  }
  if (!sessions.live(row.session_expires_at)) return undefined;
  return callerOfRow(db, { tokenHash: row.token_hash, accountId: row.session_account_id, expiresAt: row.session_expires_at }, row);
}

/** Loads the caller behind a session, or undefined when its account is gone. */
export async function loadCaller(db: Db, session: Session): Promise<LoadedCaller | undefined> {
  const row = (await callerRow(db, session.accountId)).rows[0];
  return row && callerOfRow(db, session, row);
}

/** The caller of a session from its account's row: scope, freeze and permissions. */
async function callerOfRow(db: Db, session: Session, row: CallerRow): Promise<LoadedCaller | undefined> {
  // A frozen organisation's sessions stop working at once, as if they had expired.
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
