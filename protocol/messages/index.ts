// Message catalogue: keys, the English and Chinese tables, and formatting (docs/DECISIONS.md, "Errors as keys").
export * from './format.ts';
export { englishOf, messageTables } from './english.ts';
// Each table on its own, for the console's language chunks (src/i18n/server-messages.ts).
export { en as messagesEn } from './en.ts';
export { zh as messagesZh } from './zh.ts';
export { ruleMessageKey } from './rules.ts';
