import { type Expression, PostgresAdapter, type SqlBool, sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';

/** Freeze state 2 (platform-core section 4): a frozen organisation and everything below it may not log in. */
export const FROZEN = 2;

/** The organisation tree's shape, read in one query so a request's scope and freeze checks share it. */
export interface OrgTree {
  readonly parentOf: ReadonlyMap<number, number | null>;
  readonly childrenOf: ReadonlyMap<number, readonly number[]>;
  readonly frozen: ReadonlySet<number>;
}

/** Reads the tree (id, parent, freeze state of every organisation) straight from the database. */
export async function loadOrgTree(db: Db): Promise<OrgTree> {
  const rows = await db.selectFrom('organisations').select(['id', 'parent_id', 'freeze_state']).execute();
  const parentOf = new Map<number, number | null>();
  const childrenOf = new Map<number, number[]>();
  const frozen = new Set<number>();
  for (const row of rows) {
    parentOf.set(row.id, row.parent_id);
    if (row.freeze_state === FROZEN) frozen.add(row.id);
    if (row.parent_id === null) continue;
    const siblings = childrenOf.get(row.parent_id);
    if (siblings) siblings.push(row.id);
    else childrenOf.set(row.parent_id, [row.id]);
  }
  return { parentOf, childrenOf, frozen };
}

/** Ids of `rootId` and every organisation below it. */
export function subtreeOf(tree: OrgTree, rootId: number): number[] {
  // Breadth-first with an index instead of shift(), which is linear per call on large queues.
  const out = [rootId];
  for (let i = 0; i < out.length; i++) {
    for (const child of tree.childrenOf.get(out[i] as number) ?? []) out.push(child);
  }
  return out;
}

/** True when `orgId` or one of its ancestors is frozen. */
export function frozenIn(tree: OrgTree, orgId: number): boolean {
  // Bounded by the number of organisations, so a corrupt cycle cannot loop for ever.
  for (let id: number | null | undefined = orgId, steps = 0; id !== null && id !== undefined && steps <= tree.parentOf.size; steps++) {
    if (tree.frozen.has(id)) return true;
    id = tree.parentOf.get(id);
  }
  return false;
}

/**
 * A tree as cached by a node, tagged with the database's tree version (migration 0006: triggers bump it on
 * every insert, delete, re-parenting or freeze, whoever writes). Subtree sets are computed once per version
 * and shared by every request of that version, so they must never be mutated.
 */
export class OrgTreeSnapshot {
  readonly version: number;
  readonly tree: OrgTree;
  readonly #scopes = new Map<number, ReadonlySet<number>>();
  #memoised = 0;

  constructor(version: number, tree: OrgTree) {
    this.version = version;
    this.tree = tree;
  }

  /** `rootId` and every organisation below it, as a shared read-only set. */
  scopeOf(rootId: number): ReadonlySet<number> {
    const known = this.#scopes.get(rootId);
    if (known) return known;
    const scope: ReadonlySet<number> = new Set(subtreeOf(this.tree, rootId));
    // Memory stays bounded however many distinct callers there are: past the budget, sets are not kept.
    if (this.#memoised + scope.size <= SCOPE_MEMO_BUDGET) {
      this.#scopes.set(rootId, scope);
      this.#memoised += scope.size;
    }
    return scope;
  }

  /** True when `scope` holds every organisation of the tree (a platform caller at the root). */
  coversAll(scope: ReadonlySet<number>): boolean {
    return scope.size === this.tree.parentOf.size;
  }

  frozen(orgId: number): boolean {
    return frozenIn(this.tree, orgId);
  }
}

// Ids kept in memoised subtree sets per snapshot (about 40 bytes each).
const SCOPE_MEMO_BUDGET = 500_000;

interface TreeCache {
  current?: OrgTreeSnapshot;
  /** A load in flight, shared by the requests that found the cache stale at the same time. */
  loading?: Promise<OrgTreeSnapshot>;
}

const caches = new WeakMap<Db, TreeCache>();

/** The database's current organisation-tree version (one primary-key read). */
export async function orgTreeVersion(db: Db): Promise<number> {
  const row = (await treeVersion(db)).rows[0];
  if (!row) throw new Error('org_tree_version has no row');
  return Number(row.version);
}

// Read by most requests that list organisations or devices: compiled once (server/db/prepared.ts).
const treeVersion = prepared((db) => db.selectFrom('org_tree_version').select('version').where('id', '=', 1));

/**
 * The organisation tree at least as new as `version` (read now when not given). Reloads only when the
 * database's version moved past the cached one, so a change by any writer, on any node sharing the
 * database, is seen by the next request.
 */
export async function currentOrgTree(db: Db, version?: number): Promise<OrgTreeSnapshot> {
  const wanted = version ?? (await orgTreeVersion(db));
  let cache = caches.get(db);
  if (!cache) {
    cache = {};
    caches.set(db, cache);
  }
  if (cache.current && cache.current.version >= wanted) return cache.current;
  const entry = cache;
  const loading = (entry.loading ??= reload(db).finally(() => {
    if (entry.loading === loading) entry.loading = undefined;
  }));
  const loaded = await loading;
  // A load that started before this version was written may be too old for this request: read again.
  return loaded.version >= wanted ? loaded : currentOrgTree(db, wanted);
}

async function reload(db: Db): Promise<OrgTreeSnapshot> {
  // The version is read before the tree: the tree is then at least as new as its tag, never older, and a
  // write in between only makes the next request reload once more.
  const version = await orgTreeVersion(db);
  const snapshot = new OrgTreeSnapshot(version, await loadOrgTree(db));
  const cache = caches.get(db);
  if (cache && (!cache.current || cache.current.version < version)) cache.current = snapshot;
  return snapshot;
}

/** Ids of `rootId` and every organisation below it. */
export async function orgSubtree(db: Db, rootId: number): Promise<number[]> {
  return [...(await currentOrgTree(db)).scopeOf(rootId)];
}

/** True when `orgId` or one of its ancestors is frozen. */
export async function isFrozen(db: Db, orgId: number): Promise<boolean> {
  return (await currentOrgTree(db)).frozen(orgId);
}

/**
 * `column IN ids` with the ids bound as one parameter (a PostgreSQL array, a JSON array on SQLite), so a
 * scope of thousands of organisations neither hits the databases' parameter limits nor costs a parameter
 * each to bind and plan.
 */
export function orgIdIn(db: Db, column: string, ids: Iterable<number>): Expression<SqlBool> {
  return orgIdInParameter(db, column, orgIdsParameter(db, ids));
}

/** The one parameter `orgIdIn` binds for `ids`: what a prepared query (server/db/prepared.ts) is run with. */
export function orgIdsParameter(db: Db, ids: Iterable<number>): OrgIdsParameter {
  const list = [...ids];
  return isPostgres(db) ? list : JSON.stringify(list);
}

/** A list of organisation ids as one bound parameter: an array on PostgreSQL, its JSON text on SQLite. */
export type OrgIdsParameter = number[] | string;

/** `column IN` the ids bound as `parameter` (from `orgIdsParameter`, or a prepared query's placeholder). */
export function orgIdInParameter(db: Db, column: string, parameter: OrgIdsParameter): Expression<SqlBool> {
  if (isPostgres(db)) return sql<SqlBool>`${sql.ref(column)} = any(${parameter}::integer[])`;
  return sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${parameter}))`;
}

const isPostgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
