// Document-library shapes as the server answers them (platform-core section 7; authoring is ours):
// one definition for both sides. Request bodies are TypeBox schemas with their types derived.
import { type Static, Type } from 'typebox';
import { Id, MAX_CONTENT, OneOf, Text } from './common.ts';

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

export const DOCUMENT_FORMATS = ['markdown', 'html'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

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

/** POST /archives-category/save: a new category (no id) or a change of one; parentId null for first level. */
export const SaveCategoryBody = Type.Object(
  {
    id: Type.Optional(Id),
    parentId: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    nameZh: Text,
    nameEn: Text,
  },
  { additionalProperties: false },
);
export type SaveCategoryBody = Static<typeof SaveCategoryBody>;

/** POST /archives-document/save: a new document (no id) or a change of one, in both languages. */
export const SaveDocumentBody = Type.Object(
  {
    id: Type.Optional(Id),
    categoryId: Id,
    titleZh: Text,
    titleEn: Text,
    contentZh: Type.String({ maxLength: MAX_CONTENT }),
    contentEn: Type.String({ maxLength: MAX_CONTENT }),
    /** How contentZh and contentEn are written; HTML when absent. */
    format: Type.Optional(OneOf(DOCUMENT_FORMATS)),
  },
  { additionalProperties: false },
);
export type SaveDocumentBody = Static<typeof SaveDocumentBody>;

/** Answer of the save calls: the id of the category or document. */
export interface SavedId {
  readonly id: number;
}
