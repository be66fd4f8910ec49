import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { api, TEST_ADMIN_PASSWORD } from '../support/server.ts';
import { adminLoginAt, startWorkerNode, type WorkerNode } from '../support/worker-node.ts';

/** Waits until the node has printed `count` lines matching `pattern` (pino writes as requests end). */
async function linesMatching(node: WorkerNode, pattern: RegExp, count: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const lines = node.output().split('\n').filter((l) => pattern.test(l));
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`fewer than ${count} lines match ${pattern}:\n${node.output()}`);
}

describe('request log (LOG_REQUESTS=1)', () => {
  let node: WorkerNode;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dcc-request-log-'));
    // Started as an operator starts it (server/main.ts), so the log is the real one on the process's stdout.
    node = await startWorkerNode(dataDir, 1, 0, { LOG_REQUESTS: '1' });
  });
  afterAll(async () => {
    await node?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('never prints the password hash of /org/authorizationPassword/{password}, nor a token in a query', async () => {
    const { token } = await adminLoginAt(node.url);
    const hash = clientPasswordHash(TEST_ADMIN_PASSWORD);
    const wrong = clientPasswordHash('not_it');
    // The spec's GET still answers, and so does the console's POST twin with the hash in the body.
    expect((await api<boolean>(node.url, 'GET', `/org/authorizationPassword/${hash}`, { token })).data).toBe(true);
    expect((await api<boolean>(node.url, 'GET', `/org/authorizationPassword/${wrong}?x=1`, { token })).data).toBe(false);
    expect((await api<boolean>(node.url, 'POST', '/org/authorizationPassword', { token, body: { password: hash } })).data).toBe(true);
    expect((await api<boolean>(node.url, 'POST', '/org/authorizationPassword', { token, body: { password: wrong } })).data).toBe(false);
    // A path no route matches: Fastify's "Route GET:… not found" message names the URL.
    await fetch(`${node.url}/org/authorizationPassword/${wrong}/more`, { headers: { 'X-Token': token } });
    await fetch(`${node.url}/home/getAccountDetail?token=${token}`);

    const incoming = await linesMatching(node, /authorizationPassword/, 6);
    expect(incoming.some((l) => l.includes('/org/authorizationPassword/[redacted]'))).toBe(true);
    await linesMatching(node, /getAccountDetail\?token=\[redacted\]/, 1);
    const output = node.output();
    expect(output).toContain('not found');
    for (const secret of [hash, wrong, token]) expect(output).not.toContain(secret);
  });
});
