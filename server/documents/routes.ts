import type { FastifyInstance } from 'fastify';
import { marked } from 'marked';
import type { Clock } from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { hotAction } from '../http/rate-limit.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf, idParams } from '../http/validation.ts';
import { sanitizeNotice } from '../notices/routes.ts';
import type { DocumentFormat } from '../../protocol/api/documents.ts';
import { DocumentRepository } from './repository.ts';
import * as s from './schemas.ts';

/** Permission key of the document library (platform-core section 2, /document-library/index). */
export const DOCUMENT_PERMISSION = 'document_list';

export const DocumentMessage = {
  CategoryGone: 'The category no longer exists',
  DocumentGone: 'The document no longer exists',
  NameRequired: 'Name cannot be empty!',
  TitleRequired: 'Title cannot be empty!',
  TooDeep: 'Categories have at most two levels',
  NotSecondLevel: 'Documents belong to a second-level category',
  HasChildren: 'The category still has subcategories',
  HasDocuments: 'The category still has documents',
} as const;

export interface DocumentRouteDeps {
  readonly db: Db;
  readonly clock: Clock;
}

/** Key of document-library authoring (catalogued, ours: the spec shows only the reader side). */
export const DOCUMENT_MANAGE_PERMISSION = 'document_manage';

/**
 * Sanitised HTML from what an author wrote: Markdown is rendered first (marked, GitHub flavour), then the
 * result goes through the same sanitiser as HTML input, so neither format can carry script.
 */
export function renderDocument(format: DocumentFormat, source: string): string {
  const html = format === 'markdown' ? marked.parse(source, { async: false, gfm: true }) : source;
  return sanitizeNotice(html);
}

/** Both language versions of a name or title, trimmed; at least one must be given. */
function bilingual(zh: string, en: string, label: string, missing: string): { zh: string; en: string } {
  const both = { zh: cleanText(zh, `${label} (Chinese)`, false), en: cleanText(en, `${label} (English)`, false) };
  if (!both.zh && !both.en) throw new ApiError(ApiCode.BadRequest, missing);
  return both;
}

/** Document library (platform-core section 7, /archives-*): reading in the caller's language, authoring under its own key. */
export function registerDocumentRoutes(app: FastifyInstance, deps: DocumentRouteDeps): void {
  const config = { permission: DOCUMENT_PERMISSION };
  const manage = { permission: DOCUMENT_MANAGE_PERMISSION, ...hotAction };
  const { clock } = deps;
  const docs = new DocumentRepository(deps.db);
  const params = { params: idParams('id') };

  app.get('/archives-category/first-and-second-tree', { config }, async (req) => ok(await docs.tree(callerOf(req).language)));

  app.get<{ Params: { id: string } }>('/archives-document/list/:id', { config, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    if (!(await docs.category(id))) throw new ApiError(ApiCode.NotFound, DocumentMessage.CategoryGone);
    return ok(await docs.list(id, callerOf(req).language));
  });

  app.get<{ Params: { id: string } }>('/archives-document/detail/:id', { config, schema: params }, async (req) => {
    const found = await docs.detail(idOf(req.params.id), callerOf(req).language);
    if (!found) throw new ApiError(ApiCode.NotFound, DocumentMessage.DocumentGone);
    return ok(found);
  });

  const read = { permission: DOCUMENT_MANAGE_PERMISSION };
  app.get('/archives-category/manage-tree', { config: read }, async () => ok(await docs.authoringTree()));

  app.get<{ Params: { id: string } }>('/archives-document/source/:id', { config: read, schema: params }, async (req) => {
    const found = await docs.source(idOf(req.params.id));
    if (!found) throw new ApiError(ApiCode.NotFound, DocumentMessage.DocumentGone);
    return ok(found);
  });

  app.post<{ Body: s.SaveCategoryBody }>('/archives-category/save', { config: manage, schema: { body: s.saveCategoryBody } }, async (req) => {
    const body = req.body;
    const names = bilingual(body.nameZh, body.nameEn, 'Name', DocumentMessage.NameRequired);
    const parentId = body.parentId ?? null;
    if (parentId !== null) {
      const parent = await docs.category(parentId);
      if (!parent) throw new ApiError(ApiCode.NotFound, DocumentMessage.CategoryGone);
      if (parent.parentId !== null || parentId === body.id) throw new ApiError(ApiCode.BadRequest, DocumentMessage.TooDeep);
    }
    const fields = { parentId, nameZh: names.zh, nameEn: names.en };
    if (body.id === undefined) return ok({ id: await docs.createCategory(fields, clock.now()) });
    if (!(await docs.category(body.id))) throw new ApiError(ApiCode.NotFound, DocumentMessage.CategoryGone);
    // Moving a category must keep the tree at two levels and every document in a second-level category.
    if (parentId !== null && (await docs.childCount(body.id)) > 0) throw new ApiError(ApiCode.BadRequest, DocumentMessage.TooDeep);
    if (parentId === null && (await docs.documentCount(body.id)) > 0) throw new ApiError(ApiCode.BadRequest, DocumentMessage.HasDocuments);
    await docs.updateCategory(body.id, fields, clock.now());
    return ok({ id: body.id });
  });

  app.delete<{ Params: { id: string } }>('/archives-category/del/:id', { config: manage, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    if (!(await docs.category(id))) throw new ApiError(ApiCode.NotFound, DocumentMessage.CategoryGone);
    if ((await docs.childCount(id)) > 0) throw new ApiError(ApiCode.BadRequest, DocumentMessage.HasChildren);
    if ((await docs.documentCount(id)) > 0) throw new ApiError(ApiCode.BadRequest, DocumentMessage.HasDocuments);
    await docs.deleteCategory(id);
    return ok(null);
  });

  app.post<{ Body: s.SaveDocumentBody }>('/archives-document/save', { config: manage, schema: { body: s.saveDocumentBody } }, async (req) => {
    const body = req.body;
    const titles = bilingual(body.titleZh, body.titleEn, 'Title', DocumentMessage.TitleRequired);
    const format = body.format ?? 'html';
    const category = await docs.category(body.categoryId);
    if (!category) throw new ApiError(ApiCode.NotFound, DocumentMessage.CategoryGone);
    if (category.parentId === null) throw new ApiError(ApiCode.BadRequest, DocumentMessage.NotSecondLevel);
    const fields = {
      categoryId: body.categoryId,
      titleZh: titles.zh,
      titleEn: titles.en,
      contentZh: renderDocument(format, body.contentZh),
      contentEn: renderDocument(format, body.contentEn),
      format,
      sourceZh: body.contentZh,
      sourceEn: body.contentEn,
    };
    if (body.id === undefined) return ok({ id: await docs.createDocument(fields, clock.now()) });
    if (!(await docs.documentExists(body.id))) throw new ApiError(ApiCode.NotFound, DocumentMessage.DocumentGone);
    await docs.updateDocument(body.id, fields, clock.now());
    return ok({ id: body.id });
  });

  app.delete<{ Params: { id: string } }>('/archives-document/del/:id', { config: manage, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    if (!(await docs.documentExists(id))) throw new ApiError(ApiCode.NotFound, DocumentMessage.DocumentGone);
    await docs.deleteDocument(id);
    return ok(null);
  });
}
