import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldLabelKey, formatMessage } from '../../protocol/index.ts';
import { client, type Client, createOrg } from '../support/console-api.ts';
import { dbTargets } from '../support/databases.ts';
import { fetchFrom, injectTestServer, loginAsAdmin, type TestServer } from '../support/server.ts';

/**
 * Bad input for every call of platform-core section 7 (and the authoring calls beside them): missing,
 * wrongly typed, oversized, emoji-bearing, unknown and malformed values. Each must get a clear envelope
 * (a 4xxxx code and a message naming the problem, never a stack trace or a 500) and change nothing.
 */
const targets = await dbTargets();

const LONG = 'x'.repeat(10_000);
const EMOJI = 'Shop 🚀';
const HASH = 'a'.repeat(64);

type Method = 'GET' | 'POST' | 'DELETE';
interface Case {
  readonly method: Method;
  readonly url: string;
  readonly body?: unknown;
  /** Raw text sent as JSON (malformed bodies). */
  readonly raw?: string;
  /** A word the message must contain (the offending field, or the spec's message). */
  readonly mentions?: string;
}

/**
 * Bad bodies for a JSON call, built from a valid body and its text fields. A list call (`search`) has no
 * required field, and its text is a filter where an emoji simply finds nothing.
 */
function bodyCases(method: Method, url: string, valid: Record<string, unknown>, texts: readonly string[], search = false): Case[] {
  const cases: Case[] = [
    ...(search ? [] : [{ method, url, body: {}, mentions: 'required' }]),
    { method, url, body: { ...valid, unexpected: 1 }, mentions: 'unexpected' },
    { method, url, raw: '{"broken": ', mentions: 'JSON' },
    { method, url, body: [valid] },
  ];
  for (const [key, value] of Object.entries(valid)) {
    // The wrong type for each field: strings become numbers, everything else becomes a string.
    cases.push({ method, url, body: { ...valid, [key]: typeof value === 'string' ? 12345 : 'not-a-number' }, mentions: key });
  }
  for (const key of texts) {
    cases.push({ method, url, body: { ...valid, [key]: LONG }, mentions: key });
    if (!search) cases.push({ method, url, body: { ...valid, [key]: EMOJI } });
  }
  return cases;
}

/**
 * True when the message names what `mentions` asks for: a field by its label in the user's words (never its
 * raw name), 'required' by the spec's "cannot be empty", anything else word for word.
 */
function mentionsIt(message: string, mentions: string): boolean {
  const label = fieldLabelKey(mentions);
  const wanted = mentions === 'required' ? 'cannot be empty' : label ? formatMessage('en', label) : mentions;
  return message.toLowerCase().includes(wanted.toLowerCase());
}

function idCases(method: Method, path: (id: string) => string): Case[] {
  return ['abc', '0', '-1', '1.5', '99999999999', '%F0%9F%9A%80'].map((id) => ({ method, url: path(id) }));
}

function pagingCases(url: string): Case[] {
  return [
    { method: 'GET', url: `${url}?pageNum=0&pageSize=10`, mentions: 'pageNum' },
    { method: 'GET', url: `${url}?pageNum=abc&pageSize=10`, mentions: 'pageNum' },
    { method: 'GET', url: `${url}?pageNum=1&pageSize=7`, mentions: 'pageSize' },
    { method: 'GET', url: `${url}?pageNum=1&pageSize=10&extra=1`, mentions: 'extra' },
  ];
}

function casesFor(orgId: number): Case[] {
  return [
    // Login (public): the spec's messages for empty fields, and typed limits.
    { method: 'POST', url: '/login/userLogin', body: {}, mentions: 'cannot be empty' },
    { method: 'POST', url: '/login/userLogin', body: { username: LONG, id: 'x', password: HASH, authCode: 'abcd' }, mentions: 'username' },
    { method: 'POST', url: '/login/userLogin', body: { username: 12, id: 'x', password: HASH, authCode: 'abcd' }, mentions: 'username' },
    { method: 'POST', url: '/login/userLogin', raw: '{"username": ', mentions: 'JSON' },
    // Organisations.
    ...bodyCases('POST', '/org/list', { pageNum: 1, pageSize: 10, name: 'a' }, ['name'], true),
    // roleId 1 is the seeded admin role; every case fails on another field before it matters.
    ...bodyCases('POST', '/org/add', { name: 'Bad Input Org', account: 'badinput1', password: HASH, roleId: 1 }, ['name']),
    ...bodyCases('POST', '/org/update', { id: orgId, name: 'Renamed', contactPerson: 'Ann' }, ['name', 'contactPerson']),
    ...bodyCases('DELETE', '/org/del', { id: orgId }, []),
    ...bodyCases('POST', '/org/freeze', { id: orgId, freezeState: 2 }, []),
    { method: 'POST', url: '/org/freeze', body: { id: orgId, freezeState: 3 }, mentions: 'freezeState' },
    ...bodyCases('POST', '/org/restpassword', { id: orgId, password: HASH }, []),
    { method: 'POST', url: '/org/restpassword', body: { id: orgId, password: 'plain-text' }, mentions: 'password' },
    ...idCases('GET', (id) => `/org/getOrg/${id}`),
    ...idCases('GET', (id) => `/org/report/${id}`),
    ...idCases('GET', (id) => `/org/kitoutUser/${id}`),
    // Roles and admin accounts.
    ...bodyCases('POST', '/permit/getRoleList', { pageNum: 1, pageSize: 10 }, [], true),
    ...bodyCases('POST', '/permit/addRole', { name: 'Bad role', summary: 's', permissionList: ['home_list'] }, ['name', 'summary']),
    { method: 'POST', url: '/permit/addRole', body: { name: 'Bad role', permissionList: ['no_such_key'] } },
    ...bodyCases('POST', '/permit/updateRole', { id: 1, name: 'Bad role', permissionList: ['home_list'] }, ['name']),
    ...idCases('DELETE', (id) => `/permit/delRole/${id}`),
    ...idCases('GET', (id) => `/permit/getPermitsByRole/${id}`),
    ...bodyCases('POST', '/permit/getAdminList', { pageNum: 1, pageSize: 10 }, [], true),
    ...bodyCases('POST', '/permit/addAccount', { account: 'badacct1', password: HASH, roleId: 1, nickname: 'n' }, ['nickname']),
    ...bodyCases('POST', '/permit/updateAccount', { id: 1, nickname: 'n' }, ['nickname']),
    ...idCases('DELETE', (id) => `/permit/delAccount/${id}`),
    ...bodyCases('POST', '/permit/update-self-password', { id: 1, password: HASH }, []),
    // Notices (reader side and authoring).
    ...pagingCases('/notice/page'),
    ...bodyCases('POST', '/notice/read', { noticeIds: [1] }, []),
    { method: 'POST', url: '/notice/read', body: { noticeIds: Array.from({ length: 1001 }, (_, i) => i + 1) }, mentions: 'noticeIds' },
    { method: 'POST', url: '/notice/read', body: { noticeIds: ['1'] }, mentions: 'noticeIds' },
    ...bodyCases('DELETE', '/notice/delete', { noticeIds: [1] }, []),
    ...idCases('GET', (id) => `/notice/detail/${id}`),
    ...bodyCases('POST', '/notice/publish', { title: 'T', content: 'c', orgIds: [orgId] }, ['title']),
    { method: 'POST', url: '/notice/publish', body: { title: 'T', content: LONG.repeat(30) }, mentions: 'content' },
    { method: 'POST', url: '/notice/publish', body: { title: 'T', content: 'c', sendTime: -5 }, mentions: 'sendTime' },
    { method: 'POST', url: '/notice/publish', body: { title: 'T', content: 'c', attachmentIds: [999_999] } },
    ...bodyCases('POST', '/notice/sent-list', { pageNum: 1, pageSize: 10 }, [], true),
    ...idCases('DELETE', (id) => `/notice/withdraw/${id}`),
    ...idCases('GET', (id) => `/archives-document/source/${id}`),
    ...idCases('GET', (id) => `/notice/attachment/${id}`),
    // Document library.
    ...idCases('GET', (id) => `/archives-document/list/${id}`),
    ...idCases('GET', (id) => `/archives-document/detail/${id}`),
    ...bodyCases('POST', '/archives-category/save', { nameZh: '分类', nameEn: 'Category' }, ['nameZh', 'nameEn']),
    ...bodyCases('POST', '/archives-document/save', { categoryId: 999_999, titleZh: '标题', titleEn: 'Title', contentZh: '', contentEn: '' }, ['titleZh', 'titleEn']),
    // Language.
    ...bodyCases('POST', '/common/modify-language', { languageType: 1 }, []),
    { method: 'POST', url: '/common/modify-language', body: { languageType: 3 }, mentions: 'languageType' },
  ];
}

for (const target of targets) {
  describe.skipIf(!target.available)(`bad input (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;
    let token = '';
    let orgId = 0;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      token = (await loginAsAdmin(ts)).token;
      admin = client(ts, token);
      orgId = await createOrg(admin, { name: 'Bad Input Target', account: 'badtarget', password: 'Target_pw1' });
    });
    afterAll(async () => ts?.stop());

    /** Everything a bad call could have changed, as one comparable value. */
    async function fingerprint(): Promise<unknown> {
      const db = ts.server.db;
      const tables = ['organisations', 'accounts', 'roles', 'role_permissions', 'notices', 'notice_deliveries', 'notice_attachments', 'document_categories', 'documents'] as const;
      const counts = await Promise.all(tables.map(async (t) => [t, Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(t)}`.execute(db)).rows[0]?.n)]));
      const orgs = await db.selectFrom('organisations').select(['id', 'name', 'freeze_state', 'contact_person']).orderBy('id').execute();
      const accounts = await db.selectFrom('accounts').select(['id', 'nickname', 'password_hash', 'language', 'role_id']).orderBy('id').execute();
      return { counts, orgs, accounts };
    }

    it('answers every bad call with a clear 4xxxx envelope and changes nothing', async () => {
      const before = await fingerprint();
      const cases = casesFor(orgId);
      const failures: string[] = [];
      for (const c of cases) {
        const res = await fetchFrom(ts.server.url, `${c.url}`, {
          method: c.method,
          headers: { 'X-Token': token, ...(c.body !== undefined || c.raw !== undefined ? { 'Content-Type': 'application/json' } : {}) },
          body: c.raw ?? (c.body === undefined ? undefined : JSON.stringify(c.body)),
        });
        const label = `${c.method} ${c.url} ${c.raw ?? JSON.stringify(c.body ?? null).slice(0, 80)}`;
        let env: { code?: unknown; message?: unknown };
        try {
          env = (await res.json()) as typeof env;
        } catch {
          failures.push(`${label}: not JSON (HTTP ${res.status})`);
          continue;
        }
        const message = typeof env.message === 'string' ? env.message : '';
        if (res.status >= 500 || typeof env.code !== 'number' || env.code < 40000 || env.code >= 50000) failures.push(`${label}: HTTP ${res.status} code ${String(env.code)} ${message}`);
        else if (!message || /\bat \S+:\d+|Error:|stack/i.test(message)) failures.push(`${label}: unclear message '${message}'`);
        // Validator wording (Ajv's "must match pattern", "must NOT have", "body/x") never reaches a user.
        else if (/\bmust (match|NOT|have|be)\b|^(body|querystring|params)\//.test(message)) failures.push(`${label}: validator text '${message}'`);
        else if (c.mentions && !mentionsIt(message, c.mentions)) failures.push(`${label}: message '${message}' does not mention ${c.mentions}`);
      }
      expect(failures).toEqual([]);
      expect(cases.length).toBeGreaterThan(150);
      expect(await fingerprint()).toEqual(before);
    });
  });
}
