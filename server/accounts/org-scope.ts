import type { Db } from '../db/database.ts';

/** Freeze state 2 (platform-core section 4): a frozen organisation and everything below it may not log in. */
export const FROZEN = 2;

/** The organisation tree's shape, read in one query so a request's scope and freeze checks share it. */
export interface OrgTree {
  readonly parentOf: ReadonlyMap<number, number | null>;
  readonly childrenOf: ReadonlyMap<number, readonly number[]>;
  readonly frozen: ReadonlySet<number>;
}

/** Reads the tree (id, parent, freeze state of every organisation). */
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

/** Ids of `rootId` and every organisation below it (one query). */
export async function orgSubtree(db: Db, rootId: number): Promise<number[]> {
  return subtreeOf(await loadOrgTree(db), rootId);
}

/** True when `orgId` or one of its ancestors is frozen (one query). */
export async function isFrozen(db: Db, orgId: number): Promise<boolean> {
  return frozenIn(await loadOrgTree(db), orgId);
}
