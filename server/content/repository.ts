// Queries of content items (server/content/routes.ts checks and answers with them): the per-area lists, folder
// deletion, app versions, and whether a stored blob is still used.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { ContentRow } from './items.ts';
import type { ContentItemTable } from './tables.ts';
import type { ContentListBody } from '../../protocol/api/content.ts';

/** The list's filters: the contract's ContentListBody minus paging (parentId, files only: the folder listed; undefined: the top). */
export type ContentFilter = { readonly [K in 'orgId' | 'name' | 'type' | 'parentId']?: ContentListBody[K] | undefined };

/** Firmware, apps, files and folders, logos and wallpapers (`kind`). */
export class ContentRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * A page of one kind's items in `scope`. Files list one folder's entries, folders first; apps list their
   * newest version per package (older ones are the history).
   */
  async page(kind: string, scope: readonly number[], filter: ContentFilter, pageNum: number, pageSize: number): Promise<{ total: number; rows: ContentRow[] }> {
    let q = this.#db.selectFrom('content_items as c').where('c.kind', '=', kind).where('c.org_id', 'in', scope);
    if (filter.orgId) q = q.where('c.org_id', '=', filter.orgId);
    if (filter.name) q = q.where('c.name', 'like', `%${filter.name.replace(/[%_\\]/g, '')}%`);
    if (filter.type) q = q.where('c.item_type', '=', filter.type);
    if (kind === 'file') q = filter.parentId ? q.where('c.parent_id', '=', filter.parentId) : q.where('c.parent_id', 'is', null);
    if (kind === 'app') {
      q = q.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('content_items as n')
              .select('n.id')
              .where('n.kind', '=', 'app')
              .whereRef('n.org_id', '=', 'c.org_id')
              .whereRef('n.package_name', '=', 'c.package_name')
              .whereRef('n.version_code', '>', 'c.version_code'),
          ),
        ),
      );
    }
    const [{ total }, rows] = await Promise.all([
      q.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
      q.selectAll('c').orderBy('c.item_type', kind === 'file' ? 'desc' : 'asc').orderBy('c.id', 'desc').limit(pageSize).offset((pageNum - 1) * pageSize).execute(),
    ]);
    return { total: Number(total), rows };
  }

  byIds(kind: string, ids: readonly number[]): Promise<ContentRow[]> {
    return this.#db.selectFrom('content_items').selectAll().where('kind', '=', kind).where('id', 'in', ids).execute();
  }

  /** The entries of the folders `parentIds`. */
  children(kind: string, parentIds: readonly number[]): Promise<ContentRow[]> {
    return this.#db.selectFrom('content_items').selectAll().where('kind', '=', kind).where('parent_id', 'in', parentIds).execute();
  }

  async deleteIds(ids: readonly number[]): Promise<void> {
    await this.#db.deleteFrom('content_items').where('id', 'in', ids).execute();
  }

  /** Whether any item still holds the blob `sha256`. */
  async blobInUse(sha256: string): Promise<boolean> {
    return (await this.#db.selectFrom('content_items').select('id').where('sha256', '=', sha256).executeTakeFirst()) !== undefined;
  }

  insert(values: Insertable<ContentItemTable>): Promise<ContentRow> {
    return this.#db.insertInto('content_items').values(values).returningAll().executeTakeFirstOrThrow();
  }

  async update(id: number, values: Updateable<ContentItemTable>): Promise<void> {
    await this.#db.updateTable('content_items').set(values).where('id', '=', id).execute();
  }

  /** The highest version code an organisation holds of a package. */
  async newestVersionCode(orgId: number, packageName: string): Promise<number> {
    const newest = await this.#db.selectFrom('content_items').select((eb) => eb.fn.max('version_code').as('v')).where('kind', '=', 'app').where('org_id', '=', orgId).where('package_name', '=', packageName).executeTakeFirstOrThrow();
    return Number(newest.v);
  }

  /** Every version an organisation holds of a package, newest first. */
  history(orgId: number, packageName: string): Promise<ContentRow[]> {
    return this.#db.selectFrom('content_items').selectAll().where('kind', '=', 'app').where('org_id', '=', orgId).where('package_name', '=', packageName).orderBy('version_code', 'desc').execute();
  }
}
