import type { en } from './en.ts';
import { SPEC_TEXTS } from './spec-texts.ts';
import { isKnownKey, messageTable } from './tables.ts';
import type { MessageKey, MessageLanguage } from './types.ts';

export type { MessageKey, MessageLanguage, MessageTable } from './types.ts';

/** The placeholder names of a template, e.g. `'{{a}} and {{b}}'` gives `'a' | 'b'`. */
type PlaceholdersOf<S extends string> = S extends `${string}{{${infer P}}}${infer Rest}` ? P | PlaceholdersOf<Rest> : never;

/** The parameter names a key's message takes. */
export type ParamNamesOf<K extends MessageKey> = PlaceholdersOf<(typeof en)[K]>;

/** A key that takes no parameters. */
export type PlainMessageKey = { [K in MessageKey]: [ParamNamesOf<K>] extends [never] ? K : never }[MessageKey];

/** A field label (`field.*`): the name of an input in the user's words, used in validation messages. */
export type FieldLabelKey = Extract<MessageKey, `field.${string}`>;

/** One parameter: a value shown as it is, or another message (a field label) shown in the same language. */
export type MessageParam = string | number | MessageRef;
export type MessageParams = Readonly<Record<string, MessageParam>>;

/** A message by key with its parameters: what travels in the envelope's `key` and `params`. */
export interface MessageRef<K extends MessageKey = MessageKey> {
  readonly key: K;
  readonly params?: MessageParams;
}

/** The arguments after the key: none for a plain key, else an object naming each placeholder. */
export type ParamsArg<K extends MessageKey> = [ParamNamesOf<K>] extends [never] ? [] : [params: { readonly [P in ParamNamesOf<K>]: MessageParam }];


/** A message reference whose parameters the compiler checks against the key's placeholders. */
export function msg<K extends MessageKey>(key: K, ...params: ParamsArg<K>): MessageRef<K> {
  const [p] = params;
  return p === undefined ? { key } : { key, params: p };
}

/** True when `value` is a key of this catalogue (a console may meet a key from a newer server). */
export function isMessageKey(value: unknown): value is MessageKey {
  return typeof value === 'string' && isKnownKey(value);
}

/** True when `value` has the shape of a {@link MessageRef} with a known key. */
export function isMessageRef(value: unknown): value is MessageRef {
  return typeof value === 'object' && value !== null && isMessageKey((value as { key?: unknown }).key);
}

const PLACEHOLDER = /\{\{(\w+)\}\}/g;

/**
 * The text of a message in one language: placeholders take their parameters, nested references are
 * rendered in the same language, and a placeholder without a parameter stays visible rather than vanishing.
 */
export function formatMessage(lang: MessageLanguage, key: MessageKey, params?: MessageParams): string {
  const table = messageTable(lang);
  // Only the console can lack a table (it holds the language it shows, from before it renders).
  if (table === undefined) throw new Error(`formatMessage: the ${lang} message table is not loaded`);
  const template = table[key];
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const value = params?.[name];
    if (value === undefined) return whole;
    if (typeof value === 'object') return isMessageRef(value) ? formatMessage(lang, value.key, value.params) : whole;
    return String(value);
  });
}

/** {@link formatMessage} of a reference. */
export function formatRef(lang: MessageLanguage, ref: MessageRef): string {
  return formatMessage(lang, ref.key, ref.params);
}

/** The key of each of the spec's fixed messages by its English text (spec-texts.ts). */
const SPEC_KEYS: ReadonlyMap<string, PlainMessageKey> = new Map(Object.entries(SPEC_TEXTS).map(([key, text]) => [text, key as keyof typeof SPEC_TEXTS]));

/** What a failure may carry: a key with parameters (the HTTP envelope), or only text (a gateway reply). */
export interface FailureText {
  readonly key?: unknown;
  readonly params?: unknown;
  readonly message?: unknown;
}

/**
 * The text of a failure in `lang`: its key rendered with its parameters; else, for one of the spec's
 * fixed messages sent as text, that message's translation; else the text as sent (a key or text this
 * catalogue does not know); undefined when there is neither.
 */
export function failureText(lang: MessageLanguage, failure: FailureText): string | undefined {
  const params = typeof failure.params === 'object' && failure.params !== null ? (failure.params as MessageParams) : undefined;
  // A key is rendered where this process holds the language's table; else the text the server sent,
  // which it renders in the caller's language (the console before its table is in).
  if (isMessageKey(failure.key) && messageTable(lang) !== undefined) return formatMessage(lang, failure.key, params);
  if (typeof failure.message !== 'string' || failure.message === '') return undefined;
  const spec = SPEC_KEYS.get(failure.message);
  return spec === undefined || messageTable(lang) === undefined ? failure.message : formatMessage(lang, spec);
}

/** The label key of a request field, when the catalogue has one (`iccid` gives `field.iccid`). */
export function fieldLabelKey(field: string): FieldLabelKey | undefined {
  const key = `field.${field}`;
  return isMessageKey(key) ? (key as FieldLabelKey) : undefined;
}
