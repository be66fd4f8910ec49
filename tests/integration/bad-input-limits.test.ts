import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Command, MAX_NESTING } from '../../protocol/index.ts';
import { dbTargets } from '../support/databases.ts';
import { loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';
import { adminLoginAt, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';

/**
 * Numbers and shapes that pass a JSON schema's type check yet broke the server (answered 500): a page
 * number so large its offset overflows the database's integers, and a body nested so deep that sending
 * it on overflows the stack. Each must answer a 4xxxx envelope naming the problem. And a failure nobody
 * expected must still answer the envelope, and be logged.
 */
const targets = await dbTargets();

/** A JSON object nesting `levels` levels deep (the object itself is level one), written as text. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

interface OpenApiDoc {
  paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>;
}

/** Every list call, from the OpenAPI document: those taking pageNum in the query or in a JSON body. */
async function pagedCalls(base: string): Promise<{ method: string; path: string; where: 'query' | 'body' }[]> {
  const doc = (await (await fetch(`${base}/openapi.json`)).json()) as OpenApiDoc;
  const calls: { method: string; path: string; where: 'query' | 'body' }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (path.includes('{')) continue;
    for (const [method, op] of Object.entries(ops)) {
      if (op.parameters?.some((p) => p.in === 'query' && p.name === 'pageNum')) calls.push({ method: method.toUpperCase(), path, where: 'query' });
      if (op.requestBody?.content?.['application/json']?.schema?.properties?.pageNum) calls.push({ method: method.toUpperCase(), path, where: 'body' });
    }
  }
  return calls;
}

for (const target of targets) {
  describe.skipIf(!target.available)(`bad input limits (${target.name})`, () => {
    let ts: TestServer;
    let token = '';
    const logged: { level: number; msg: string; err?: { message?: string } }[] = [];

    beforeAll(async () => {
      ts = await startTestServer(target.name, {}, { logger: { level: 'warn', stream: { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) } } });
      token = (await loginAsAdmin(ts)).token;
    });
    afterAll(async () => ts?.stop());

    const send = async (method: string, url: string, raw?: string) => {
      const res = await fetch(`${ts.server.url}${url}`, {
        method,
        headers: { 'X-Token': token, ...(raw === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: raw,
      });
      return { status: res.status, env: (await res.json()) as { code: number; message: string } };
    };

    it('answers pageNum=1e18 on every list call with a 4xxxx (naming pageNum), and a page past the end never with 500', async () => {
      const calls = await pagedCalls(ts.server.url);
      // The calls this was found on, so an OpenAPI change cannot quietly empty the list.
      expect(calls.map((c) => c.path)).toEqual(expect.arrayContaining(['/org/list', '/device/list', '/permit/getAdminList', '/notice/page', '/push/campaign/list']));
      const failures: string[] = [];
      for (const call of calls) {
        for (const pageNum of ['1e18', '1000000', '9007199254740993']) {
          const res =
            call.where === 'query' ? await send(call.method, `${call.path}?pageNum=${pageNum}&pageSize=10`) : await send(call.method, call.path, `{"pageNum":${pageNum},"pageSize":10}`);
          const label = `${call.method} ${call.path} (${call.where}) pageNum=${pageNum}: HTTP ${res.status} ${res.env.code} '${res.env.message}'`;
          if (res.status >= 500 || res.env.code >= 50000 || !res.env.message) failures.push(label);
          // A million may be an empty page past the end; 1e18 and 2^53+1 are no page at all. Another
          // required field of the call may be named first: any such refusal is a clear 4xxxx.
          else if (pageNum !== '1000000' && (res.env.code < 40000 || res.env.code >= 50000)) failures.push(label);
        }
      }
      expect(failures).toEqual([]);
      for (const url of ['/org/list', '/device/list', '/permit/getRoleList', '/push/campaign/list']) {
        expect((await send('POST', url, '{"pageNum":1e18,"pageSize":10}')).env).toEqual({ code: 40001, data: null, message: 'Page number: the value must not exceed 999999', key: 'validation.maximum', params: { field: { key: 'field.pageNum' }, limit: 999999 } });
      }
    });

    it(`refuses a body nested deeper than ${MAX_NESTING} levels with 40001 before any route sees it`, async () => {
      for (const levels of [5_000, MAX_NESTING + 1]) {
        // A device command whose data is the deep part: the route would send it on to the device.
        const command = `{"sn":"NOSUCHDEVICE","msgId":${Command.BaseInfo},"data":${nested(levels - 1)}}`;
        expect(await send('POST', '/device-ops/command', command)).toEqual({
          status: 400,
          env: { code: 40001, data: null, message: `The request body is nested deeper than ${MAX_NESTING} levels`, key: 'common.bodyTooDeep', params: { max: MAX_NESTING } },
        });
        expect((await send('POST', '/org/add', `{"name":${nested(levels - 1)}}`)).env.code).toBe(40001);
      }
      // At the limit the body is parsed and the route answers (here: no such device in the caller's scope).
      const atLimit = await send('POST', '/device-ops/command', `{"sn":"NOSUCHDEVICE","msgId":${Command.BaseInfo},"data":${nested(MAX_NESTING - 1)}}`);
      expect(atLimit.env).toMatchObject({ code: 40003 });
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
    });

    it('answers an unexpected failure with 50000 and logs it with its error', async () => {
      // A table gone from under the server: nothing in the code expects it.
      await sql`drop table notice_deliveries`.execute(ts.server.db);
      const res = await send('GET', '/notice/page?pageNum=1&pageSize=10');
      expect(res).toEqual({ status: 500, env: { code: 50000, data: null, message: 'Error', key: 'common.error' } });
      const entry = logged.find((l) => l.level >= 50 && l.msg === 'request failed');
      expect(entry?.err?.message).toMatch(/notice_deliveries/);
    });
  });
}

describe('the launcher (npm start)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-launcher-log-'));
  let node: WorkerNode | undefined;
  afterAll(async () => {
    await node?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs an unexpected 500 with its error without LOG_REQUESTS, and no request lines', async () => {
    node = await startWorkerNode(dataDir, 1, 0, { LOG_REQUESTS: '' });
    const { token } = await adminLoginAt(node.url);
    // The node writes in the background (presence, usage, the fleet's logins): wait for its write lock
    // to be free instead of failing on it ("database is locked" failed CI once).
    const file = new DatabaseSync(path.join(dataDir, 'control-center.sqlite'), { timeout: 10_000 });
    file.exec('drop table notice_deliveries');
    file.close();
    const res = await fetch(`${node.url}/notice/page?pageNum=1&pageSize=10`, { headers: { 'X-Token': token } });
    expect(res.status).toBe(500);
    await expect.poll(() => node?.output() ?? '').toMatch(/"level":50,.*notice_deliveries.*"msg":"request failed"/);
    expect(node.output()).not.toContain('"msg":"incoming request"');
  });
});
