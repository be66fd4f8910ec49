import { describe, expect, it } from 'vitest';
import { MAX_PARAMS, replyMessage, summariseParams } from './summary.ts';

describe('timeline parameter summary', () => {
  it('keeps short fields, masks secrets, shows free text by its length and elides nesting', () => {
    expect(summariseParams({ op: 'open', cols: 80, raw: true })).toBe('op=open cols=80 raw=true');
    expect(summariseParams({ user: 'root', password: 'hunter2', apiToken: 'x', privateKey: 'k' })).toBe('user=root password=*** apiToken=*** privateKey=***');
    expect(summariseParams({ text: 'a secret message', packages: ['a', 'b'], opts: { deep: 1 } })).toBe('text=(16) packages=[2] opts={…}');
    expect(summariseParams(undefined)).toBe('');
    expect(summariseParams({ a: 'x'.repeat(100), b: 'y'.repeat(100), c: 'z'.repeat(100), d: 'w'.repeat(100), e: 1 }).length).toBeLessThanOrEqual(MAX_PARAMS);
  });

  it('takes the reply message only when it is text', () => {
    expect(replyMessage({ message: 'Request Timeout' })).toBe('Request Timeout');
    expect(replyMessage({ message: 3 })).toBe('');
    expect(replyMessage(null)).toBe('');
  });
});
