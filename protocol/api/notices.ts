// The /notice/* calls (platform-core section 7; authoring is ours): request schemas written with TypeBox,
// their types derived, and the answers' shapes: one definition for the server and the console.
import { type Static, Type } from 'typebox';
import { EpochMs, Id, MAX_CONTENT, MAX_PAGE_NUM, MAX_TEXT, OneOf, PAGE_SIZES } from './common.ts';

/** Most attachments one notice carries. */
export const MAX_ATTACHMENTS = 10;
/** Largest attachment (platform-core section 9: default upload limit 5 MB). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;
/** Most notice ids one read or delete call takes. */
export const MAX_IDS = 1000;

/** GET /notice/page: paging on the query string (strings: types are not coerced). */
export const NoticePageQuery = Type.Object(
  {
    pageNum: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$', default: '1' })),
    pageSize: Type.Optional(OneOf(PAGE_SIZES.map(String), { default: '10' })),
  },
  { additionalProperties: false },
);
export type NoticePageQuery = Static<typeof NoticePageQuery>;

/** POST /notice/read and DELETE /notice/delete: the notices (noticeId, not the delivery id). */
export const NoticeIdsBody = Type.Object({ noticeIds: Type.Array(Id, { maxItems: MAX_IDS }) }, { additionalProperties: false });
export type NoticeIdsBody = Static<typeof NoticeIdsBody>;

/** POST /notice/publish. */
export const PublishNoticeBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: MAX_TEXT }),
    /** HTML; the server sanitises it. */
    content: Type.String({ maxLength: MAX_CONTENT }),
    /** Absent: every organisation in the author's subtree. */
    orgIds: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: MAX_IDS })),
    /** Epoch ms; absent, null or not in the future sends at once. */
    sendTime: Type.Optional(EpochMs),
    attachmentIds: Type.Optional(Type.Array(Id, { maxItems: MAX_ATTACHMENTS })),
  },
  { additionalProperties: false },
);
export type PublishNoticeBody = Static<typeof PublishNoticeBody>;

/** POST /notice/sent-list: the author's published notices, a page at a time. */
export const SentListBody = Type.Object(
  {
    pageNum: Type.Optional(Type.Integer({ minimum: 1, maximum: Math.min(100_000, MAX_PAGE_NUM), default: 1 })),
    pageSize: Type.Optional(OneOf(PAGE_SIZES, { default: 10 })),
  },
  { additionalProperties: false },
);
export type SentListBody = Static<typeof SentListBody>;

/** An attachment as listed with a notice; `url` downloads it (session header required). */
export interface AttachmentView {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  readonly url: string;
}

/** A notice as one recipient sees it (platform-core section 3, "Notice"). */
export interface NoticeView {
  /** The delivery's id: what /notice/detail/{id} takes. */
  readonly id: number;
  /** The notice's id: what /notice/read and /notice/delete take. */
  readonly noticeId: number;
  readonly title: string;
  /** HTML, sanitised by the server on publish. */
  readonly content: string;
  readonly sendTime: number;
  readonly sendUserDeptName: string;
  readonly sendUserName: string;
  /** Download paths of the attachments (GET with the session header). */
  readonly fileUrls: readonly string[];
  readonly files: readonly AttachmentView[];
  readonly isRead: boolean;
}

/** A published notice as its authors list it. */
export interface SentNotice {
  readonly id: number;
  readonly title: string;
  readonly content: string;
  readonly sendTime: number;
  /** 0 scheduled, 1 delivered. */
  readonly state: number;
  readonly toAll: boolean;
  readonly orgIds: readonly number[];
  readonly recipients: number;
  readonly readCount: number;
  readonly sendUserName: string;
  readonly sendUserDeptName: string;
  readonly files: readonly AttachmentView[];
}

/** Answer of /notice/publish. */
export interface PublishedNotice {
  readonly id: number;
  readonly recipients: number;
  /** 0 scheduled, 1 delivered. */
  readonly state: number;
}
