import { describe, expect, it } from 'vitest';
import { en } from './locales/en.ts';
import { zh } from './locales/zh.ts';
import { pickLanguage } from './language.ts';

function keys(obj: object, prefix = ''): string[] {
  return Object.entries(obj).flatMap(([k, v]) => (typeof v === 'object' && v !== null ? keys(v as object, `${prefix}${k}.`) : [`${prefix}${k}`]));
}

describe('locales', () => {
  it('zh and en have the same keys, none empty', () => {
    expect(keys(zh).sort()).toEqual(keys(en).sort());
    for (const k of keys(zh)) expect(k.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown>)[p], zh)).not.toBe('');
  });

  it('default language: cookie, then browser, otherwise English', () => {
    expect(pickLanguage('zh', ['en-US'])).toBe('zh');
    expect(pickLanguage(undefined, ['zh-CN', 'en'])).toBe('zh');
    expect(pickLanguage(undefined, ['fr-FR'])).toBe('en');
    expect(pickLanguage('xx', [])).toBe('en');
  });
});
