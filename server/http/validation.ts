import type { FastifyServerOptions } from 'fastify';
import { MAX_PAGE_NUM, PAGE_SIZES } from './paging.ts';
import { ApiCode, ApiError } from './envelope.ts';

/** The console sends the lowercase hex SHA-256 of a typed password (docs/DECISIONS.md). */
export const HASHED_PASSWORD = '^[0-9a-f]{64}$';
/** Longest name or short text the console allows (platform-core section 5, "max 128 characters"). */
export const MAX_TEXT = 128;

/** JSON-schema fragments shared by the body schemas. */
export const field = {
  text: { type: 'string', maxLength: MAX_TEXT },
  longText: { type: 'string', maxLength: 512 },
  id: { type: 'integer', minimum: 1 },
  hashedPassword: { type: 'string', pattern: HASHED_PASSWORD },
  email: { type: 'string', maxLength: MAX_TEXT, pattern: '^$|^[^\\s@]+@[^\\s@]+$' },
  phone: { type: 'string', maxLength: 32, pattern: '^[0-9+() -]*$' },
  epochMs: { type: ['integer', 'null'], minimum: 0 },
} as const;

/**
 * pageNum and pageSize as every list call takes them (platform-core section 9). pageNum has the same
 * ceiling as on the query string (paging.ts): 1e18 is an integer to JSON Schema, but its offset
 * overflows the database's 64-bit integers and the call failed with 500.
 */
export const pagingProperties = {
  pageNum: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUM, default: 1 },
  pageSize: { type: 'integer', enum: [...PAGE_SIZES], default: 10 },
} as const;

/** A path parameter holding a numeric id; path values are strings and types are not coerced. */
export function idParams(name: string) {
  return {
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', pattern: '^[1-9][0-9]{0,9}$' } },
  } as const;
}

/**
 * Validation messages that name the offending field: Ajv's own text says only "must NOT have additional
 * properties" for an unknown field, which the console would show without saying which one.
 */
export const schemaErrorFormatter: NonNullable<FastifyServerOptions['schemaErrorFormatter']> = (errors, dataVar) => {
  const text = errors
    .map((e) => {
      const where = `${dataVar}${e.instancePath}`;
      if (e.keyword === 'additionalProperties') return `${where} has unknown field '${String(e.params.additionalProperty)}'`;
      return `${where} ${e.message ?? 'is invalid'}`;
    })
    .join(', ');
  return new Error(text);
};

// Emoji as the console's "no emoji" rule means it: pictographs, flags and keycaps. The copyright,
// registered and trade mark signs are pictographic too, but belong in company names.
const EMOJI = /(?![\u00A9\u00AE\u2122])\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;

/** True when the text holds an emoji. */
export function hasEmoji(text: string): boolean {
  return EMOJI.test(text);
}

/**
 * A user-typed text, trimmed. Refuses an empty required value and any emoji, with a message naming the
 * field in the spec's style ("This item cannot be empty!").
 */
export function cleanText(value: string | undefined, label: string, required: boolean): string {
  const text = (value ?? '').trim();
  if (required && !text) throw new ApiError(ApiCode.BadRequest, `${label} cannot be empty!`);
  if (hasEmoji(text)) throw new ApiError(ApiCode.BadRequest, `${label} cannot contain emoji!`);
  return text;
}

/** The numeric value of an id path parameter (already checked by {@link idParams}). */
export function idOf(value: string): number {
  return Number(value);
}
