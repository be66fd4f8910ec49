import { PAGE_SIZES } from '../http/paging.ts';
import { field } from '../http/validation.ts';

/** Request schemas of the /notice/* calls: typed, bounded, and no unknown fields. */

import { MAX_CONTENT } from '../../protocol/api/common.ts';
export { MAX_CONTENT };
/** Most attachments one notice carries. */
export const MAX_ATTACHMENTS = 10;
/** Largest attachment (platform-core section 9: default upload limit 5 MB). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** Most notice ids one read or delete call takes. */
export const MAX_IDS = 1000;

// Query values arrive as strings (types are not coerced), so paging is checked by pattern here.
export const pageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageNum: { type: 'string', pattern: '^[1-9][0-9]{0,5}$', default: '1' },
    pageSize: { type: 'string', enum: PAGE_SIZES.map(String), default: '10' },
  },
} as const;

export const noticeIdsBody = {
  type: 'object',
  additionalProperties: false,
  required: ['noticeIds'],
  properties: { noticeIds: { type: 'array', items: field.id, maxItems: MAX_IDS } },
} as const;

export const publishBody = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'content'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: field.text.maxLength },
    content: { type: 'string', maxLength: MAX_CONTENT },
    orgIds: { type: 'array', items: field.id, minItems: 1, maxItems: MAX_IDS },
    /** Epoch ms; absent, null or not in the future sends at once. */
    sendTime: field.epochMs,
    attachmentIds: { type: 'array', items: field.id, maxItems: MAX_ATTACHMENTS },
  },
} as const;

export const sentListBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageNum: { type: 'integer', minimum: 1, maximum: 100_000, default: 1 },
    pageSize: { type: 'integer', enum: [...PAGE_SIZES], default: 10 },
  },
} as const;

export interface SentListBody {
  pageNum?: number;
  pageSize?: number;
}

export interface PageQuery {
  pageNum?: string;
  pageSize?: string;
}

export interface NoticeIdsBody {
  noticeIds: number[];
}

export interface PublishBody {
  title: string;
  content: string;
  orgIds?: number[];
  sendTime?: number | null;
  attachmentIds?: number[];
}
