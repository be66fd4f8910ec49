import type { CategoryAuthoringNode, CategoryNode, DocumentDetail, DocumentSource, DocumentSummary, SaveCategoryBody, SaveDocumentBody, SavedId } from '../../protocol/api/documents.ts';
import { request } from './request.ts';

/** Bodies of the save calls (protocol/api/documents.ts). */
export type CategoryInput = SaveCategoryBody;
export type DocumentInput = SaveDocumentBody;

/** Document library: reading (platform-core section 7) and authoring (ours). */
export const documentApi = {
  tree: () => request<CategoryNode[]>({ method: 'GET', url: '/archives-category/first-and-second-tree' }),
  list: (categoryId: number) => request<DocumentSummary[]>({ method: 'GET', url: `/archives-document/list/${categoryId}` }),
  detail: (id: number) => request<DocumentDetail>({ method: 'GET', url: `/archives-document/detail/${id}` }),
  manageTree: () => request<CategoryAuthoringNode[]>({ method: 'GET', url: '/archives-category/manage-tree' }),
  source: (id: number) => request<DocumentSource>({ method: 'GET', url: `/archives-document/source/${id}` }),
  // Silent: the authoring forms show a failure on its field or as their toast.
  saveCategory: (c: CategoryInput) => request<SavedId>({ method: 'POST', url: '/archives-category/save', data: c, silent: true }),
  deleteCategory: (id: number) => request<null>({ method: 'DELETE', url: `/archives-category/del/${id}` }),
  saveDocument: (d: DocumentInput) => request<SavedId>({ method: 'POST', url: '/archives-document/save', data: d, silent: true }),
  deleteDocument: (id: number) => request<null>({ method: 'DELETE', url: `/archives-document/del/${id}` }),
};
