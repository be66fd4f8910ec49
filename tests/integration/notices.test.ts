import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

interface NoticeView {
  id: number;
  noticeId: number;
  title: string;
  content: string;
  sendTime: number;
  sendUserDeptName: string;
  sendUserName: string;
  fileUrls: string[];
  isRead: boolean;
}
type Page<T> = { total: number; list: T[] };

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

for (const target of targets) {
  describe.skipIf(!target.available)(`notices (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await startTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    /** An organisation with its login account, and a client logged in as that account. */
    async function orgWithLogin(): Promise<{ id: number; c: Client }> {
      const account = unique('owner');
      const id = await createOrg(admin, { name: unique('Org '), account, password: 'Owner_pw1' });
      return { id, c: client(ts, (await loginAs(ts, account, 'Owner_pw1')).token) };
    }

    const unread = (c: Client) => c.ok<number>('GET', '/notice/unreadNoticeCount');
    const page = (c: Client) => c.ok<Page<NoticeView>>('GET', '/notice/page?pageNum=1&pageSize=10');

    it('delivers to the chosen organisations only, sanitised, and reads and deletes per user', async () => {
      const a = await orgWithLogin();
      const b = await orgWithLogin();
      const title = unique('Maintenance ');
      const published = await admin.ok<{ id: number; recipients: number }>('POST', '/notice/publish', {
        title,
        content: '<p>Tonight<img src="x" onerror="alert(1)"></p><script>alert(2)</script><a href="javascript:alert(3)">x</a>',
        orgIds: [a.id],
      });
      expect(published.recipients).toBe(1);

      expect(await unread(a.c)).toBe(1);
      const listed = await page(a.c);
      expect(listed.total).toBe(1);
      const delivery = listed.list[0];
      if (!delivery) throw new Error('no notice listed');
      expect(delivery).toMatchObject({ noticeId: published.id, title, isRead: false, fileUrls: [], sendUserName: expect.any(String) });

      const detail = await a.c.ok<NoticeView>('GET', `/notice/detail/${delivery.id}`);
      expect(detail.content).toContain('Tonight');
      expect(detail.content).not.toMatch(/<script|alert\(2\)|onerror|javascript:/i);

      // The other organisation's user never sees it, not even by the delivery id.
      expect(await unread(b.c)).toBe(0);
      expect((await page(b.c)).total).toBe(0);
      expect((await b.c.call('GET', `/notice/detail/${delivery.id}`)).code).toBe(40004);

      await a.c.ok('POST', '/notice/read', { noticeIds: [published.id] });
      expect(await unread(a.c)).toBe(0);
      expect((await page(a.c)).list[0]?.isRead).toBe(true);
    });

    it('marks everything read, and deleting removes the notice for that user only', async () => {
      const a = await orgWithLogin();
      const role = await createRole(a.c, unique('viewer'), ['home_list']);
      const colleague = unique('colleague');
      await createAccount(a.c, colleague, 'Colleague_pw1', role);
      const other = client(ts, (await loginAs(ts, colleague, 'Colleague_pw1')).token);

      const first = await admin.ok<{ id: number; recipients: number }>('POST', '/notice/publish', { title: unique('One '), content: '<b>1</b>', orgIds: [a.id] });
      await admin.ok('POST', '/notice/publish', { title: unique('Two '), content: '<b>2</b>', orgIds: [a.id] });
      expect(first.recipients).toBe(2);
      expect(await unread(a.c)).toBe(2);
      expect((await page(a.c)).list.map((n) => n.content)).toEqual(['<b>2</b>', '<b>1</b>']);

      await a.c.ok('GET', '/notice/read-all');
      expect(await unread(a.c)).toBe(0);
      expect(await unread(other)).toBe(2);

      await a.c.ok('DELETE', '/notice/delete', { noticeIds: [first.id] });
      expect((await page(a.c)).total).toBe(1);
      expect((await page(other)).total).toBe(2);

      await other.ok('DELETE', '/notice/delete-all');
      expect((await page(other)).total).toBe(0);
      expect((await page(a.c)).total).toBe(1);
    });

    it('lets only the admin role publish, to organisations in scope', async () => {
      const a = await orgWithLogin();
      const role = await createRole(a.c, unique('plain'), ['home_list']);
      const account = unique('plain');
      await createAccount(a.c, account, 'Plain_pw1', role);
      const plain = client(ts, (await loginAs(ts, account, 'Plain_pw1')).token);
      const refused = await plain.call('POST', '/notice/publish', { title: 'Hello', content: 'x' });
      expect(refused).toMatchObject({ code: 40003 });

      const emoji = await admin.call('POST', '/notice/publish', { title: 'Hi 🎉', content: 'x', orgIds: [a.id] });
      expect(emoji.code).toBe(40001);
      const outside = await admin.call('POST', '/notice/publish', { title: 'Hi', content: 'x', orgIds: [999_999] });
      expect(outside.code).toBe(40003);
    });
  });
}
