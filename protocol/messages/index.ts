// Message catalogue: keys, the English and Chinese tables, and formatting (docs/DECISIONS.md, "Errors as keys").
export * from './format.ts';
export { englishOf, messageTables } from './english.ts';
export { ruleMessageKey } from './rules.ts';
