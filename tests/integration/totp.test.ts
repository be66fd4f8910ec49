import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientPasswordHash } from '../../server/seed.ts';
import { client, type Client, createAccount, createOrg, createRole } from '../support/console-api.ts';
import { api, loginAsAdmin, injectTestServer, type TestServer } from '../support/server.ts';

// Issue 23: a TOTP second factor (RFC 6238) per account, with recovery codes, required by organisation
// policy. The codes are made here with the same library an authenticator app's algorithm follows.

type LoginAnswer = { code: number; key?: string; data: { token: string; id: number; org: { id: number }; totpSetupRequired?: boolean } };

async function login(ts: TestServer, account: string, password: string, totpCode?: string): Promise<LoginAnswer> {
  const captcha = await api<{ id: string }>(ts.server.url, 'GET', '/login/captcha');
  const authCode = ts.server.captcha.peekForTest(captcha.data.id) ?? '';
  return (await api(ts.server.url, 'POST', '/login/userLogin', {
    body: { username: account, password: clientPasswordHash(password), id: captcha.data.id, authCode, ...(totpCode === undefined ? {} : { totpCode }) },
  })) as LoginAnswer;
}

/** The code an authenticator shows for `secret`, `offsetSteps` 30-second steps from now. */
function codeOf(secret: string, offsetSteps = 0): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
}

let serial = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36).slice(-5)}${(serial++).toString(36)}`;

describe('TOTP second factor', () => {
  let ts: TestServer;
  let admin: Client;
  let role: number;

  beforeAll(async () => {
    ts = await injectTestServer('sqlite');
    admin = client(ts, (await loginAsAdmin(ts)).token);
    role = await createRole(admin, unique('totprole'), ['device_list']);
  });
  afterAll(async () => {
    await ts?.stop();
  });

  /** An account with an enabled factor; returns its secret and recovery codes. */
  const enrolled = async (): Promise<{ account: string; secret: string; recoveryCodes: string[] }> => {
    const account = unique('tp');
    await createAccount(admin, account, 'Totp_pw1', role);
    const user = client(ts, (await login(ts, account, 'Totp_pw1')).data.token);
    const { secret, uri } = await user.ok<{ secret: string; uri: string }>('POST', '/totp/setup', {});
    expect(uri).toMatch(/^otpauth:\/\/totp\//);
    expect((await user.call('POST', '/totp/enable', { code: '000000' === codeOf(secret) ? '111111' : '000000' })).code).toBe(40001);
    const { recoveryCodes } = await user.ok<{ recoveryCodes: string[] }>('POST', '/totp/enable', { code: codeOf(secret) });
    expect(recoveryCodes).toHaveLength(10);
    expect(await user.ok('POST', '/totp/status', {})).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });
    return { account, secret, recoveryCodes };
  };

  it('an account with a second factor cannot log in without the code, nor with a wrong or reused one', async () => {
    const { account, secret } = await enrolled();
    const without = await login(ts, account, 'Totp_pw1');
    expect(without).toMatchObject({ code: 40002, key: 'auth.totpRequired' });
    const wrong = await login(ts, account, 'Totp_pw1', codeOf(secret, -5));
    expect(wrong).toMatchObject({ code: 40002, key: 'auth.totpWrong' });
    // The next step's code (the enable used this step's): accepted once, then refused as used.
    const next = codeOf(secret, 1);
    expect((await login(ts, account, 'Totp_pw1', next)).code).toBe(20000);
    expect(await login(ts, account, 'Totp_pw1', next)).toMatchObject({ code: 40002, key: 'auth.totpWrong' });
  });

  it('a recovery code logs in once', async () => {
    const { account, recoveryCodes } = await enrolled();
    const [first] = recoveryCodes;
    expect((await login(ts, account, 'Totp_pw1', first)).code).toBe(20000);
    expect((await login(ts, account, 'Totp_pw1', first)).key).toBe('auth.totpWrong');
  });

  it('an organisation requiring it: its accounts hold no key until they set it up, then need the code', async () => {
    const orgAccount = unique('tporg');
    const orgId = await createOrg(admin, { name: unique('Totp org '), account: orgAccount, password: 'Org_pw11' });
    await admin.ok('POST', '/org/totp-policy', { orgId, required: true });

    const first = await login(ts, orgAccount, 'Org_pw11');
    expect(first.code).toBe(20000);
    expect(first.data.totpSetupRequired).toBe(true);
    const user = client(ts, first.data.token);
    expect((await user.call('POST', '/device/list', {})).code).toBe(40003);
    expect(await user.ok('POST', '/totp/status', {})).toMatchObject({ enabled: false, required: true });

    const { secret } = await user.ok<{ secret: string }>('POST', '/totp/setup', {});
    await user.ok('POST', '/totp/enable', { code: codeOf(secret) });
    // The same session now holds its keys.
    expect((await user.call('POST', '/device/list', {})).code).toBe(20000);
    // It may not turn the factor off while its organisation requires it.
    expect((await user.call('POST', '/totp/disable', { code: codeOf(secret, 1) })).code).toBe(40003);
    expect((await login(ts, orgAccount, 'Totp_pw1')).code).not.toBe(20000);
    expect(await login(ts, orgAccount, 'Org_pw11')).toMatchObject({ code: 40002, key: 'auth.totpRequired' });
    expect((await login(ts, orgAccount, 'Org_pw11', codeOf(secret, 1))).code).toBe(20000);
  });

  it('turning it off needs a valid code; the policy is set only within the caller scope', async () => {
    const { account, secret, recoveryCodes } = await enrolled();
    const user = client(ts, (await login(ts, account, 'Totp_pw1', codeOf(secret, 1))).data.token);
    expect((await user.call('POST', '/totp/disable', { code: codeOf(secret, -5) })).code).toBe(40001);
    // A code of a step already used does not do either; a recovery code does.
    expect((await user.call('POST', '/totp/disable', { code: codeOf(secret, 1) })).code).toBe(40001);
    await user.ok('POST', '/totp/disable', { code: recoveryCodes[1] });
    expect((await login(ts, account, 'Totp_pw1')).code).toBe(20000);
    // An account without the organisation key cannot set a policy.
    expect((await user.call('POST', '/org/totp-policy', { orgId: 1, required: true })).code).toBe(40003);
  });
});
