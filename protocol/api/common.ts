// Building blocks of the REST contract modules (protocol/api/<area>.ts): JSON-schema fragments written
// with TypeBox, so that each request schema and its TypeScript type are one declaration (docs/DECISIONS.md,
// "REST contracts"). The server validates with these very objects (Ajv, through Fastify's TypeBox type
// provider) and the console imports the derived types.
import { type Static, type TSchema, Type } from 'typebox';

/** Page sizes a list may ask for (platform-core section 9). */
export const PAGE_SIZES = [10, 20, 30, 40, 50, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
/** Highest page a list call may ask for: six digits, times the largest page size, stays a small offset. */
export const MAX_PAGE_NUM = 999_999;
/** Longest name or short text the console allows (platform-core section 5, "max 128 characters"). */
export const MAX_TEXT = 128;
/** Longest rich-text body (a notice, a document) accepted before sanitising (well inside the 1 MiB body limit). */
export const MAX_CONTENT = 200_000;

/**
 * A value among `values`, as `{type, enum}`: Ajv's error is then `enum` (the spec's "please choose"
 * message, server/http/validation.ts), and the type is the union of the values.
 */
export function OneOf<const T extends string | number>(values: readonly T[], options: { default?: T } = {}) {
  const type = typeof values[0] === 'number' ? (values.every(Number.isInteger) ? 'integer' : 'number') : 'string';
  return Type.Unsafe<T>({ type, enum: [...values], ...options });
}

/**
 * A value among `values` like {@link OneOf}, typed as the values' base type (string or number): for
 * filter and form fields the console holds as free values until the server checks them.
 */
export function Among<T extends string | number>(values: readonly T[]) {
  return OneOf<T>(values);
}

/** The console sends the lowercase hex SHA-256 of a typed password (docs/DECISIONS.md). */
export const HashedPassword = Type.String({ pattern: '^[0-9a-f]{64}$' });
/** An e-mail address, or empty. */
export const Email = Type.String({ maxLength: MAX_TEXT, pattern: '^$|^[^\\s@]+@[^\\s@]+$' });
/** A phone number: digits, +, brackets, spaces and dashes. */
export const Phone = Type.String({ maxLength: 32, pattern: '^[0-9+() -]*$' });

/** A positive database id. */
export const Id = Type.Integer({ minimum: 1 });
/** A short user-typed text: a name, a title. */
export const Text = Type.String({ maxLength: MAX_TEXT });
/** The longest remark-like text. */
export const MAX_LONG_TEXT = 512;
/** A longer user-typed text: a remark. */
export const LongText = Type.String({ maxLength: MAX_LONG_TEXT });
/** Epoch milliseconds, or null for none. */
export const EpochMs = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

/**
 * pageNum and pageSize as every list call takes them in its body (platform-core section 9). The page size
 * is typed as a number: the console's tables hold it as one (they offer only PAGE_SIZES).
 */
export const PagingProperties = {
  pageNum: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_NUM, default: 1 })),
  pageSize: Type.Optional(Type.Unsafe<number>({ type: 'integer', enum: [...PAGE_SIZES], default: 10 })),
};

/** A body holding only paging. */
export const PagingBody = Type.Object(PagingProperties, { additionalProperties: false });
export type PagingBody = Static<typeof PagingBody>;

/**
 * Paging of list calls whose parameters arrive on the query string: values are strings, because the
 * server does not coerce types.
 */
export const QueryPagingProperties = {
  pageNum: Type.String({ pattern: '^[1-9][0-9]{0,5}$' }),
  pageSize: OneOf(PAGE_SIZES.map(String)),
};

/** {@link QueryPagingProperties}, each optional: what most query-string lists take. */
export const OptionalQueryPaging = {
  pageNum: Type.Optional(QueryPagingProperties.pageNum),
  pageSize: Type.Optional(QueryPagingProperties.pageSize),
};

/** A numeric id on the query string (a string of digits: types are not coerced). */
export const QueryId = Type.String({ pattern: '^[1-9][0-9]{0,9}$' });

/**
 * A query-string contract as the console builds it: the page as numbers (the request helper writes every
 * value as text), the other values as the contract types them.
 */
export type ConsoleQuery<T> = Omit<T, 'pageNum' | 'pageSize'> & { readonly pageNum: number; readonly pageSize: number };

/** A path parameter holding a numeric id; path values are strings and types are not coerced. */
export function IdParams<const K extends string>(name: K) {
  return Type.Object({ [name]: Type.String({ pattern: '^[1-9][0-9]{0,9}$' }) } as Record<K, ReturnType<typeof Type.String>>);
}

/** The path parameters of calls on one item, `/.../:id`. */
export const IdPath = IdParams('id');
export type IdPath = Static<typeof IdPath>;

/** Fields of every answer: the spec's envelope around a call's data (platform-core section 7). */
const EnvelopeProperties = {
  code: Type.Integer(),
  message: Type.String(),
  /** A failure's catalogue key and parameters (server/http/envelope.ts, "Errors as keys"). */
  key: Type.Optional(Type.String()),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
};

/**
 * The response schema of a call that answers `data`: the envelope `{code, message, data}`. A failure goes
 * out with the same status (200) and `data: null`, its key and parameters, so the schema allows those too.
 * Fastify serialises the answer through it (fast-json-stringify): fields the schema does not name are
 * dropped, and an answer that matches neither `data` nor null is an error, not a silent drift.
 */
export function Reply<T extends TSchema>(data: T) {
  return Type.Object({ ...EnvelopeProperties, data: Type.Union([data, Type.Null()]) });
}

/** The response schema of a call that answers no data (`data: null`). */
export const NullReply = Type.Object({ ...EnvelopeProperties, data: Type.Null() });

/** The envelope as a type: the schema's fields, with `data` typed by the call. */
export type Envelope<T> = Omit<Static<typeof NullReply>, 'data'> & { readonly data: T | null };

/** One page of a list as a schema: platform-core section 7's {total, list}. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({ total: Type.Integer({ minimum: 0 }), list: Type.Immutable(Type.Array(item)) });
}

/** One page of a list: the schema's fields, with the items typed. */
export type Page<T> = Omit<Static<ReturnType<typeof PageOf<TSchema>>>, 'list'> & { readonly list: readonly T[] };
