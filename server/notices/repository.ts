import { sql } from 'kysely';
import type { Db } from '../db/database.ts';

/** A notice as one recipient sees it (platform-core section 3, "Notice"). */
export interface NoticeView {
  /** The delivery's id: what /notice/detail/{id} takes. */
  readonly id: number;
  /** The notice's id: what /notice/read and /notice/delete take. */
  readonly noticeId: number;
  readonly title: string;
  readonly content: string;
  readonly sendTime: number;
  readonly sendUserDeptName: string;
  readonly sendUserName: string;
  /** Attachments are not supported yet; always empty. */
  readonly fileUrls: string[];
  readonly isRead: boolean;
}

export interface NewNotice {
  readonly title: string;
  readonly content: string;
  readonly sendTime: number;
  readonly senderAccountId: number;
  readonly senderName: string;
  readonly senderOrgName: string;
  /** Every account of these organisations receives the notice. */
  readonly orgIds: readonly number[];
}

/** Notices and their per-account deliveries. Every read or write is confined to one account's deliveries. */
export class NoticeRepository {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  /** Creates the notice and one delivery per account of the organisations; returns the notice id and recipient count. */
  async publish(notice: NewNotice): Promise<{ id: number; recipients: number }> {
    return this.db.transaction().execute(async (trx) => {
      const { id } = await trx
        .insertInto('notices')
        .values({
          title: notice.title,
          content: notice.content,
          send_time: notice.sendTime,
          sender_account_id: notice.senderAccountId,
          sender_name: notice.senderName,
          sender_org_name: notice.senderOrgName,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (notice.orgIds.length === 0) return { id, recipients: 0 };
      // One INSERT ... SELECT, so a large organisation costs no per-account round trip or parameter.
      const result = await trx
        .insertInto('notice_deliveries')
        .columns(['notice_id', 'account_id', 'read_state'])
        .expression(
          trx
            .selectFrom('accounts')
            .select([sql<number>`${id}`.as('notice_id'), 'accounts.id as account_id', sql<number>`0`.as('read_state')])
            .where('accounts.org_id', 'in', [...notice.orgIds]),
        )
        .executeTakeFirst();
      return { id, recipients: Number(result.numInsertedOrUpdatedRows ?? 0n) };
    });
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
    return { total: Number(counted.n), list: rows.map(toView) };
  }

  /** One of the account's notices by delivery id, or undefined when it is not theirs or gone. */
  async detail(accountId: number, deliveryId: number): Promise<NoticeView | undefined> {
    const row = await this.viewQuery(accountId).where('d.id', '=', deliveryId).executeTakeFirst();
    return row && toView(row);
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

function toView(row: ViewRow): NoticeView {
  return {
    id: row.id,
    noticeId: row.notice_id,
    title: row.title,
    content: row.content,
    sendTime: Number(row.send_time),
    sendUserDeptName: row.sender_org_name,
    sendUserName: row.sender_name,
    fileUrls: [],
    isRead: row.read_state === 1,
  };
}
