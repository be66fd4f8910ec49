import { request } from './request.ts';

/** A first-level category with its second-level children, named in the account's language. */
export interface CategoryNode {
  readonly id: number;
  readonly name: string;
  readonly children: readonly { id: number; name: string }[];
}

export interface DocumentSummary {
  readonly id: number;
  readonly title: string;
  readonly updateTime: number;
}

export interface DocumentDetail extends DocumentSummary {
  /** Sanitised HTML. */
  readonly content: string;
  readonly categoryId: number;
}

/** A category with both names, for authoring. */
export interface CategoryAuthoring {
  readonly id: number;
  readonly nameZh: string;
  readonly nameEn: string;
  readonly children: readonly { id: number; nameZh: string; nameEn: string }[];
}

export type DocumentFormat = 'markdown' | 'html';

/** A document as written, in both languages. */
export interface DocumentSource {
  readonly id: number;
  readonly categoryId: number;
  readonly titleZh: string;
  readonly titleEn: string;
  readonly format: DocumentFormat;
  readonly sourceZh: string;
  readonly sourceEn: string;
  readonly updateTime: number;
}

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
  manageTree: () => request<CategoryAuthoring[]>({ method: 'GET', url: '/archives-category/manage-tree' }),
  source: (id: number) => request<DocumentSource>({ method: 'GET', url: `/archives-document/source/${id}` }),
  saveCategory: (c: CategoryInput) => request<{ id: number }>({ method: 'POST', url: '/archives-category/save', data: c }),
  deleteCategory: (id: number) => request<null>({ method: 'DELETE', url: `/archives-category/del/${id}` }),
  saveDocument: (d: DocumentInput) => request<{ id: number }>({ method: 'POST', url: '/archives-document/save', data: d }),
  deleteDocument: (id: number) => request<null>({ method: 'DELETE', url: `/archives-document/del/${id}` }),
};
