import { sql } from 'kysely';
import { orgIdIn } from '../accounts/org-scope.ts';
import type { Db } from '../db/database.ts';
import type { AttachmentView, NoticeView, SentNotice } from '../../protocol/api/notices.ts';

export type { AttachmentView, NoticeView, SentNotice };

export interface NewNotice {
  readonly title: string;
  readonly content: string;
  /** When it is delivered; a time not after `now` delivers at once. */
  readonly sendTime: number;
  readonly now: number;
  readonly senderAccountId: number;
  readonly senderOrgId: number;
  readonly senderName: string;
  readonly senderOrgName: string;
  /** Undefined: every organisation in the sender's subtree (at delivery time). */
  readonly orgIds: readonly number[] | undefined;
  /** Uploaded attachments (by the same sender, not yet used) the notice carries. */
  readonly attachmentIds: readonly number[];
}

export interface NewAttachment {
  readonly name: string;
  readonly mime: string;
  readonly bytes: Uint8Array;
  readonly uploadedBy: number;
  readonly now: number;
}

/** Which organisations a delivery reaches: a scope resolver from the cached organisation tree. */
export type ScopeOf = (orgId: number) => Promise<{ scope: ReadonlySet<number>; coversAll: boolean }>;

export const NoticeState = { Scheduled: 0, Delivered: 1 } as const;

/** Notices and their per-account deliveries. Every read or write is confined to one account's deliveries. */
export class NoticeRepository {
  private readonly db: Db;
  private readonly scopeOf: ScopeOf;
  constructor(db: Db, scopeOf: ScopeOf) {
    this.db = db;
    this.scopeOf = scopeOf;
  }

  /**
   * Writes the notice with its targets and attachments, and delivers it at once when its time has come;
   * otherwise {@link deliverDue} delivers it later. Attachments must be the sender's own unused uploads.
   */
  async publish(notice: NewNotice): Promise<{ id: number; recipients: number; state: number } | { refused: 'attachment' }> {
    const created = await this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('notices')
        .values({
          title: notice.title,
          content: notice.content,
          send_time: notice.sendTime,
          sender_account_id: notice.senderAccountId,
          sender_org_id: notice.senderOrgId,
          sender_name: notice.senderName,
          sender_org_name: notice.senderOrgName,
          state: NoticeState.Scheduled,
          to_all: notice.orgIds === undefined ? 1 : 0,
          created_at: notice.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (notice.orgIds?.length) await trx.insertInto('notice_targets').values(notice.orgIds.map((org_id) => ({ notice_id: id, org_id }))).execute();
      if (notice.attachmentIds.length > 0) {
        const bound = await trx
          .updateTable('notice_attachments')
          .set({ notice_id: id })
          .where('id', 'in', [...notice.attachmentIds])
          .where('uploaded_by', '=', notice.senderAccountId)
          .where('notice_id', 'is', null)
          .executeTakeFirst();
        // Someone else's upload, one already used, or one that does not exist: the whole notice rolls back.
        if (Number(bound.numUpdatedRows) !== notice.attachmentIds.length) throw new AttachmentRefused();
      }
      return id;
    }).catch((err: unknown) => {
      if (err instanceof AttachmentRefused) return undefined;
      throw err;
    });
    if (created === undefined) return { refused: 'attachment' };
    if (notice.sendTime > notice.now) return { id: created, recipients: 0, state: NoticeState.Scheduled };
    return { id: created, recipients: await this.deliver(created), state: NoticeState.Delivered };
  }

  /** Delivers every scheduled notice whose time has come; safe to call from any number of nodes at once. */
  async deliverDue(now: number): Promise<number> {
    const due = await this.db.selectFrom('notices').select('id').where('state', '=', NoticeState.Scheduled).where('send_time', '<=', now).execute();
    let delivered = 0;
    for (const { id } of due) delivered += await this.deliver(id);
    return delivered;
  }

  /**
   * Moves one notice from scheduled to delivered and inserts a delivery per account of its organisations.
   * The state change is the claim: of two nodes delivering at once, only one inserts.
   */
  private async deliver(id: number): Promise<number> {
    const notice = await this.db.selectFrom('notices').select(['to_all', 'sender_org_id']).where('id', '=', id).executeTakeFirst();
    if (!notice) return 0;
    let orgFilter: { all: true } | { ids: ReadonlySet<number> | readonly number[] };
    if (notice.to_all === 1) {
      // A sender organisation deleted since publishing leaves nobody to reach.
      if (notice.sender_org_id === null) orgFilter = { ids: [] };
      else {
        const { scope, coversAll } = await this.scopeOf(notice.sender_org_id);
        orgFilter = coversAll ? { all: true } : { ids: scope };
      }
    } else {
      const targets = await this.db.selectFrom('notice_targets').select('org_id').where('notice_id', '=', id).execute();
      orgFilter = { ids: targets.map((t) => t.org_id) };
    }
    return this.db.transaction().execute(async (trx) => {
      const claimed = await trx.updateTable('notices').set({ state: NoticeState.Delivered }).where('id', '=', id).where('state', '=', NoticeState.Scheduled).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) return 0;
      if ('ids' in orgFilter && [...orgFilter.ids].length === 0) return 0;
      let accounts = trx.selectFrom('accounts').select([sql<number>`${id}`.as('notice_id'), 'accounts.id as account_id', sql<number>`0`.as('read_state')]);
      if ('ids' in orgFilter) accounts = accounts.where(orgIdIn(this.db, 'accounts.org_id', orgFilter.ids));
      // One INSERT ... SELECT, so a large organisation costs no per-account round trip or parameter.
      const result = await trx.insertInto('notice_deliveries').columns(['notice_id', 'account_id', 'read_state']).expression(accounts).executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n);
    });
  }

  /** Notices published from organisations in `scope` (all when `coversAll`), newest first. */
  async sent(scope: ReadonlySet<number>, coversAll: boolean, pageNum: number, pageSize: number): Promise<{ total: number; list: SentNotice[] }> {
    let base = this.db.selectFrom('notices');
    if (!coversAll) base = base.where(orgIdIn(this.db, 'notices.sender_org_id', scope));
    const [{ n }, rows] = await Promise.all([
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
      base
        .select((eb) => [
          'notices.id',
          'notices.title',
          'notices.content',
          'notices.send_time',
          'notices.state',
          'notices.to_all',
          'notices.sender_name',
          'notices.sender_org_name',
          eb.selectFrom('notice_deliveries').select((e) => e.fn.countAll<number | string>().as('c')).whereRef('notice_id', '=', 'notices.id').as('recipients'),
          eb
            .selectFrom('notice_deliveries')
            .select((e) => e.fn.countAll<number | string>().as('c'))
            .whereRef('notice_id', '=', 'notices.id')
            .where('read_state', '=', 1)
            .as('read_count'),
        ])
        .orderBy('notices.send_time', 'desc')
        .orderBy('notices.id', 'desc')
        .limit(pageSize)
        .offset((pageNum - 1) * pageSize)
        .execute(),
    ]);
    const ids = rows.map((r) => r.id);
    const [targets, files] = ids.length === 0 ? [[], new Map<number, AttachmentView[]>()] : await Promise.all([
      this.db.selectFrom('notice_targets').select(['notice_id', 'org_id']).where('notice_id', 'in', ids).execute(),
      this.attachmentsOf(ids),
    ]);
    return {
      total: Number(n),
      list: rows.map((r) => ({
        id: r.id,
        title: r.title,
        content: r.content,
        sendTime: Number(r.send_time),
        state: r.state,
        toAll: r.to_all === 1,
        orgIds: targets.filter((t) => t.notice_id === r.id).map((t) => t.org_id),
        recipients: Number(r.recipients ?? 0),
        readCount: Number(r.read_count ?? 0),
        sendUserName: r.sender_name,
        sendUserDeptName: r.sender_org_name,
        files: files.get(r.id) ?? [],
      })),
    };
  }

  /** The publishing organisation of a notice, or undefined when it does not exist. */
  async senderOrgOf(id: number): Promise<{ orgId: number | null } | undefined> {
    const row = await this.db.selectFrom('notices').select('sender_org_id').where('id', '=', id).executeTakeFirst();
    return row && { orgId: row.sender_org_id };
  }

  /** Removes a notice for everyone: its deliveries, targets and attachments go with it. */
  async withdraw(id: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('notice_deliveries').where('notice_id', '=', id).execute();
      await trx.deleteFrom('notice_targets').where('notice_id', '=', id).execute();
      await trx.deleteFrom('notice_attachments').where('notice_id', '=', id).execute();
      await trx.deleteFrom('notices').where('id', '=', id).execute();
    });
  }

  /** Stores an upload not yet bound to a notice; uploads left unused for a day are dropped on the way. */
  async addAttachment(a: NewAttachment): Promise<AttachmentView> {
    await this.db.deleteFrom('notice_attachments').where('notice_id', 'is', null).where('created_at', '<', a.now - UNUSED_UPLOAD_MS).execute();
    const { id } = await this.db
      .insertInto('notice_attachments')
      .values({ notice_id: null, name: a.name, mime: a.mime, size: a.bytes.byteLength, bytes: a.bytes, uploaded_by: a.uploadedBy, created_at: a.now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id, name: a.name, size: a.bytes.byteLength, url: attachmentUrl(id) };
  }

  /**
   * An attachment's bytes when `accountId` may read it: the uploader, an account the notice was delivered
   * to, or (for `scope`, the notice authors' reach) an author whose scope holds the publishing organisation.
   */
  async attachmentFor(id: number, accountId: number, authorScope: ReadonlySet<number> | undefined): Promise<{ name: string; mime: string; bytes: Uint8Array } | undefined> {
    const row = await this.db
      .selectFrom('notice_attachments as a')
      .leftJoin('notices as n', 'n.id', 'a.notice_id')
      .select(['a.name', 'a.mime', 'a.bytes', 'a.uploaded_by', 'a.notice_id', 'n.sender_org_id'])
      .where('a.id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    let allowed = row.uploaded_by === accountId;
    if (!allowed && row.sender_org_id !== null && authorScope?.has(row.sender_org_id)) allowed = true;
    if (!allowed && row.notice_id !== null) {
      const delivered = await this.db.selectFrom('notice_deliveries').select('id').where('notice_id', '=', row.notice_id).where('account_id', '=', accountId).executeTakeFirst();
      allowed = delivered !== undefined;
    }
    return allowed ? { name: row.name, mime: row.mime, bytes: row.bytes } : undefined;
  }

  private async attachmentsOf(noticeIds: readonly number[]): Promise<Map<number, AttachmentView[]>> {
    const out = new Map<number, AttachmentView[]>();
    if (noticeIds.length === 0) return out;
    const rows = await this.db.selectFrom('notice_attachments').select(['id', 'notice_id', 'name', 'size']).where('notice_id', 'in', [...noticeIds]).orderBy('id').execute();
    for (const r of rows) {
      if (r.notice_id === null) continue;
      const list = out.get(r.notice_id) ?? [];
      list.push({ id: r.id, name: r.name, size: r.size, url: attachmentUrl(r.id) });
      out.set(r.notice_id, list);
    }
    return out;
  }

  private viewQuery(accountId: number) {
    return this.db
      .selectFrom('notice_deliveries as d')
      .innerJoin('notices as n', 'n.id', 'd.notice_id')
      .select(['d.id', 'd.notice_id', 'd.read_state', 'n.title', 'n.content', 'n.send_time', 'n.sender_name', 'n.sender_org_name'])
      .where('d.account_id', '=', accountId);
  }

  /** The account's notices, newest first. */
  async page(accountId: number, pageNum: number, pageSize: number): Promise<{ total: number; list: NoticeView[] }> {
    const counted = await this.db
      .selectFrom('notice_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    const rows = await this.viewQuery(accountId)
      .orderBy('n.send_time', 'desc')
      .orderBy('d.id', 'desc')
      .limit(pageSize)
      .offset((pageNum - 1) * pageSize)
      .execute();
    const files = await this.attachmentsOf(rows.map((r) => r.notice_id));
    return { total: Number(counted.n), list: rows.map((r) => toView(r, files.get(r.notice_id) ?? [])) };
  }

  /** One of the account's notices by delivery id, or undefined when it is not theirs or gone. */
  async detail(accountId: number, deliveryId: number): Promise<NoticeView | undefined> {
    const row = await this.viewQuery(accountId).where('d.id', '=', deliveryId).executeTakeFirst();
    if (!row) return undefined;
    const files = await this.attachmentsOf([row.notice_id]);
    return toView(row, files.get(row.notice_id) ?? []);
  }

  /** Marks the account's deliveries of these notices (or all when undefined) read; returns how many changed. */
  async markRead(accountId: number, noticeIds: readonly number[] | undefined, now: number): Promise<number> {
    if (noticeIds?.length === 0) return 0;
    let query = this.db.updateTable('notice_deliveries').set({ read_state: 1, read_time: now }).where('account_id', '=', accountId).where('read_state', '=', 0);
    if (noticeIds) query = query.where('notice_id', 'in', [...noticeIds]);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Removes the account's deliveries of these notices (or all when undefined); the notices stay for others. */
  async remove(accountId: number, noticeIds: readonly number[] | undefined): Promise<number> {
    if (noticeIds?.length === 0) return 0;
    let query = this.db.deleteFrom('notice_deliveries').where('account_id', '=', accountId);
    if (noticeIds) query = query.where('notice_id', 'in', [...noticeIds]);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async unreadCount(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom('notice_deliveries')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('account_id', '=', accountId)
      .where('read_state', '=', 0)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

interface ViewRow {
  id: number;
  notice_id: number;
  read_state: number;
  title: string;
  content: string;
  send_time: number;
  sender_name: string;
  sender_org_name: string;
}

/** Where an attachment is downloaded. */
export function attachmentUrl(id: number): string {
  return `/notice/attachment/${id}`;
}

// An upload never attached to a published notice is dropped after a day.
const UNUSED_UPLOAD_MS = 24 * 60 * 60 * 1000;

class AttachmentRefused extends Error {}

function toView(row: ViewRow, files: AttachmentView[]): NoticeView {
  return {
    id: row.id,
    noticeId: row.notice_id,
    title: row.title,
    content: row.content,
    sendTime: Number(row.send_time),
    sendUserDeptName: row.sender_org_name,
    sendUserName: row.sender_name,
    fileUrls: files.map((f) => f.url),
    files,
    isRead: row.read_state === 1,
  };
}
