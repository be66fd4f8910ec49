import { field } from '../http/validation.ts';
import { MAX_CONTENT } from '../notices/schemas.ts';

/** Request schemas of the document-library authoring calls: typed, bounded, and no unknown fields. */

export const saveCategoryBody = {
  type: 'object',
  additionalProperties: false,
  required: ['nameZh', 'nameEn'],
  properties: {
    id: field.id,
    parentId: { type: ['integer', 'null'], minimum: 1 },
    nameZh: field.text,
    nameEn: field.text,
  },
} as const;

export const saveDocumentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['categoryId', 'titleZh', 'titleEn', 'contentZh', 'contentEn'],
  properties: {
    id: field.id,
    categoryId: field.id,
    titleZh: field.text,
    titleEn: field.text,
    contentZh: { type: 'string', maxLength: MAX_CONTENT },
    contentEn: { type: 'string', maxLength: MAX_CONTENT },
    /** How contentZh and contentEn are written; HTML when absent. */
    format: { type: 'string', enum: ['markdown', 'html'] },
  },
} as const;

export interface SaveCategoryBody {
  id?: number;
  parentId?: number | null;
  nameZh: string;
  nameEn: string;
}

export interface SaveDocumentBody {
  id?: number;
  categoryId: number;
  titleZh: string;
  titleEn: string;
  contentZh: string;
  contentEn: string;
  format?: 'markdown' | 'html';
}
