import { en } from './en.ts';
import type { PlainMessageKey } from './format.ts';
import type { MessageLanguage, MessageTable } from './types.ts';
import { zh } from './zh.ts';

/**
 * English texts of plain keys under readable names, for code and tests that compare or pass on the
 * English wording (it stays what it was before messages had keys).
 */
export function englishOf<const T extends Readonly<Record<string, PlainMessageKey>>>(keys: T): { readonly [P in keyof T]: (typeof en)[T[P]] } {
  const out: Record<string, string> = {};
  for (const [name, key] of Object.entries(keys)) out[name] = en[key];
  return out as { readonly [P in keyof T]: (typeof en)[T[P]] };
}

/** The catalogue's tables, for checks that walk every key. */
export const messageTables: Readonly<Record<MessageLanguage, MessageTable>> = { en, zh };
