import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { LoginWriteClient, type LoginWriteIpcMessage, LoginWriter, serveLoginWrites } from './login-writes.ts';

/** One direction of an in-memory channel: what is sent is heard, cloned, by the listeners. */
function channel() {
  const handlers = new Set<(m: unknown) => void>();
  return {
    send: (m: unknown) => {
      for (const h of handlers) h(structuredClone(m));
    },
    listen: (h: (m: unknown) => void) => {
      handlers.add(h);
      return () => handlers.delete(h);
    },
  };
}

const info = { model: 'M1', systemType: 'linux', systemVersion: '1', imageVersion: 'img', networkType: 1 };

describe("a worker's login writes", () => {
  it('fail when the writer cannot read them, instead of waiting for an answer that never comes', async () => {
    const toPrimary = channel();
    const toWorker = channel();
    const db = await openDatabase({ dataDir: '', inMemory: true });
    serveLoginWrites(new LoginWriter(db), { send: (m: LoginWriteIpcMessage) => toWorker.send(m), listen: toPrimary.listen });
    const client = new LoginWriteClient({ send: (m) => toPrimary.send(m), listen: toWorker.listen });
    await expect(client.write({ op: 'online', sn: 'X'.repeat(65), info, now: 1, nodeId: null, bySecret: false })).rejects.toThrow(/malformed login write/);
    await db.destroy();
  });

  it('fail after the timeout when nobody answers, and a later answer changes nothing', async () => {
    const toPrimary = channel();
    const toWorker = channel();
    const client = new LoginWriteClient({ send: (m) => toPrimary.send(m), listen: toWorker.listen }, { timeoutMs: 40 });
    const heard: unknown[] = [];
    toPrimary.listen((m) => heard.push(m));
    await expect(client.write({ op: 'online', sn: 'S1', info, now: 1, nodeId: null, bySecret: false })).rejects.toThrow(/did not answer within 40 ms/);
    const id = (heard[0] as { id: number }).id;
    toWorker.send({ dcc: 'login.done', id, changed: true });
    // A write sent after the timeout is answered as usual.
    const next = client.write({ op: 'offline', sn: 'S1', now: 2, onlineSince: 1 });
    toWorker.send({ dcc: 'login.done', id: (heard[1] as { id: number }).id, changed: false });
    await expect(next).resolves.toBe(false);
  });
});
