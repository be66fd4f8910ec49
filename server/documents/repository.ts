import type { CategoryAuthoringNode, CategoryNode, DocumentDetail, DocumentFormat, DocumentSource, DocumentSummary } from '../../protocol/api/documents.ts';
import { orgIdIn } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';

/**
 * Whose documents a caller sees and edits. Owners are organisations; `all` means every organisation (a
 * platform caller), so queries need no owner filter.
 */
export interface DocumentAudience {
  /** Owners whose categories and documents the caller reads. */
  readonly visible: { readonly all: boolean; readonly ids: ReadonlySet<number> };
  /** True when the caller may change what `orgId` owns. */
  editable(orgId: number | null): boolean;
}

/** A category as the routes check it: its place in the tree and its owner. */
export interface CategoryRow {
  readonly id: number;
  readonly parentId: number | null;
  readonly orgId: number | null;
}

/** Language values (platform-core section 4): 1 Chinese, 2 English. */
export const LANGUAGE_ZH = 1;

/** The text in the caller's language, falling back to the other language when that one is empty. */
export function inLanguage(language: number, zh: string, en: string): string {
  return language === LANGUAGE_ZH ? zh || en : en || zh;
}

export interface CategoryFields {
  readonly parentId: number | null;
  readonly nameZh: string;
  readonly nameEn: string;
}

export interface DocumentFields {
  readonly categoryId: number;
  readonly titleZh: string;
  readonly titleEn: string;
  /** Already sanitised HTML, made from the sources. */
  readonly contentZh: string;
  readonly contentEn: string;
  readonly format: DocumentFormat;
  /** What the author wrote, kept for editing. */
  readonly sourceZh: string;
  readonly sourceEn: string;
}

/** Document-library categories (two levels) and their documents, each in Chinese and English. */
export class DocumentRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  /** First-level categories with their second-level children, in creation order. */
  async tree(language: number, audience: DocumentAudience): Promise<CategoryNode[]> {
    const rows = await this.#categories(audience).select(['id', 'parent_id', 'name_zh', 'name_en']).orderBy('id').execute();
    const top = new Map<number, { id: number; name: string; children: { id: number; name: string }[] }>();
    for (const r of rows) if (r.parent_id === null) top.set(r.id, { id: r.id, name: inLanguage(language, r.name_zh, r.name_en), children: [] });
    for (const r of rows) {
      if (r.parent_id !== null) top.get(r.parent_id)?.children.push({ id: r.id, name: inLanguage(language, r.name_zh, r.name_en) });
    }
    return [...top.values()];
  }

  /** The tree with both names of every category, in creation order. */
  async authoringTree(audience: DocumentAudience): Promise<CategoryAuthoringNode[]> {
    const rows = await this.#categories(audience).select(['id', 'parent_id', 'name_zh', 'name_en', 'org_id']).orderBy('id').execute();
    type Child = { id: number; nameZh: string; nameEn: string; editable: boolean };
    const top = new Map<number, { id: number; nameZh: string; nameEn: string; editable: boolean; children: Child[] }>();
    for (const r of rows) if (r.parent_id === null) top.set(r.id, { id: r.id, nameZh: r.name_zh, nameEn: r.name_en, editable: audience.editable(r.org_id), children: [] });
    for (const r of rows) if (r.parent_id !== null) top.get(r.parent_id)?.children.push({ id: r.id, nameZh: r.name_zh, nameEn: r.name_en, editable: audience.editable(r.org_id) });
    return [...top.values()];
  }

  /** The document as its authors wrote it, when the caller may read it. */
  async source(id: number, audience: DocumentAudience): Promise<DocumentSource | undefined> {
    const r = await this.#documents(audience).selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) return undefined;
    // Documents written before sources were kept: their HTML is their source.
    const legacy = r.source_zh === '' && r.source_en === '';
    return {
      id: r.id,
      categoryId: r.category_id,
      titleZh: r.title_zh,
      titleEn: r.title_en,
      format: r.format === 'markdown' ? 'markdown' : 'html',
      sourceZh: legacy ? r.content_zh : r.source_zh,
      sourceEn: legacy ? r.content_en : r.source_en,
      updateTime: Number(r.update_time),
    };
  }

  /** The category when the caller may read it; undefined when it does not exist or is another's to see. */
  async category(id: number, audience: DocumentAudience): Promise<CategoryRow | undefined> {
    const row = await this.#categories(audience).select(['id', 'parent_id', 'org_id']).where('id', '=', id).executeTakeFirst();
    return row && { id: row.id, parentId: row.parent_id, orgId: row.org_id };
  }

  /** The owner of a document the caller may read; undefined when it does not exist or is another's to see. */
  async documentOwner(id: number, audience: DocumentAudience): Promise<{ orgId: number | null } | undefined> {
    const row = await this.#documents(audience).select('org_id').where('id', '=', id).executeTakeFirst();
    return row && { orgId: row.org_id };
  }


  async childCount(id: number): Promise<number> {
    const row = await this.db
      .selectFrom('document_categories')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('parent_id', '=', id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async documentCount(categoryId: number): Promise<number> {
    const row = await this.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('category_id', '=', categoryId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async createCategory(fields: CategoryFields, orgId: number, now: number): Promise<number> {
    const { id } = await this.db
      .insertInto('document_categories')
      .values({ parent_id: fields.parentId, name_zh: fields.nameZh, name_en: fields.nameEn, update_time: now, org_id: orgId })
      .returning('id')
      .executeTakeFirstOrThrow();
    return id;
  }

  async updateCategory(id: number, fields: CategoryFields, now: number): Promise<void> {
    await this.db
      .updateTable('document_categories')
      .set({ parent_id: fields.parentId, name_zh: fields.nameZh, name_en: fields.nameEn, update_time: now })
      .where('id', '=', id)
      .execute();
  }

  async deleteCategory(id: number): Promise<void> {
    await this.db.deleteFrom('document_categories').where('id', '=', id).execute();
  }

  /** The category's documents in the caller's language, in creation order. */
  async list(categoryId: number, language: number, audience: DocumentAudience): Promise<DocumentSummary[]> {
    const rows = await this.#documents(audience)
      .select(['id', 'title_zh', 'title_en', 'update_time', 'org_id'])
      .where('category_id', '=', categoryId)
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: r.id, title: inLanguage(language, r.title_zh, r.title_en), updateTime: Number(r.update_time), editable: audience.editable(r.org_id) }));
  }

  async detail(id: number, language: number, audience: DocumentAudience): Promise<DocumentDetail | undefined> {
    const r = await this.#documents(audience).selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) return undefined;
    // Title and content each fall back on their own, so a half-translated document still shows whole.
    return {
      id: r.id,
      title: inLanguage(language, r.title_zh, r.title_en),
      content: inLanguage(language, r.content_zh, r.content_en),
      categoryId: r.category_id,
      updateTime: Number(r.update_time),
    };
  }

  /** A document belongs to its category's organisation, so `orgId` is always the category's. */
  async createDocument(fields: DocumentFields, orgId: number, now: number): Promise<number> {
    const { id } = await this.db.insertInto('documents').values(toRow(fields, orgId, now)).returning('id').executeTakeFirstOrThrow();
    return id;
  }

  async updateDocument(id: number, fields: DocumentFields, orgId: number, now: number): Promise<void> {
    await this.db.updateTable('documents').set(toRow(fields, orgId, now)).where('id', '=', id).execute();
  }

  async deleteDocument(id: number): Promise<void> {
    await this.db.deleteFrom('documents').where('id', '=', id).execute();
  }

  // Reads go through these two, so nothing another organisation may not see is ever read by id alone.
  #categories(audience: DocumentAudience) {
    const q = this.db.selectFrom('document_categories');
    return audience.visible.all ? q : q.where(orgIdIn(this.db, 'org_id', audience.visible.ids));
  }

  #documents(audience: DocumentAudience) {
    const q = this.db.selectFrom('documents');
    return audience.visible.all ? q : q.where(orgIdIn(this.db, 'org_id', audience.visible.ids));
  }
}

function toRow(f: DocumentFields, orgId: number, now: number) {
  return {
    org_id: orgId,
    category_id: f.categoryId,
    title_zh: f.titleZh,
    title_en: f.titleEn,
    content_zh: f.contentZh,
    content_en: f.contentEn,
    format: f.format,
    source_zh: f.sourceZh,
    source_en: f.sourceEn,
    update_time: now,
  };
}
