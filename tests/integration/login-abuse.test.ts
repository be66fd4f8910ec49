import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../protocol/index.ts';
import { CaptchaStore } from '../../server/auth/captcha.ts';
import { NatsBus } from '../../server/bus/nats-bus.ts';
import { BUS_SUBJECTS, type CaptchaIssued, Subject } from '../../server/bus/subjects.ts';
import { HASH_QUEUE, HASH_SLOTS } from '../../server/auth/password.ts';
import { CAPTCHA_IMAGES_PER_MINUTE, LOGIN_ATTEMPTS_PER_MINUTE } from '../../server/auth/routes.ts';
import { Message } from '../../server/http/envelope.ts';
import { clientPasswordHash } from '../../server/seed.ts';
import { clusterServicesAvailable, TEST_NATS_URL } from '../support/cluster.ts';
import { type Envelope, startTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

const TOO_FREQUENT = { code: 40029, message: Message.TooFrequent };

/**
 * One API call over its own connection from a chosen loopback source address (any 127.x.y.z is this
 * host on Linux), so that a test can be several clients at different addresses.
 */
function callFrom<T>(from: string, base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Envelope<T>> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${base}${path}`,
      { method, localAddress: from, agent: false, headers: data === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text) as Envelope<T>);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('captcha flood', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer('sqlite');
  });
  afterAll(async () => ts?.stop());

  it("refuses images past the per-address budget with 'You click too frequently！', and another address's challenge still logs in", async () => {
    const base = ts.server.url;
    const user = await callFrom<{ id: string }>('127.0.0.2', base, 'GET', '/login/captcha');
    const answer = ts.server.captcha.peekForTest(user.data.id) ?? '';
    const flood: Envelope<{ id: string } | null>[] = [];
    // Bounded: a few hundred requests, ten at a time, from one other address.
    for (let i = 0; i < 20; i++) {
      flood.push(...(await Promise.all(Array.from({ length: 10 }, () => callFrom<{ id: string } | null>('127.0.0.3', base, 'GET', '/login/captcha')))));
    }
    const served = flood.filter((r) => r.code === 20000).length;
    expect(served).toBe(CAPTCHA_IMAGES_PER_MINUTE);
    for (const r of flood.filter((f) => f.code !== 20000)) expect(r).toMatchObject(TOO_FREQUENT);
    const login = await callFrom<{ token: string }>('127.0.0.2', base, 'POST', '/login/userLogin', {
      username: 'admin',
      id: user.data.id,
      password: clientPasswordHash(TEST_ADMIN_PASSWORD),
      authCode: answer,
    });
    expect(login.code).toBe(20000);
  });
});

describe('login attempts and password hashing', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer('sqlite', { LOGIN_CAPTCHA: 'off' });
  });
  afterAll(async () => ts?.stop());

  const attempt = (from: string, username: string, password = 'wrong_pass') =>
    callFrom(from, ts.server.url, 'POST', '/login/userLogin', { username, password: clientPasswordHash(password) });

  it("limits one address across account names: a new name per try is refused past the budget, other addresses are not", async () => {
    const answers: Envelope<unknown>[] = [];
    for (let i = 0; i < LOGIN_ATTEMPTS_PER_MINUTE + 10; i++) answers.push(await attempt('127.0.0.4', `guess${i}x`));
    expect(answers.slice(0, LOGIN_ATTEMPTS_PER_MINUTE).every((r) => r.message === 'Incorrect account or password')).toBe(true);
    for (const r of answers.slice(LOGIN_ATTEMPTS_PER_MINUTE)) expect(r).toMatchObject(TOO_FREQUENT);
    expect((await attempt('127.0.0.5', 'admin', TEST_ADMIN_PASSWORD)).code).toBe(20000);
  });

  it("runs a bounded number of password hashes at once and answers the excess 'You click too frequently！'", async () => {
    const capacity = HASH_SLOTS + HASH_QUEUE;
    // Three times what the gate holds, all at once, each from its own address and account name so that no
    // per-address budget is what refuses them.
    const answers = await Promise.all(Array.from({ length: 3 * capacity }, (_, i) => attempt(`127.0.${1 + Math.floor(i / 200)}.${10 + (i % 200)}`, `burst${i}x`)));
    const hashed = answers.filter((r) => r.message === 'Incorrect account or password').length;
    const refused = answers.filter((r) => r.code === TOO_FREQUENT.code);
    expect(hashed + refused.length).toBe(answers.length);
    expect(hashed).toBeGreaterThanOrEqual(capacity);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r).toMatchObject(TOO_FREQUENT);
    // Once the burst is over, a real login goes through.
    expect((await attempt('127.0.0.6', 'admin', TEST_ADMIN_PASSWORD)).code).toBe(20000);
  });
});

describe('captcha challenges between nodes', () => {
  it('are answered on another node over NATS, where only the keyed hash travels', async (ctx) => {
    if (!(await clusterServicesAvailable('captcha-over-NATS test'))) return ctx.skip();
    const prefix = `captcha${randomUUID().slice(0, 8)}`;
    const quiet = { warn: () => undefined };
    const [busA, busB] = await Promise.all([NatsBus.connect(TEST_NATS_URL, 'captcha-a', prefix, BUS_SUBJECTS, quiet), NatsBus.connect(TEST_NATS_URL, 'captcha-b', prefix, BUS_SUBJECTS, quiet)]);
    try {
      const heard: CaptchaIssued[] = [];
      busB.subscribe(Subject.captchaIssued, (m) => heard.push(m));
      const drew = new CaptchaStore(systemClock, busA);
      const answers = new CaptchaStore(systemClock, busB);
      // A subscription is live once the server has seen it: B's round trip to the server orders its SUBs
      // before A's publish (without it A can publish first and the challenge is never heard).
      await busB.flush();
      const { id } = drew.issue('192.0.2.1') ?? { id: '' };
      const text = drew.peekForTest(id) ?? '';
      await expect.poll(() => heard.length).toBe(1);
      await expect.poll(() => answers.openCount).toBe(1);
      expect(JSON.stringify(heard[0]).toLowerCase()).not.toContain(text);
      expect(answers.check(id, text)).toBe(true);
    } finally {
      await Promise.all([busA.close(), busB.close()]);
    }
  });
});
