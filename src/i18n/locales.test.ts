import { describe, expect, it } from 'vitest';
import { en } from './locales/en.ts';
import { zh } from './locales/zh.ts';
import { pickLanguage } from './language.ts';
import { en as serverEn } from '../../protocol/messages/en.ts';
import { zh as serverZh } from '../../protocol/messages/zh.ts';

function keys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) => (typeof v === 'object' && v !== null ? keys(v as object, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

/** Every text of a catalogue by its dotted key. */
function texts(obj: object, prefix = ''): [string, string][] {
  return Object.entries(obj).flatMap(([k, v]): [string, string][] => (typeof v === 'object' && v !== null ? texts(v as object, `${prefix}${k}.`) : [[`${prefix}${k}`, String(v)]]));
}

/** English texts whose Chinese rightly depends on where they stand (a count of devices vs of items; a label vs a count). */
const CONTEXT_DEPENDENT = new Set(['and {{count}} more']);

describe('locales', () => {
  it('zh and en have the same keys, none empty', () => {
    expect(keys(zh).sort()).toEqual(keys(en).sort());
    for (const k of keys(zh)) expect(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], zh)).not.toBe('');
  });

  it('one English text reads the same in Chinese wherever it stands, in the console and in the server\'s messages', () => {
    // A user meets the console's check and the server's refusal of the same input; two wordings of one message
    // read as two different problems ("旧密码不正确" on blur, "原密码不正确" from the server).
    const zhOf = new Map([...texts(zh), ...Object.entries(serverZh).map(([k, v]): [string, string] => [`server:${k}`, v])]);
    const byEnglish = new Map<string, Map<string, string[]>>();
    for (const [key, english] of [...texts(en), ...Object.entries(serverEn).map(([k, v]): [string, string] => [`server:${k}`, v])]) {
      const chinese = zhOf.get(key);
      // Sentences only: a one- or two-word label ("Type", "Devices") rightly reads differently as a column, a count or a menu.
      if (chinese === undefined || CONTEXT_DEPENDENT.has(english) || english.trim().split(/\s+/).length < 3) continue;
      const seen = byEnglish.get(english) ?? new Map<string, string[]>();
      seen.set(chinese, [...(seen.get(chinese) ?? []), key]);
      byEnglish.set(english, seen);
    }
    const differing = [...byEnglish].filter(([, seen]) => seen.size > 1).map(([english, seen]) => `${english}: ${[...seen].map(([c, ks]) => `${c} (${ks.join(', ')})`).join(' / ')}`);
    expect(differing).toEqual([]);
  });

  it('default language: cookie, then browser, otherwise English', () => {
    expect(pickLanguage('zh', ['en-US'])).toBe('zh');
    expect(pickLanguage(undefined, ['zh-CN', 'en'])).toBe('zh');
    expect(pickLanguage(undefined, ['fr-FR'])).toBe('en');
    expect(pickLanguage('xx', [])).toBe('en');
  });
});
