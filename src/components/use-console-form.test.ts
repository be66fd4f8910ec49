import { describe, expect, it, vi } from 'vitest';

// The console's modules read cookies as they load; Node has no document (the unit project runs in Node).
vi.hoisted(() => {
  Object.assign(globalThis, { document: { cookie: '', documentElement: {}, title: '' } });
});
import { RequestError } from '../api/request.ts';
import { rules, serverField } from './use-console-form.ts';

describe('form pattern rules and server errors', () => {
  it('answers the spec rules with i18n keys; optional email and phone pass when empty', () => {
    expect(rules.required()('  ', {})).toEqual({ key: 'kit.form.required' });
    expect(rules.required()('x', {})).toBeUndefined();
    expect(rules.maxLength(3)('abcd', {})).toEqual({ key: 'kit.form.tooLong', params: { max: 3 } });
    expect(rules.maxLength(3).max).toBe(3);
    expect(rules.noEmoji()('ok 😀', {})).toEqual({ key: 'kit.form.noEmoji' });
    expect(rules.noEmoji()('Acme® ™', {})).toBeUndefined();
    expect(rules.noChinese()('公钥', {})).toEqual({ key: 'kit.form.noChinese' });
    expect(rules.email()('', {})).toBeUndefined();
    expect(rules.email()('a@b', {})).toBeUndefined();
    expect(rules.email()('not an email', {})).toEqual({ key: 'kit.form.email' });
    expect(rules.phone()('13800138000', {})).toBeUndefined();
    expect(rules.phone()('12345', {})).toEqual({ key: 'kit.form.phone' });
    const minutes = rules.integer(5, 100);
    expect(minutes('5', {})).toBeUndefined();
    expect(minutes(' 100 ', {})).toBeUndefined();
    for (const bad of ['', '4', '101', '7.5', '-6', '1e2', 'ten']) expect(minutes(bad, {})).toEqual({ key: 'kit.form.integer', params: { min: 5, max: 100 } });
  });

  it('maps a server failure onto the field its parameters name, or by its key', () => {
    const named = new RequestError('Name cannot be empty!', 40001, { key: 'validation.empty', params: { field: { key: 'field.name' } } });
    expect(serverField(named, ['name', 'alias'])).toBe('name');
    expect(serverField(named, ['alias'])).toBeUndefined();
    const taken = new RequestError('Account Already Exists', 40001, { key: 'account.taken' });
    expect(serverField(taken, ['account'], { 'account.taken': 'account' })).toBe('account');
    expect(serverField(new Error('x'), ['name'])).toBeUndefined();
  });
});
