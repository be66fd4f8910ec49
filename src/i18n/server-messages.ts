import type { MessageLanguage, MessageTable } from '../../protocol/index.ts';

/*
 * What protocol/messages/format.ts reads its tables through, in the console's build (vite.config.ts
 * resolves its import of protocol/messages/tables.ts here): the server message table of the one language
 * the console shows, fetched in the chunk of that language's base texts and set by src/i18n/index.ts
 * before the console renders (issue 21: both tables were 13 kB gzip of every page). The tests and the
 * dev server use protocol/messages/tables.ts, with both tables.
 */

let shown: { readonly lang: MessageLanguage; readonly table: MessageTable } | undefined;

/** Holds the table of the language the console shows. */
export function setServerMessages(lang: MessageLanguage, table: MessageTable): void {
  shown = { lang, table };
}

/** The table of `lang` when it is the language the console shows and its texts are in. */
export function messageTable(lang: MessageLanguage): MessageTable | undefined {
  return shown?.lang === lang ? shown.table : undefined;
}

/** True when `value` is a key of the catalogue (every table holds every key). */
export function isKnownKey(value: string): boolean {
  return shown !== undefined && Object.hasOwn(shown.table, value);
}
