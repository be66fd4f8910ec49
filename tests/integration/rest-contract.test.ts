// Issue 17 part 1, "REST contract once": every request schema (body, query string, path parameters) and
// response schema a route validates with is an object exported by a contract module, protocol/api/<area>.ts
// (TypeBox, types derived from the schema), and the console's calls (src/api/<area>.ts) declare no body or
// answer shape of their own: they import the contract's types. Areas not moved yet sit in the allowlists
// below, which must only shrink.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../server/http/route-registry.ts';
import { api, fetchFrom, injectTestServer, loginAsAdmin, type TestServer } from '../support/server.ts';

const root = path.resolve(import.meta.dirname, '../..');
const CONTRACT_DIR = path.join(root, 'protocol/api');
const CONSOLE_API_DIR = path.join(root, 'src/api');

/**
 * Routes whose schemas still live in server/ (not migrated yet). Only shrinks: it is empty since every area
 * moved (the last ones: commerce, cards, content, orgs, the operation log and auth); a new area starts in
 * protocol/api, never here.
 */
const ROUTES_NOT_YET_MIGRATED: readonly RegExp[] = [];

/**
 * Console call modules that still declare shapes of their own (a whole file, or `file#Name` for one
 * declaration). Only shrinks; empty since every area moved.
 */
const CONSOLE_NOT_YET_MIGRATED: readonly string[] = [];

/** Console modules that are not calls of an area: the request helper itself, the push progress stream and the resumable upload client. */
const CONSOLE_INFRASTRUCTURE: readonly string[] = ['request.ts', 'push-stream.ts', 'upload-file.ts'];

/** Interfaces and object type aliases declared in a console call module (a derived type is an alias of a contract type). */
function declarations(file: string): { name: string; line: number; text: string }[] {
  const abs = path.join(CONSOLE_API_DIR, file);
  if (!fs.existsSync(abs)) return [];
  return fs
    .readFileSync(abs, 'utf8')
    .split('\n')
    .flatMap((text, i) => {
      const m = /^\s*(?:export\s+)?(?:interface\s+(\w+)|type\s+(\w+)(?:<[^=]*>)?\s*=\s*\{)/.exec(text);
      return m ? [{ name: m[1] ?? m[2] ?? '', line: i + 1, text: text.trim() }] : [];
    });
}

/** Every object reachable from the contract modules' exports: the schemas and their parts. */
async function contractObjects(): Promise<Set<object>> {
  const seen = new Set<object>();
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== 'object' || value === null || seen.has(value) || depth > 8) return;
    seen.add(value);
    for (const child of Object.values(value)) visit(child, depth + 1);
  };
  for (const file of fs.readdirSync(CONTRACT_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const mod: Record<string, unknown> = await import(path.join(CONTRACT_DIR, file));
    for (const value of Object.values(mod)) visit(value, 0);
  }
  return seen;
}

/** The answers' response schemas the contract modules declare: exports named `...Reply` (by schema object). */
async function replySchemas(): Promise<Map<object, string>> {
  const replies = new Map<object, string>();
  for (const file of fs.readdirSync(CONTRACT_DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const mod: Record<string, unknown> = await import(path.join(CONTRACT_DIR, file));
    for (const [name, value] of Object.entries(mod)) if (name.endsWith('Reply') && typeof value === 'object' && value !== null && !replies.has(value)) replies.set(value, `${file}#${name}`);
  }
  return replies;
}

/** The area of a route: its first path segment (/device-field/list -> device-field). */
const areaOf = (url: string) => url.split('/')[1] ?? '';

describe('REST contract (protocol/api)', () => {
  let ts: TestServer;
  let contract: Set<object>;
  beforeAll(async () => {
    [ts, contract] = await Promise.all([injectTestServer('sqlite'), contractObjects()]);
  });
  afterAll(async () => ts?.stop());

  it('every route validates its body, query string, path parameters and answers with schemas of protocol/api', () => {
    const foreign: string[] = [];
    const migrated = new Set<string>();
    for (const route of registeredRoutes(ts.server.app)) {
      if (ROUTES_NOT_YET_MIGRATED.some((re) => re.test(route.url))) continue;
      const schema = route.schema ?? {};
      const parts: [string, unknown][] = [
        ['body', schema.body],
        ['querystring', schema.querystring],
        ['params', schema.params],
        ...Object.entries((schema.response ?? {}) as Record<string, unknown>).map(([status, s]): [string, unknown] => [`response ${status}`, s]),
      ];
      for (const [part, value] of parts) {
        if (value === undefined) continue;
        if (typeof value === 'object' && value !== null && contract.has(value)) migrated.add(`${route.method} ${route.url}`);
        else foreign.push(`${route.method} ${route.url}: ${part}`);
      }
    }
    expect(foreign, 'schemas declared outside protocol/api').toEqual([]);
    // The check must see the migrated areas' routes, or it proves nothing.
    expect([...migrated]).toEqual(expect.arrayContaining(['POST /device/list', 'POST /device/select', 'POST /device/remark', 'POST /archives-document/save', 'POST /notice/publish', 'GET /notice/page', 'GET /report/abnormal', 'POST /push/start', 'POST /push-coupon/ledger', 'POST /device-ops/command', 'POST /permit/addAccount', 'DELETE /permit/delRole/:id', 'POST /pay-data/createOrder', 'GET /link-card-order/list', 'GET /iso-bus/list', 'POST /order-requirements/add', 'POST /true-point/account/add', 'POST /api-token/create', 'POST /webhook/add', 'GET /springCard/list', 'POST /linkCard/bindGroup', 'GET /zxj/list', 'POST /linkCard/addDirectionalAddress', 'POST /img/add', 'POST /file/list', 'DELETE /app/delete', 'POST /custom-made-img/transition', 'POST /org/add', 'POST /org/freeze', 'GET /org/getOrg/:orgId', 'POST /operation-log/list', 'GET /operation-log/export', 'POST /login/userLogin', 'POST /common/modify-language', 'POST /totp/enable']));
  });

  it('every reply schema of a contract answers a route, and in an area with reply contracts every route answers through one', async () => {
    const replies = await replySchemas();
    const routes = registeredRoutes(ts.server.app);
    const answered = new Set<object>();
    const areas = new Set<string>();
    for (const route of routes) {
      const ok = (route.schema?.response as Record<string, unknown> | undefined)?.[200];
      if (typeof ok === 'object' && ok !== null && replies.has(ok)) {
        answered.add(ok);
        areas.add(areaOf(route.url));
      }
    }
    // A reply declared in protocol/api but registered by no route is a contract the server does not keep.
    expect([...replies].filter(([schema]) => !answered.has(schema)).map(([, name]) => name), 'reply schemas no route registers').toEqual([]);
    // Fastify serialises through a response schema (unknown fields dropped): a route of such an area without one would answer unchecked.
    const unanswered = routes.filter((r) => areas.has(areaOf(r.url)) && !(r.schema?.response as Record<string, unknown> | undefined)?.[200]).map((r) => `${r.method} ${r.url}`);
    expect(unanswered, 'routes of an area with reply contracts that register no response schema').toEqual([]);
    // The check must see the areas moved so far, or it proves nothing.
    expect([...areas]).toEqual(expect.arrayContaining(['device-field', 'approval']));
  });

  it('the allowlist of routes not yet migrated only names routes that still need it', () => {
    const routes = registeredRoutes(ts.server.app);
    const stale = ROUTES_NOT_YET_MIGRATED.filter((re) => {
      const matched = routes.filter((r) => re.test(r.url));
      const parts = matched.flatMap((r) => [r.schema?.body, r.schema?.querystring, r.schema?.params, ...Object.values((r.schema?.response ?? {}) as Record<string, unknown>)]);
      return parts.filter((p) => p !== undefined).every((p) => typeof p === 'object' && p !== null && contract.has(p));
    });
    expect(stale.map(String), 'areas all of whose schemas come from protocol/api: take them off the allowlist').toEqual([]);
  });

  it("no console call module declares a body or answer shape of its own (it imports the contract's types)", () => {
    const local: string[] = [];
    for (const file of fs.readdirSync(CONSOLE_API_DIR).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))) {
      if (CONSOLE_NOT_YET_MIGRATED.includes(file) || CONSOLE_INFRASTRUCTURE.includes(file)) continue;
      for (const d of declarations(file)) if (!CONSOLE_NOT_YET_MIGRATED.includes(`${file}#${d.name}`)) local.push(`src/api/${file}:${d.line}: ${d.text}`);
    }
    expect(local).toEqual([]);
    const stale = CONSOLE_NOT_YET_MIGRATED.filter((entry) => {
      const [file = '', name] = entry.split('#');
      const found = declarations(file);
      return name === undefined ? found.length === 0 : !found.some((d) => d.name === name);
    });
    expect(stale, 'console modules that declare no shape any more: take them off the allowlist').toEqual([]);
  });

  it("schema failures of the moved areas still answer with the spec's messages, naming the field", async () => {
    const { token } = await loginAsAdmin(ts);
    const cases: [method: 'GET' | 'POST', url: string, body: unknown, key: string, message: string][] = [
      ['POST', '/device/list', { onlineState: 3 }, 'validation.option', 'Choose one of the listed options'],
      ['POST', '/device/remark', { remark: 'r' }, 'validation.empty', 'cannot be empty!'],
      ['POST', '/device/list', { pageSize: 7 }, 'validation.option', 'Choose one of the listed options'],
      ['POST', '/archives-category/save', { nameZh: 'a', nameEn: 'a', parentId: 'x' }, 'validation.numeric', 'Please enter numeric value'],
      ['POST', '/notice/publish', { title: 'T'.repeat(129), content: 'c' }, 'validation.maxLength', 'at most 128 characters'],
      ['POST', '/permit/addRole', { name: 'r', permissionList: [], extra: 1 }, 'validation.unknownField', "Unknown field 'extra'"],
      ['GET', '/report/abnormal?pageSize=7', undefined, 'validation.option', 'Choose one of the listed options'],
      ['GET', '/device-ops/pending', undefined, 'validation.empty', 'cannot be empty!'],
      // Areas answering through a response schema: a failure's key and parameters pass the serialiser.
      ['POST', '/device-field/add', { name: 'N'.repeat(65), type: 'text' }, 'validation.maxLength', 'at most 64 characters'],
      ['POST', '/approval/list', { state: 'gone' }, 'validation.option', 'Choose one of the listed options'],
    ];
    for (const [method, url, body, key, message] of cases) {
      const res = (await api<null>(ts.server.url, method, url, { token, body })) as Awaited<ReturnType<typeof api<null>>> & { key?: string; params?: Record<string, unknown> };
      expect({ url, code: res.code, key: res.key }).toEqual({ url, code: 40001, key });
      if (url.startsWith('/device-field/')) expect(res.params, 'the parameters of a failure answered through a response schema').toMatchObject({ max: 64 });
      expect(res.message).toContain(message);
      // Never the validator's own words.
      expect(res.message).not.toMatch(/must (match|be|have|NOT)|body\/|querystring/);
    }
  });

  it('the OpenAPI document carries the contract schemas (request bodies, query strings, path parameters)', async () => {
    type Op = { requestBody?: { content: Record<string, { schema: { properties?: Record<string, { enum?: unknown[] }> } }> }; parameters?: { name: string; in: string }[] };
    const doc = (await (await fetchFrom(ts.server.url, `/openapi.json`)).json()) as { paths: Record<string, Record<string, Op>> };
    const listBody = doc.paths['/device/list']?.post?.requestBody?.content['application/json']?.schema;
    expect(listBody?.properties?.sortField?.enum).toContain('battery');
    expect(Object.keys(listBody?.properties ?? {})).toEqual(expect.arrayContaining(['pageNum', 'pageSize', 'sn', 'batteryMax']));
    expect(doc.paths['/report/abnormal']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(['query:pageSize', 'query:cpuMin', 'query:period']));
    expect(doc.paths['/notice/detail/{id}']?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id']);
  });
});
