import type { Db } from '../db/database.ts';

/** Ids of `rootId` and every organisation below it. */
export async function orgSubtree(db: Db, rootId: number): Promise<number[]> {
  const rows = await db.selectFrom('organisations').select(['id', 'parent_id']).execute();
  const children = new Map<number, number[]>();
  for (const row of rows) {
    if (row.parent_id === null) continue;
    const list = children.get(row.parent_id) ?? [];
    list.push(row.id);
    children.set(row.parent_id, list);
  }
  const out: number[] = [];
  const queue = [rootId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    out.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return out;
}

/** Freeze state 2 (platform-core section 4): a frozen organisation and everything below it may not log in. */
export const FROZEN = 2;

/** True when `orgId` or one of its ancestors is frozen. */
export async function isFrozen(db: Db, orgId: number): Promise<boolean> {
  const rows = await db.selectFrom('organisations').select(['id', 'parent_id', 'freeze_state']).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Bounded by the number of organisations, so a corrupt cycle cannot loop for ever.
  for (let id: number | null = orgId, steps = 0; id !== null && steps <= rows.length; steps++) {
    const row = byId.get(id);
    if (!row) return false;
    if (row.freeze_state === FROZEN) return true;
    id = row.parent_id;
  }
  return false;
}
