import { describe, expect, it } from 'vitest';
import { checkAccount, checkCode, checkPassword } from './login-rules.ts';

describe('login rules', () => {
  it('account: required, a letter first, 4 to 16 word characters, trimmed', () => {
    expect(checkAccount('')).toBe('login.accountEmpty');
    expect(checkAccount('   ')).toBe('login.accountEmpty');
    expect(checkAccount('  admin ')).toBeUndefined();
    expect(checkAccount('adm')).toBe('login.accountRule');
    expect(checkAccount('1admin')).toBe('login.accountRule');
    expect(checkAccount('a'.repeat(16))).toBeUndefined();
    expect(checkAccount('a'.repeat(17))).toBe('login.accountRule');
  });

  it('password: required, 4 to 16 letters, digits or underscores', () => {
    expect(checkPassword('')).toBe('login.passwordEmpty');
    expect(checkPassword('abc')).toBe('login.passwordRule');
    expect(checkPassword('ab_12')).toBeUndefined();
    expect(checkPassword('ab-12')).toBe('login.passwordRule');
    expect(checkPassword('x'.repeat(17))).toBe('login.passwordRule');
  });

  it('verification code: required, at least 4 characters', () => {
    expect(checkCode('')).toBe('login.codeEmpty');
    expect(checkCode('abc')).toBe('login.codeRule');
    expect(checkCode('abcd')).toBeUndefined();
  });
});
