import { describe, expect, it, vi } from 'vitest';
import { zh } from '../../protocol/messages/zh.ts';

// The console's build: format.ts reads its tables through server-messages.ts (vite.config.ts).
vi.mock('../../protocol/messages/tables.ts', () => import('./server-messages.ts'));

const { failureText, formatMessage, isMessageKey } = await import('../../protocol/messages/format.ts');
const { setServerMessages } = await import('./server-messages.ts');

describe('server messages in the console (one language)', () => {
  it('before the table is in: no key is known, a failure reads as the text the server sent', () => {
    expect(isMessageKey('common.error')).toBe(false);
    expect(failureText('zh', { key: 'common.tooFrequent', message: '您点击太频繁了！' })).toBe('您点击太频繁了！');
    expect(failureText('zh', { key: 'common.tooFrequent' })).toBeUndefined();
  });

  it('with the Chinese table: keys and the spec texts sent in English render in Chinese; English is not held', () => {
    setServerMessages('zh', zh);
    expect(isMessageKey('common.error')).toBe(true);
    expect(isMessageKey('no.such.key')).toBe(false);
    expect(failureText('zh', { key: 'common.tooFrequent', message: 'You click too frequently！' })).toBe(zh['common.tooFrequent']);
    expect(failureText('zh', { message: 'The equipment is offline' })).toBe(zh['device.offline']);
    expect(formatMessage('zh', 'common.error')).toBe(zh['common.error']);
    expect(() => formatMessage('en', 'common.error')).toThrow(/en message table is not loaded/);
    expect(failureText('en', { key: 'common.error', message: 'Error' })).toBe('Error');
  });
});
