// Message catalogue: keys, the English and Chinese tables, and formatting (docs/DECISIONS.md, "Errors as keys").
export * from './format.ts';
export { ruleMessageKey } from './rules.ts';
