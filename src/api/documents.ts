import type { CategoryAuthoringNode, CategoryNode, DocumentDetail, DocumentFormat, DocumentSource, DocumentSummary } from '../../protocol/api/documents.ts';
import { request } from './request.ts';

export interface CategoryInput {
  readonly id?: number;
  readonly parentId?: number | null;
  readonly nameZh: string;
  readonly nameEn: string;
}

export interface DocumentInput {
  readonly id?: number;
  readonly categoryId: number;
  readonly titleZh: string;
  readonly titleEn: string;
  readonly contentZh: string;
  readonly contentEn: string;
  readonly format: DocumentFormat;
}

/** Document library: reading (platform-core section 7) and authoring (ours). */
export const documentApi = {
  tree: () => request<CategoryNode[]>({ method: 'GET', url: '/archives-category/first-and-second-tree' }),
  list: (categoryId: number) => request<DocumentSummary[]>({ method: 'GET', url: `/archives-document/list/${categoryId}` }),
  detail: (id: number) => request<DocumentDetail>({ method: 'GET', url: `/archives-document/detail/${id}` }),
  manageTree: () => request<CategoryAuthoringNode[]>({ method: 'GET', url: '/archives-category/manage-tree' }),
  source: (id: number) => request<DocumentSource>({ method: 'GET', url: `/archives-document/source/${id}` }),
  saveCategory: (c: CategoryInput) => request<{ id: number }>({ method: 'POST', url: '/archives-category/save', data: c }),
  deleteCategory: (id: number) => request<null>({ method: 'DELETE', url: `/archives-category/del/${id}` }),
  saveDocument: (d: DocumentInput) => request<{ id: number }>({ method: 'POST', url: '/archives-document/save', data: d }),
  deleteDocument: (id: number) => request<null>({ method: 'DELETE', url: `/archives-document/del/${id}` }),
};
