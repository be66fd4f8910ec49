import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldLabelKey, formatMessage, type MessageRef } from '../../protocol/index.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { client, createOrg } from '../support/console-api.ts';
import { fetchFrom, injectTestServer, loginAsAdmin, type TestServer } from '../support/server.ts';

/**
 * Errors as keys (docs/DECISIONS.md): every failure carries a catalogue key with its parameters, and
 * `message` is in the caller's language: the account's saved language, else the language cookie, else
 * Accept-Language, else English. Schema failures speak the spec's messages with the field's label.
 */
interface Failure {
  code: number;
  data: null;
  message: string;
  key?: string;
  params?: Record<string, unknown>;
}

// Ajv's own wording and the validation context it prefixes ("body/iccid must match pattern ...").
const VALIDATOR_TEXT = /\bmust (match|NOT|have|be)\b|\b(body|querystring|params|headers)\/|required property/;

describe('server messages by key, in the caller language', () => {
  let ts: TestServer;
  let token = '';

  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
    token = (await loginAsAdmin(ts)).token;
  });
  afterAll(async () => ts?.stop());

  async function call(method: 'GET' | 'POST' | 'DELETE', url: string, opts: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string } = {}): Promise<Failure> {
    const headers: Record<string, string> = { ...(opts.token ? { 'X-Token': opts.token } : {}), ...opts.headers };
    if (opts.body !== undefined || opts.raw !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetchFrom(ts.server.url, `${url}`, { method, headers, body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
    return (await res.json()) as Failure;
  }

  async function wrongPassword(headers: Record<string, string>): Promise<Failure> {
    const captcha = (await call('GET', '/login/captcha')) as unknown as { data: { id: string } };
    const authCode = ts.server.captcha.peekForTest(captcha.data.id) ?? '';
    return call('POST', '/login/userLogin', { headers, body: { username: 'admin', id: captcha.data.id, password: clientPasswordHash('Wrong_pass9'), authCode } });
  }

  it('answers a wrong password by key, in Chinese for a Chinese cookie or Accept-Language and in English otherwise', async () => {
    const english = await wrongPassword({});
    expect(english).toEqual({ code: 40002, data: null, message: 'Incorrect account or password', key: 'auth.wrongPassword' });
    expect(await wrongPassword({ 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8' })).toMatchObject({ message: '账号或密码错误', key: 'auth.wrongPassword' });
    expect(await wrongPassword({ Cookie: 'Admin-Token=x; language=zh' })).toMatchObject({ message: '账号或密码错误', key: 'auth.wrongPassword' });
    // The cookie (the console's choice) wins over the browser's language.
    expect(await wrongPassword({ Cookie: 'language=en', 'Accept-Language': 'zh-CN' })).toMatchObject({ message: 'Incorrect account or password' });
    // The higher q-value wins.
    expect(await wrongPassword({ 'Accept-Language': 'zh;q=0.3, en;q=0.9' })).toMatchObject({ message: 'Incorrect account or password' });
  });

  it("follows the account's saved language over the cookie and Accept-Language", async () => {
    const admin = client(ts, token);
    const parent = await createOrg(admin, { name: 'Messages Parent', account: 'msgparent', password: 'Parent_pw1' });
    await createOrg(admin, { name: 'Messages Child', account: 'msgchild', password: 'Child_pw1', parentId: parent });
    const del = (headers: Record<string, string>) => call('DELETE', '/org/del', { token, headers, body: { id: parent } });

    // Account language 2 (English) is saved for new accounts: it wins over a Chinese browser.
    expect(await del({ 'Accept-Language': 'zh-CN' })).toMatchObject({ code: 40001, key: 'org.hasChildren', message: 'The organisation still has child organisations: delete them first' });
    await admin.ok('POST', '/common/modify-language', { languageType: 1 });
    expect(await del({ Cookie: 'language=en', 'Accept-Language': 'en' })).toMatchObject({ code: 40001, key: 'org.hasChildren', message: '该组织下还有子组织，请先删除子组织' });
    await admin.ok('POST', '/common/modify-language', { languageType: 2 });
    expect(await del({})).toMatchObject({ message: 'The organisation still has child organisations: delete them first' });
  });

  it('gives a message with parameters its params, rendered the same way in both languages', async () => {
    const en = await call('POST', '/push-coupon/recharge', { token, body: { count: 1 } });
    expect(en).toMatchObject({ key: 'coupon.minRecharge', params: { min: 50 }, message: 'Push coupon recharge minimum 50' });
    await client(ts, token).ok('POST', '/common/modify-language', { languageType: 1 });
    const zh = await call('POST', '/push-coupon/recharge', { token, body: { count: 2 } });
    await client(ts, token).ok('POST', '/common/modify-language', { languageType: 2 });
    expect(zh).toMatchObject({ key: 'coupon.minRecharge', params: { min: 50 }, message: '推送券最少充值 50' });
  });

  it('answers an invalid activation code by key in both languages', async () => {
    const body = { code: 'NOPE-NOPE', sn: 'SN-MSG-1' };
    expect(await call('POST', '/isobus-activate/activate', { body })).toMatchObject({ key: 'licence.invalid', message: 'The activation code is invalid' });
    expect(await call('POST', '/isobus-activate/activate', { body: { ...body, sn: 'SN-MSG-2' }, headers: { 'Accept-Language': 'zh' } })).toMatchObject({ key: 'licence.invalid', message: '激活码无效' });
  });

  describe('schema failures', () => {
    it("name the field in the user's words with the spec's messages, never the validator's text", async () => {
      const zhHeaders = { Cookie: 'language=zh' };
      const iccid = { iccid: 'not-an-iccid', action: 'shutdown' };
      const badIccid = await call('POST', '/springCard/changeStatus', { token, body: iccid });
      expect(badIccid).toEqual({ code: 40001, data: null, message: 'ICCID incorrect', key: 'validation.incorrect', params: { field: { key: 'field.iccid' } } });

      const longName = await call('POST', '/org/add', { token, body: { name: 'x'.repeat(129), account: 'longname1', password: 'a'.repeat(64), roleId: 1 } });
      expect(longName).toMatchObject({ code: 40001, key: 'validation.maxLength', message: 'Name: length should be at most 128 characters', params: { field: { key: 'field.name' }, max: 128 } });

      // A public call, so the cookie decides the language.
      const missing = await call('GET', '/order-demand-detail/view?token=abc', { headers: zhHeaders });
      expect(missing).toMatchObject({ code: 40001, key: 'validation.empty', message: '编号不能为空！', params: { field: { key: 'field.number' } } });
      expect((await call('GET', '/order-demand-detail/view?token=abc')).message).toBe('Number cannot be empty!');

      const paging = await call('GET', '/notice/page?pageNum=0&pageSize=10', { token });
      expect(paging).toMatchObject({ key: 'validation.positiveInteger', message: 'Page number: Please enter a positive integer' });
      const pageSize = await call('GET', '/notice/page?pageNum=1&pageSize=7', { token });
      expect(pageSize).toMatchObject({ key: 'validation.option', message: 'Page size: Choose one of the listed options' });
      const numeric = await call('POST', '/org/freeze', { token, body: { id: 'one', freezeState: 2 } });
      expect(numeric).toMatchObject({ key: 'validation.numeric', message: 'ID: Please enter numeric value' });
      const unknown = await call('POST', '/org/freeze', { token, body: { id: 1, freezeState: 2, extra: true } });
      expect(unknown).toMatchObject({ key: 'validation.unknownField', message: "Unknown field 'extra'" });

      for (const f of [badIccid, longName, missing, paging, pageSize, numeric, unknown]) expect(f.message).not.toMatch(VALIDATOR_TEXT);
    });

    it('answers bad JSON by key instead of the parser text', async () => {
      const bad = await call('POST', '/org/freeze', { token, raw: '{"id": ', headers: { Cookie: 'language=zh' } });
      expect(bad).toMatchObject({ code: 40001, key: 'common.invalidJson', message: 'The request body is not valid JSON' });
      const anonymous = await call('POST', '/login/userLogin', { raw: '{"id": ', headers: { Cookie: 'language=zh' } });
      expect(anonymous).toMatchObject({ code: 40001, key: 'common.invalidJson', message: '请求内容不是有效的 JSON' });
    });

    it('has a label in the catalogue for every field of every documented request', async () => {
      const doc = (await (await fetchFrom(ts.server.url, `/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
      const missing = new Set<string>();
      const walk = (schema: Schema | undefined) => {
        if (!schema) return;
        for (const [name, sub] of Object.entries(schema.properties ?? {})) {
          if (!fieldLabelKey(name)) missing.add(name);
          walk(sub);
        }
        walk(schema.items);
        for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) walk(branch);
      };
      let fields = 0;
      for (const ops of Object.values(doc.paths)) {
        for (const op of Object.values(ops)) {
          for (const p of op.parameters ?? []) {
            fields++;
            if (!fieldLabelKey(p.name)) missing.add(p.name);
          }
          for (const content of Object.values(op.requestBody?.content ?? {})) walk(content.schema);
        }
      }
      expect(fields).toBeGreaterThan(100);
      expect([...missing]).toEqual([]);
    });
  });

  it('renders a field label in the language of the message around it', () => {
    const ref: MessageRef = { key: 'validation.empty', params: { field: { key: 'field.iccid' } } };
    expect(formatMessage('zh', ref.key, ref.params)).toBe('ICCID不能为空！');
  });
});

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Operation {
  parameters?: { name: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}
