import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { loadConfig } from '../../server/config.ts';
import { Message } from '../../server/http/envelope.ts';
import { HOT_ACTION_MAX } from '../../server/http/rate-limit.ts';
import { NoticeMessage } from '../../server/notices/routes.ts';
import { MAX_ATTACHMENT_BYTES } from '../../protocol/api/notices.ts';
import { startServer } from '../../server/server.ts';
import { type Client, client, createOrg } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, TEST_PG_URL } from '../support/databases.ts';
import { loginAs, loginAsAdmin, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

const targets = await dbTargets();
let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

/** A test server on a fake clock, so scheduled sends are tested by moving time, not by waiting. */
async function startClockedServer(db: 'sqlite' | 'postgres', clock: FakeClock): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'authoring-'));
  const pgSchema = db === 'postgres' ? await freshPgSchema() : undefined;
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', ...(pgSchema ? { DATABASE_URL: TEST_PG_URL } : {}) });
  const server = await startServer(config, { clock, pgSchema: pgSchema?.schema });
  return {
    server,
    config,
    async stop() {
      await server.close();
      await pgSchema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Attachment {
  id: number;
  name: string;
  size: number;
  url: string;
}
interface Delivered {
  id: number;
  noticeId: number;
  title: string;
  fileUrls: string[];
  files: Attachment[];
}
interface Sent {
  id: number;
  title: string;
  state: number;
  toAll: boolean;
  orgIds: number[];
  recipients: number;
  readCount: number;
  files: Attachment[];
}

for (const target of targets) {
  describe.skipIf(!target.available)(`notice and document authoring (${target.name})`, () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 8, 0, 0));
    let ts: TestServer;
    let admin: Client;
    let adminToken = '';

    beforeAll(async () => {
      ts = await startClockedServer(target.name, clock);
      adminToken = (await loginAsAdmin(ts)).token;
      admin = client(ts, adminToken);
    });
    afterAll(async () => ts?.stop());

    async function orgWithLogin(): Promise<{ id: number; c: Client; token: string }> {
      const account = unique('reader');
      const id = await createOrg(admin, { name: unique('Reader Org '), account, password: 'Reader_pw1' });
      const token = (await loginAs(ts, account, 'Reader_pw1')).token;
      return { id, c: client(ts, token), token };
    }

    async function upload(token: string, name: string, bytes: Uint8Array, type = 'application/pdf') {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from(bytes)], { type }), name);
      const res = await fetch(`${ts.server.url}/notice/attachment`, { method: 'POST', headers: { 'X-Token': token }, body: form });
      return (await res.json()) as { code: number; data: Attachment; message: string };
    }

    const unread = (c: Client) => c.ok<number>('GET', '/notice/unreadNoticeCount');
    const inbox = (c: Client) => c.ok<{ list: Delivered[] }>('GET', '/notice/page?pageNum=1&pageSize=10');
    const sentList = () => admin.ok<{ total: number; list: Sent[] }>('POST', '/notice/sent-list', { pageNum: 1, pageSize: 10 });

    it('delivers a scheduled notice when its time comes, to organisations that exist by then', async () => {
      const a = await orgWithLogin();
      const title = unique('Scheduled ');
      const sendTime = clock.now() + 60 * 60 * 1000;
      const published = await admin.ok<{ id: number; state: number; recipients: number }>('POST', '/notice/publish', { title, content: '<p>Later</p>', sendTime });
      expect(published).toMatchObject({ state: 0, recipients: 0 });
      expect(await unread(a.c)).toBe(0);
      // Created after publishing, before the send time: "all" is judged at delivery.
      const late = await orgWithLogin();
      clock.advance(60 * 60 * 1000 - 2_000);
      expect(await unread(a.c)).toBe(0);
      expect((await sentList()).list.find((n) => n.id === published.id)).toMatchObject({ state: 0, toAll: true, recipients: 0 });

      clock.advance(2_000);
      expect(await unread(a.c)).toBe(1);
      expect(await unread(late.c)).toBe(1);
      expect((await inbox(late.c)).list[0]).toMatchObject({ title, noticeId: published.id });
      const sent = (await sentList()).list.find((n) => n.id === published.id);
      expect(sent).toMatchObject({ state: 1, toAll: true });
      expect(sent?.recipients).toBeGreaterThanOrEqual(3);
    });

    it('carries attachments to the chosen organisations, who alone may download them', async () => {
      const a = await orgWithLogin();
      const b = await orgWithLogin();
      const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
      // A path in the name is cut to its last segment: nothing is ever stored under a client's path.
      const up = await upload(adminToken, '../../etc/报告 1.pdf', bytes);
      expect(up.code).toBe(20000);
      expect(up.data).toMatchObject({ name: '报告 1.pdf', size: bytes.byteLength });
      const title = unique('With file ');
      const published = await admin.ok<{ id: number; recipients: number }>('POST', '/notice/publish', { title, content: 'See attached', orgIds: [a.id], attachmentIds: [up.data.id] });
      expect(published.recipients).toBe(1);

      const [mine] = (await inbox(a.c)).list;
      expect(mine).toMatchObject({ title, fileUrls: [up.data.url], files: [{ id: up.data.id, name: '报告 1.pdf', size: bytes.byteLength }] });
      const download = await fetch(`${ts.server.url}${up.data.url}`, { headers: { 'X-Token': a.token } });
      expect(download.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('报告 1.pdf')}`);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);

      // Not delivered to b: the file does not exist as far as b can tell.
      expect((await b.c.call('GET', up.data.url)).code).toBe(40004);
      expect((await inbox(b.c)).list.some((n) => n.title === title)).toBe(false);
      // An attachment is used once; reusing it refuses the whole notice.
      const reuse = await admin.call('POST', '/notice/publish', { title: unique('Reuse '), content: 'x', attachmentIds: [up.data.id] });
      expect(reuse).toMatchObject({ code: 40001, message: NoticeMessage.AttachmentRefused });
      expect((await sentList()).list.some((n) => n.title.startsWith('Reuse'))).toBe(false);
      // Someone else's upload cannot be attached either.
      const theirs = await upload(a.token, 'a.txt', new Uint8Array([1]), 'text/plain');
      expect(theirs.code).toBe(20000);
      const borrowed = await admin.call('POST', '/notice/publish', { title: unique('Borrowed '), content: 'x', attachmentIds: [theirs.data.id] });
      expect(borrowed).toMatchObject({ code: 40001, message: NoticeMessage.AttachmentRefused });
    });

    it('refuses oversized, nameless, hidden and non-multipart uploads with a clear message', async () => {
      const tooBig = await upload(adminToken, 'big.bin', new Uint8Array(MAX_ATTACHMENT_BYTES + 1));
      expect(tooBig).toMatchObject({ code: 40001, message: NoticeMessage.FileTooLarge });
      expect(await upload(adminToken, '.env', new Uint8Array([1]))).toMatchObject({ code: 40001, message: NoticeMessage.FileName });
      expect(await upload(adminToken, 'empty.txt', new Uint8Array(0))).toMatchObject({ code: 40001, message: NoticeMessage.FileMissing });
      const json = await admin.call('POST', '/notice/attachment', { file: 'x' });
      expect(json).toMatchObject({ code: 40001 });
      expect(json.message).not.toMatch(/stack|Error:/);
    });

    it('withdraws a notice for everyone', async () => {
      const a = await orgWithLogin();
      const published = await admin.ok<{ id: number }>('POST', '/notice/publish', { title: unique('Withdrawn '), content: 'x', orgIds: [a.id] });
      expect(await unread(a.c)).toBe(1);
      await admin.ok('DELETE', `/notice/withdraw/${published.id}`);
      expect(await unread(a.c)).toBe(0);
      expect((await admin.call('DELETE', `/notice/withdraw/${published.id}`)).code).toBe(40004);
    });

    it('answers a repeated state-changing click with the spec message', async () => {
      const a = await orgWithLogin();
      const body = { noticeIds: [123456] };
      for (let i = 0; i < HOT_ACTION_MAX; i++) expect((await a.c.call('POST', '/notice/read', body)).code).toBe(20000);
      expect(await a.c.call('POST', '/notice/read', body)).toMatchObject({ code: 40029, message: Message.TooFrequent });
      // Another request, or another person, is not held back.
      expect((await a.c.call('POST', '/notice/read', { noticeIds: [654321] })).code).toBe(20000);
      expect((await admin.call('POST', '/notice/read', body)).code).toBe(20000);
    });

    it('renders Markdown documents to sanitised HTML and keeps the source for editing', async () => {
      const top = (await admin.ok<{ id: number }>('POST', '/archives-category/save', { nameZh: '指南', nameEn: 'Guides' })).id;
      const child = (await admin.ok<{ id: number }>('POST', '/archives-category/save', { parentId: top, nameZh: '入门', nameEn: 'Start' })).id;
      const sourceEn = '# Hello\n\nSome **bold** text.\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))';
      const doc = (
        await admin.ok<{ id: number }>('POST', '/archives-document/save', { categoryId: child, titleZh: '你好', titleEn: 'Hello', contentZh: '## 你好', contentEn: sourceEn, format: 'markdown' })
      ).id;
      const detail = await admin.ok<{ content: string }>('GET', `/archives-document/detail/${doc}`);
      expect(detail.content).toContain('<h1>Hello</h1>');
      expect(detail.content).toContain('<strong>bold</strong>');
      expect(detail.content).not.toMatch(/script|javascript:/);
      expect(await admin.ok('GET', `/archives-document/source/${doc}`)).toMatchObject({ format: 'markdown', sourceEn, sourceZh: '## 你好', titleZh: '你好', categoryId: child });
      const tree = await admin.ok<{ id: number; nameZh: string; nameEn: string; children: { id: number }[] }[]>('GET', '/archives-category/manage-tree');
      expect(tree.find((c) => c.id === top)).toMatchObject({ nameZh: '指南', nameEn: 'Guides', children: [{ id: child, nameZh: '入门', nameEn: 'Start' }] });
      const bad = await admin.call('POST', '/archives-document/save', { categoryId: child, titleZh: 'x', titleEn: 'x', contentZh: '', contentEn: '', format: 'docx' });
      expect(bad.code).toBe(40001);
      expect(bad.message).toContain('Format');
    });
  });
}
