// Document-library shapes as the server answers them (platform-core section 7; authoring is ours):
// one definition for both sides.

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
  /** True when the caller may edit and delete it: its organisation owns it (or one above the owner does). */
  readonly editable: boolean;
}

export interface DocumentDetail extends Omit<DocumentSummary, 'editable'> {
  /** Sanitised HTML. */
  readonly content: string;
  readonly categoryId: number;
}

/** A category with both names, for the authoring screen. */
export interface CategoryAuthoringNode {
  readonly id: number;
  readonly nameZh: string;
  readonly nameEn: string;
  /** True when the caller may rename, delete and add to it (documents of a subcategory too); a subcategory has its parent's owner. */
  readonly editable: boolean;
  readonly children: readonly { id: number; nameZh: string; nameEn: string; editable: boolean }[];
}

export type DocumentFormat = 'markdown' | 'html';

/** A document as its authors edit it: both languages and the source as written. */
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
