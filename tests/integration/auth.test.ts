import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { api, loginAsAdmin, injectTestServer, TEST_ADMIN_PASSWORD, type TestServer } from '../support/server.ts';

describe('login', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
  });
  afterAll(async () => ts?.stop());

  const login = (body: Record<string, string>) => api<{ token: string }>(ts.server.url, 'POST', '/login/userLogin', { body });

  it('serves a real captcha image and refuses a wrong code with the spec message', async () => {
    const captcha = await api<{ id: string; image: string; enabled: boolean }>(ts.server.url, 'GET', '/login/captcha');
    expect(captcha.data.enabled).toBe(true);
    expect(captcha.data.image.startsWith('data:image/gif;base64,')).toBe(true);
    const gif = Buffer.from(captcha.data.image.replace('data:image/gif;base64,', ''), 'base64');
    expect(gif.subarray(0, 6).toString('latin1')).toBe('GIF89a');
    const res = await login({ username: 'admin', id: captcha.data.id, password: clientPasswordHash(TEST_ADMIN_PASSWORD), authCode: 'zzzz' });
    expect(res.message).toBe('Verification Code Error!');
  });

  it('spends a captcha on use, so the same code cannot log in twice', async () => {
    const captcha = await api<{ id: string }>(ts.server.url, 'GET', '/login/captcha');
    const code = ts.server.captcha.peekForTest(captcha.data.id) ?? '';
    const body = { username: 'admin', id: captcha.data.id, password: clientPasswordHash(TEST_ADMIN_PASSWORD), authCode: code };
    expect((await login(body)).code).toBe(20000);
    expect((await login(body)).message).toBe('Verification Code Error!');
  });

  it('gives the spec messages for empty account and password', async () => {
    expect((await login({ username: ' ', password: 'x' })).message).toBe('Account cannot be empty!');
    expect((await login({ username: 'admin', password: '' })).message).toBe('Password cannot be empty!');
  });

  it('refuses a wrong password without saying whether the account exists', async () => {
    for (const username of ['admin', 'nobody']) {
      const captcha = await api<{ id: string }>(ts.server.url, 'GET', '/login/captcha');
      const code = ts.server.captcha.peekForTest(captcha.data.id) ?? '';
      const res = await login({ username, id: captcha.data.id, password: clientPasswordHash('wrong_pass'), authCode: code });
      expect(res).toMatchObject({ code: 40002, message: 'Incorrect account or password', data: null });
    }
  });

  it('returns the login response shape of the spec and the account detail', async () => {
    const { token } = await loginAsAdmin(ts);
    const detail = await api<{ account: string; roles: string[]; permissionList: string[]; updatePasswordLastTime: number }>(ts.server.url, 'GET', '/home/getAccountDetail', { token });
    expect(detail.code).toBe(20000);
    expect(detail.data.account).toBe('admin');
    expect(detail.data.roles).toEqual(['admin']);
    expect(detail.data.permissionList).toContain('device_list');
    expect(detail.data.updatePasswordLastTime).toBeGreaterThan(0);
  });

  it('stores only a slow hash of the password and a digest of the token', async () => {
    const { token } = await loginAsAdmin(ts);
    const account = await ts.server.db.selectFrom('accounts').select('password_hash').where('account', '=', 'admin').executeTakeFirstOrThrow();
    expect(account.password_hash).toMatch(/^scrypt\$/);
    const sessions = await ts.server.db.selectFrom('sessions').select('token_hash').execute();
    expect(sessions.map((s) => s.token_hash)).not.toContain(token);
  });
});

describe('login captcha switch', () => {
  it('LOGIN_CAPTCHA=off lets automation log in without a code', async () => {
    const ts = await injectTestServer('sqlite', { LOGIN_CAPTCHA: 'off' });
    try {
      const captcha = await api<{ enabled: boolean }>(ts.server.url, 'GET', '/login/captcha');
      expect(captcha.data.enabled).toBe(false);
      const res = await api(ts.server.url, 'POST', '/login/userLogin', { body: { username: 'admin', password: clientPasswordHash(TEST_ADMIN_PASSWORD) } });
      expect(res.code).toBe(20000);
    } finally {
      await ts.stop();
    }
  });
});

describe('login abuse guards', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await injectTestServer('sqlite', { LOGIN_CAPTCHA: 'off' });
  });
  afterAll(async () => ts?.stop());

  const login = (username: string, password: string) =>
    api(ts.server.url, 'POST', '/login/userLogin', { body: { username, password: clientPasswordHash(password) } });

  it('locks an account after 5 wrong passwords, even against the right one', async () => {
    for (let i = 0; i < 5; i++) expect((await login('admin', 'wrong_pass')).message).toBe('Incorrect account or password');
    const res = await login('admin', TEST_ADMIN_PASSWORD);
    expect(res.code).toBe(40002);
    expect(res.message).toMatch(/^Too many failed logins: account locked, try again in 15 minutes$/);
  });
  // The per-address limits, the hash concurrency bound and the captcha flood: tests/integration/login-abuse.test.ts.
});
