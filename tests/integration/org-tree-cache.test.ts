import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { type RunningServer, startServer } from '../../server/server.ts';
import { client, type Client, createOrg } from '../support/console-api.ts';
import { dbTargets, freshPgSchema, postgresReachable, TEST_PG_URL } from '../support/databases.ts';
import { loginAs, loginAsAdmin, injectTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

/**
 * Nodes cache the organisation tree; these tests change the tree behind the API's back (straight SQL, as
 * another node, a script or a migration would) and expect the very next request to see the change.
 */
const targets = await dbTargets();
let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}${randomBytes(2).toString('hex')}`;

for (const target of targets) {
  describe.skipIf(!target.available)(`organisation tree cache (${target.name})`, () => {
    let ts: TestServer;
    let admin: Client;

    beforeAll(async () => {
      ts = await injectTestServer(target.name);
      admin = client(ts, (await loginAsAdmin(ts)).token);
    });
    afterAll(async () => ts?.stop());

    async function orgWithLogin(parentId?: number): Promise<{ id: number; c: Client }> {
      const account = unique('tree');
      const id = await createOrg(admin, { name: unique('Tree '), account, password: 'Tree_pw1', ...(parentId ? { parentId } : {}) });
      return { id, c: client(ts, (await loginAs(ts, account, 'Tree_pw1')).token) };
    }
    const listed = async (c: Client) => new Set((await c.ok<{ list: { id: number }[] }>('POST', '/org/list', { pageNum: 1, pageSize: 100 })).list.map((o) => o.id));

    it('an organisation inserted, moved or deleted in the database is in or out of scope on the next request', async () => {
      const a = await orgWithLogin();
      const b = await orgWithLogin();
      expect(await listed(a.c)).toEqual(new Set([a.id]));
      // Warm the cache for both callers, then change the tree without the API.
      const db = ts.server.db;
      const inserted = await db
        .insertInto('organisations')
        .values({ parent_id: a.id, name: unique('Direct '), enroll_key: randomBytes(12).toString('hex'), created_at: Date.now() })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(await listed(a.c)).toEqual(new Set([a.id, inserted.id]));
      expect((await a.c.call('GET', `/org/getOrg/${inserted.id}`)).code).toBe(20000);

      await db.updateTable('organisations').set({ parent_id: b.id }).where('id', '=', inserted.id).execute();
      expect((await a.c.call('GET', `/org/getOrg/${inserted.id}`)).code).toBe(40003);
      expect(await listed(a.c)).toEqual(new Set([a.id]));
      expect(await listed(b.c)).toEqual(new Set([b.id, inserted.id]));

      await db.deleteFrom('organisations').where('id', '=', inserted.id).execute();
      expect(await listed(b.c)).toEqual(new Set([b.id]));
    });

    it('a freeze written in the database ends the sessions below it on the next request', async () => {
      const parent = await orgWithLogin();
      const child = await orgWithLogin(parent.id);
      expect((await child.c.call('GET', '/home/getAccountDetail')).code).toBe(20000);
      await ts.server.db.updateTable('organisations').set({ freeze_state: 2 }).where('id', '=', parent.id).execute();
      expect((await child.c.call('GET', '/home/getAccountDetail')).code).toBe(3);
      await ts.server.db.updateTable('organisations').set({ freeze_state: 1 }).where('id', '=', parent.id).execute();
      expect((await child.c.call('GET', '/home/getAccountDetail')).code).toBe(20000);
    });

    it('an organisation added through the API is listed by the next request of every caller above it', async () => {
      const parent = await orgWithLogin();
      expect(await listed(parent.c)).toEqual(new Set([parent.id]));
      const childId = await createOrg(admin, { name: unique('Child '), account: unique('child'), password: 'Child_pw1', parentId: parent.id });
      expect(await listed(parent.c)).toEqual(new Set([parent.id, childId]));
    });
  });
}

const pgAvailable = await postgresReachable();

describe.skipIf(!pgAvailable)('organisation tree cache across two nodes sharing PostgreSQL', () => {
  const nodes: RunningServer[] = [];
  const dirs: string[] = [];
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const schema = await freshPgSchema();
    drop = schema.drop;
    for (let i = 0; i < 2; i++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tree-node-'));
      dirs.push(dataDir);
      nodes.push(
        await startServer(loadConfig({ PORT: '0', DATA_DIR: dataDir, ADMIN_PASSWORD: TEST_ADMIN_PASSWORD, SIM_DEVICES: '0', DATABASE_URL: TEST_PG_URL }), {
          pgSchema: schema.schema,
        }),
      );
    }
  });
  afterAll(async () => {
    for (const node of nodes) await node.close();
    await drop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an organisation created and frozen on node A is seen by node B on its next request', async () => {
    const [nodeA, nodeB] = nodes as [RunningServer, RunningServer];
    // loginAs and client need only the running server.
    const asNode = (node: RunningServer) => ({ server: node }) as TestServer;
    const adminA = client(asNode(nodeA), (await loginAsAdmin(asNode(nodeA))).token);
    const parent = await createOrg(adminA, { name: 'Cluster Parent', account: 'clusterparent', password: 'Parent_pw1' });
    // Node B caches the tree now, then node A adds a child and freezes the parent.
    const userB = client(asNode(nodeB), (await loginAs(asNode(nodeB), 'clusterparent', 'Parent_pw1')).token);
    expect((await userB.ok<{ list: { id: number }[] }>('POST', '/org/list', { pageNum: 1, pageSize: 10 })).list.map((o) => o.id)).toEqual([parent]);
    const child = await createOrg(adminA, { name: 'Cluster Child', account: 'clusterchild', password: 'Child_pw1', parentId: parent });
    expect((await userB.ok<{ list: { id: number }[] }>('POST', '/org/list', { pageNum: 1, pageSize: 10 })).list.map((o) => o.id)).toEqual([child, parent]);
    await adminA.ok('POST', '/org/freeze', { id: parent, freezeState: 2 });
    expect((await userB.call('GET', '/org/allOnline')).code).toBe(3);
  });
});
