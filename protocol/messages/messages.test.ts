import { describe, expect, it } from 'vitest';
import { AddressMessage } from '../rules/address-rules.ts';
import { IdentityMessage } from '../rules/identity-rules.ts';
import { en } from './en.ts';
import { englishOf, failureText, fieldLabelKey, formatMessage, isMessageKey, type MessageKey, messageTables, msg, ruleMessageKey } from './index.ts';
import { zh } from './zh.ts';

const keys = Object.keys(en) as MessageKey[];
const placeholders = (text: string) => [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
// Names and codes that read the same in both languages, and a message made only of its parameters.
const SAME_IN_BOTH = new Set<MessageKey>(['field.iccid', 'field.id', 'field.imei', 'field.msisdn', 'field.sku', 'demand.fieldProblem']);

describe('message catalogue', () => {
  it('has every key in English and Chinese, and nothing else', () => {
    expect(Object.keys(zh).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      expect(en[key].trim(), key).not.toBe('');
      expect(zh[key].trim(), key).not.toBe('');
    }
  });

  it('gives both languages of a key the same parameters', () => {
    for (const key of keys) expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
  });

  it('has Chinese text in the Chinese table, not English left untranslated', () => {
    for (const key of keys) {
      if (SAME_IN_BOTH.has(key)) continue;
      expect(zh[key], key).toMatch(/\p{Script=Han}/u);
    }
  });

  it("keeps the spec's wording of its messages exactly", () => {
    expect(en['common.tooFrequent']).toBe('You click too frequently！');
    expect(en['common.permissionDenied']).toBe('Permission denied or Session expire');
    expect(en['common.required']).toBe('This item cannot be empty!');
    expect(en['org.limitReached']).toBe('Limited new organizational structure,Please contact the administrator');
    expect(en['permit.roleNameTaken']).toBe('Role Name Already Exists');
    expect(en['identity.phone']).toBe('Please enter a correct 11-digit mobile phone number');
  });

  it('keys field labels by the request field they name', () => {
    expect(fieldLabelKey('iccid')).toBe('field.iccid');
    expect(fieldLabelKey('noSuchField')).toBeUndefined();
    expect(isMessageKey('org.hasChildren')).toBe(true);
    expect(isMessageKey('org.nope')).toBe(false);
    expect(isMessageKey('toString')).toBe(false);
  });
});

describe('formatMessage', () => {
  it('fills parameters, rendering a nested label in the same language', () => {
    const ref = msg('validation.maxLength', { field: { key: 'field.name' }, max: 128 });
    expect(formatMessage('en', ref.key, ref.params)).toBe('Name: length should be at most 128 characters');
    expect(formatMessage('zh', ref.key, ref.params)).toBe('名称：长度不能超过 128 个字符');
    expect(formatMessage('en', 'validation.incorrect', { field: { key: 'field.iccid' } })).toBe('ICCID incorrect');
    expect(formatMessage('zh', 'auth.locked', { minutes: 15 })).toBe('登录失败次数过多，账号已锁定，请 15 分钟后再试');
  });

  it('leaves a missing parameter visible instead of dropping it', () => {
    expect(formatMessage('en', 'auth.locked', {})).toContain('{{minutes}}');
  });

  it('checks keys and parameters at compile time', () => {
    // @ts-expect-error: not a key of the catalogue
    msg('org.noSuchMessage');
    // @ts-expect-error: auth.locked takes {minutes}
    msg('auth.locked');
    // @ts-expect-error: a parameter the message does not have
    msg('auth.locked', { minutes: 1, hours: 2 });
    // @ts-expect-error: a plain key takes no parameters
    msg('org.hasChildren', { x: 1 });
    expect(msg('org.hasChildren')).toEqual({ key: 'org.hasChildren' });
  });

  it('gives English views under readable names', () => {
    expect(englishOf({ Gone: 'org.gone' })).toEqual({ Gone: 'The organisation no longer exists' });
  });
});

describe('failureText', () => {
  it('renders a key with its params, the spec messages sent as text, and keeps other text as sent', () => {
    expect(failureText('zh', { key: 'org.hasChildren', message: 'The organisation still has child organisations: delete them first' })).toBe('该组织下还有子组织，请先删除子组织');
    expect(failureText('zh', { key: 'coupon.minRecharge', params: { min: 50 } })).toBe('推送券最少充值 50');
    // A gateway refusal carries the spec's text only.
    expect(failureText('zh', { message: 'Permission denied or Session expire' })).toBe('权限不足或会话已过期');
    expect(failureText('zh', { message: 'You click too frequently！' })).toBe('您点击太频繁了！');
    expect(failureText('zh', { message: 'Request Timeout' })).toBe('请求超时');
    expect(failureText('en', { message: 'Request Timeout' })).toBe('Request Timeout');
    // A push target's stored message, and a device refusal the console gives in the spec's words.
    expect(failureText('zh', { message: 'The equipment is offline' })).toBe('设备不在线');
    expect(failureText('zh', { message: 'Linux devices cannot do this' })).toBe('Linux 设备不支持此操作');
    expect(failureText('zh', { message: 'exit status 2' })).toBe('exit status 2');
    // A key from a newer server falls back to its message.
    expect(failureText('zh', { key: 'org.fromTheFuture', message: 'Something new' })).toBe('Something new');
    expect(failureText('zh', {})).toBeUndefined();
  });
});

describe('rule answers as keys', () => {
  it('maps every identity and address rule message to the key with the same English', () => {
    for (const text of [...Object.values(IdentityMessage), ...Object.values(AddressMessage)]) {
      expect(messageTables.en[ruleMessageKey(text)]).toBe(text);
    }
  });
});
