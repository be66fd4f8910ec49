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
