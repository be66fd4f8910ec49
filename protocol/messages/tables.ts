import { en } from './en.ts';
import type { MessageLanguage, MessageTable } from './types.ts';
import { zh } from './zh.ts';

/*
 * The tables format.ts reads, behind two functions: the server, the worker and the tests hold both
 * languages. The console's build resolves format.ts's import of this module to
 * src/i18n/server-messages.ts, which holds only the table of the language the console shows, fetched
 * with that language's texts (vite.config.ts; issue 21: both tables were 13 kB gzip of every page).
 */

/** A language's table; undefined when this process does not hold it. */
export function messageTable(lang: MessageLanguage): MessageTable | undefined {
  return lang === 'zh' ? zh : en;
}

/** True when `value` is a key of the catalogue (every table holds every key). */
export function isKnownKey(value: string): boolean {
  return Object.hasOwn(en, value);
}
