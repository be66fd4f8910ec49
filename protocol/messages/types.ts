import type { en } from './en.ts';

/**
 * Every message the server sends a user, by a stable key. The English table (en.ts) declares the keys and,
 * through its `{{name}}` placeholders, each key's parameters; the Chinese table (zh.ts) must hold every key,
 * so a missing translation does not compile. The console renders `key` with `params` in its language; the
 * server localises `message` for API clients (docs/DECISIONS.md, "Errors as keys").
 */
export type MessageKey = keyof typeof en;

/** The two languages of the console and the API (platform-core section 9). */
export type MessageLanguage = 'zh' | 'en';

/** One language's texts by key: en.ts, zh.ts. */
export type MessageTable = Readonly<Record<MessageKey, string>>;
