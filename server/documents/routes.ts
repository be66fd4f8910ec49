import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdPath } from '../../protocol/api/common.ts';
import type { FastifyInstance } from 'fastify';
import { marked } from 'marked';
import { type Clock, englishOf, type FieldLabelKey, type PlainMessageKey } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import { currentOrgTree } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import { ApiCode, ApiError, ok } from '../http/envelope.ts';
import { hotAction } from '../http/rate-limit.ts';
import { callerOf } from '../http/guard.ts';
import { cleanText, idOf } from '../http/validation.ts';
import { sanitizeNotice } from '../notices/routes.ts';
import { type DocumentFormat, SaveCategoryBody, SaveDocumentBody } from '../../protocol/api/documents.ts';
import { type CategoryRow, type DocumentAudience, DocumentRepository } from './repository.ts';

/** Permission key of the document library (platform-core section 2, /document-library/index). */
export const DOCUMENT_PERMISSION = 'document_list';

export const DocumentMessage = englishOf({
  CategoryGone: 'document.categoryGone',
  DocumentGone: 'document.documentGone',
  NameRequired: 'document.nameRequired',
  TitleRequired: 'document.titleRequired',
  TooDeep: 'document.tooDeep',
  NotSecondLevel: 'document.notSecondLevel',
  HasChildren: 'document.hasChildren',
  HasDocuments: 'document.hasDocuments',
  OtherOwner: 'document.otherOwner',
});

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
function bilingual(zh: string, en: string, labels: { zh: FieldLabelKey; en: FieldLabelKey }, missing: PlainMessageKey): { zh: string; en: string } {
  const both = { zh: cleanText(zh, labels.zh, false), en: cleanText(en, labels.en, false) };
  if (!both.zh && !both.en) throw new ApiError(ApiCode.BadRequest, missing);
  return both;
}

/**
 * Whose documents a caller sees and edits. Every category and document belongs to an organisation; the
 * platform's belong to the root. A caller reads what its own organisation, the organisations above it
 * (the platform among them) and those below it own, and edits, with the authoring key, only what its
 * organisation or one below it owns: so platform documents only the platform, and never a sibling's.
 */
export async function documentAudience(db: Db, caller: Caller): Promise<DocumentAudience> {
  const canAuthor = caller.permissions.has(DOCUMENT_MANAGE_PERMISSION);
  const editable = (orgId: number | null) => canAuthor && orgId !== null && caller.scope.has(orgId);
  if (caller.scopeCoversAll) return { visible: { all: true, ids: caller.scope }, editable };
  const { tree } = await currentOrgTree(db);
  const ids = new Set(caller.scope);
  // Bounded by the number of organisations, so a corrupt cycle cannot loop for ever.
  for (let id = tree.parentOf.get(caller.orgId), steps = 0; id !== null && id !== undefined && steps <= tree.parentOf.size; steps++) {
    ids.add(id);
    id = tree.parentOf.get(id);
  }
  return { visible: { all: false, ids }, editable };
}

/** The owner of something the caller may change; refuses what it may read but does not own (40003, as a missing key would be). */
function ownerToEdit(audience: DocumentAudience, orgId: number | null): number {
  if (orgId === null || !audience.editable(orgId)) throw new ApiError(ApiCode.Forbidden, 'common.permissionDenied');
  return orgId;
}

/** Document library (platform-core section 7, /archives-*): reading in the caller's language, authoring under its own key. */
export async function documentRoutes(app: FastifyInstance, deps: DocumentRouteDeps): Promise<void> {
  const config = { permission: DOCUMENT_PERMISSION };
  const manage = { permission: DOCUMENT_MANAGE_PERMISSION, ...hotAction };
  const { clock } = deps;
  const docs = new DocumentRepository(deps.db);
  const params = { params: IdPath };
  // Bodies typed from the contract's schemas (protocol/api/documents.ts) through the type provider.
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  const audienceOf = (req: Parameters<typeof callerOf>[0]) => documentAudience(deps.db, callerOf(req));
  /** A category the caller may read (40004 otherwise, as if it did not exist). */
  const readableCategory = async (id: number, audience: DocumentAudience): Promise<CategoryRow> => {
    const found = await docs.category(id, audience);
    if (!found) throw new ApiError(ApiCode.NotFound, 'document.categoryGone');
    return found;
  };
  /** A category the caller may change: readable (40004) and owned by its organisation or one below (40003). */
  const editableCategory = async (id: number, audience: DocumentAudience): Promise<CategoryRow & { orgId: number }> => {
    const found = await readableCategory(id, audience);
    return { ...found, orgId: ownerToEdit(audience, found.orgId) };
  };
  const editableDocument = async (id: number, audience: DocumentAudience): Promise<void> => {
    const found = await docs.documentOwner(id, audience);
    if (!found) throw new ApiError(ApiCode.NotFound, 'document.documentGone');
    ownerToEdit(audience, found.orgId);
  };

  app.get('/archives-category/first-and-second-tree', { config }, async (req) => ok(await docs.tree(callerOf(req).language, await audienceOf(req))));

  api.get('/archives-document/list/:id', { config, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    const audience = await audienceOf(req);
    await readableCategory(id, audience);
    return ok(await docs.list(id, callerOf(req).language, audience));
  });

  api.get('/archives-document/detail/:id', { config, schema: params }, async (req) => {
    const found = await docs.detail(idOf(req.params.id), callerOf(req).language, await audienceOf(req));
    if (!found) throw new ApiError(ApiCode.NotFound, 'document.documentGone');
    return ok(found);
  });

  const read = { permission: DOCUMENT_MANAGE_PERMISSION };
  app.get('/archives-category/manage-tree', { config: read }, async (req) => ok(await docs.authoringTree(await audienceOf(req))));

  api.get('/archives-document/source/:id', { config: read, schema: params }, async (req) => {
    const found = await docs.source(idOf(req.params.id), await audienceOf(req));
    if (!found) throw new ApiError(ApiCode.NotFound, 'document.documentGone');
    return ok(found);
  });

  api.post('/archives-category/save', { config: manage, schema: { body: SaveCategoryBody } }, async (req) => {
    const body = req.body;
    const audience = await audienceOf(req);
    const names = bilingual(body.nameZh, body.nameEn, { zh: 'field.nameZh', en: 'field.nameEn' }, 'document.nameRequired');
    const parentId = body.parentId ?? null;
    // A subcategory belongs to its parent's organisation, so adding one is changing the parent.
    const parent = parentId === null ? undefined : await editableCategory(parentId, audience);
    if (parent && (parent.parentId !== null || parentId === body.id)) throw new ApiError(ApiCode.BadRequest, 'document.tooDeep');
    const fields = { parentId, nameZh: names.zh, nameEn: names.en };
    if (body.id === undefined) return ok({ id: await docs.createCategory(fields, parent ? parent.orgId : callerOf(req).orgId, clock.now()) });
    const current = await editableCategory(body.id, audience);
    // Moving a category keeps one owner per tree: its documents stay its organisation's.
    if (parent && parent.orgId !== current.orgId) throw new ApiError(ApiCode.BadRequest, 'document.otherOwner');
    // Moving a category must keep the tree at two levels and every document in a second-level category.
    if (parentId !== null && (await docs.childCount(body.id)) > 0) throw new ApiError(ApiCode.BadRequest, 'document.tooDeep');
    if (parentId === null && (await docs.documentCount(body.id)) > 0) throw new ApiError(ApiCode.BadRequest, 'document.hasDocuments');
    await docs.updateCategory(body.id, fields, clock.now());
    return ok({ id: body.id });
  });

  api.delete('/archives-category/del/:id', { config: manage, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    await editableCategory(id, await audienceOf(req));
    if ((await docs.childCount(id)) > 0) throw new ApiError(ApiCode.BadRequest, 'document.hasChildren');
    if ((await docs.documentCount(id)) > 0) throw new ApiError(ApiCode.BadRequest, 'document.hasDocuments');
    await docs.deleteCategory(id);
    return ok(null);
  });

  api.post('/archives-document/save', { config: manage, schema: { body: SaveDocumentBody } }, async (req) => {
    const body = req.body;
    const audience = await audienceOf(req);
    const titles = bilingual(body.titleZh, body.titleEn, { zh: 'field.titleZh', en: 'field.titleEn' }, 'document.titleRequired');
    const format = body.format ?? 'html';
    if (body.id !== undefined) await editableDocument(body.id, audience);
    const category = await editableCategory(body.categoryId, audience);
    if (category.parentId === null) throw new ApiError(ApiCode.BadRequest, 'document.notSecondLevel');
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
    // A document is its category's organisation's, also after a move between two categories the caller owns.
    if (body.id === undefined) return ok({ id: await docs.createDocument(fields, category.orgId, clock.now()) });
    await docs.updateDocument(body.id, fields, category.orgId, clock.now());
    return ok({ id: body.id });
  });

  api.delete('/archives-document/del/:id', { config: manage, schema: params }, async (req) => {
    const id = idOf(req.params.id);
    await editableDocument(id, await audienceOf(req));
    await docs.deleteDocument(id);
    return ok(null);
  });
}
