import type { FastifyServerOptions } from 'fastify';
import { type FieldLabelKey, fieldLabelKey, hasEmoji, type MessageParam, type MessageRef, msg } from '../../protocol/index.ts';
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

type SchemaError = Parameters<NonNullable<FastifyServerOptions['schemaErrorFormatter']>>[0][number];
/** With Ajv's `verbose` option (app.ts) an error also carries the schema object it failed. */
type VerboseError = SchemaError & { readonly parentSchema?: Readonly<Record<string, unknown>> };

/** Keywords that only say "a branch failed"; the branch's own error says what is wrong. */
const COMBINATORS = new Set(['anyOf', 'oneOf', 'allOf', 'if', 'then', 'else', 'not', '$ref']);

/** The request field an error is about: the missing property, or the last named step of its path. */
function fieldOf(e: SchemaError): string | undefined {
  if (e.keyword === 'required') return String(e.params.missingProperty);
  const steps = e.instancePath.split('/').filter((step) => step !== '' && !/^\d+$/.test(step));
  const last = steps.at(-1);
  return last === undefined ? undefined : last.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * A field in the user's words: its catalogue label, rendered in the reader's language. A field without a
 * label keeps its own name (tests/integration/messages.test.ts checks that every documented field has one).
 */
function fieldParam(name: string): MessageParam {
  const key = fieldLabelKey(name);
  return key === undefined ? name : { key };
}

const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The catalogue message for one Ajv error, naming the field; never Ajv's own text. */
export function schemaErrorMessage(e: VerboseError): MessageRef {
  if (e.keyword === 'additionalProperties') return msg('validation.unknownField', { name: String(e.params.additionalProperty) });
  const name = fieldOf(e);
  if (name === undefined) return msg('common.invalidRequest');
  const field = fieldParam(name);
  const parent = e.parentSchema ?? {};
  const limit = numberOf(e.params.limit) ?? 0;
  switch (e.keyword) {
    case 'required':
      return msg('validation.empty', { field });
    case 'minLength':
    case 'maxLength': {
      const min = numberOf(parent.minLength);
      const max = numberOf(parent.maxLength);
      // The spec's 'length should be 6-20 characters' where the schema has both ends.
      if (min !== undefined && min > 1 && max !== undefined) return msg('validation.lengthRange', { field, min, max });
      if (e.keyword === 'maxLength') return msg('validation.maxLength', { field, max: limit });
      return limit <= 1 ? msg('validation.empty', { field }) : msg('validation.minLength', { field, min: limit });
    }
    case 'type': {
      const expected = [e.params.type].flat().map(String);
      return expected.includes('integer') || expected.includes('number') ? msg('validation.numeric', { field }) : msg('validation.incorrect', { field });
    }
    case 'minimum':
    case 'exclusiveMinimum': {
      const positive = [parent.type].flat().includes('integer') && (e.keyword === 'minimum' ? limit === 1 : limit === 0);
      return positive ? msg('validation.positiveInteger', { field }) : msg('validation.minimum', { field, limit });
    }
    case 'maximum':
    case 'exclusiveMaximum':
      return msg('validation.maximum', { field, limit });
    case 'enum':
    case 'const':
      return msg('validation.option', { field });
    case 'minItems':
      return limit <= 1 ? msg('validation.empty', { field }) : msg('validation.minItems', { field, min: limit });
    case 'maxItems':
    case 'maxProperties':
      return msg('validation.maxItems', { field, max: limit });
    case 'uniqueItems':
      return msg('validation.uniqueItems', { field });
    case 'pattern':
      // Path ids and query-string page numbers are digits without a leading zero: say so in the spec's words.
      return String(e.params.pattern).startsWith('^[1-9][0-9]') ? msg('validation.positiveInteger', { field }) : msg('validation.incorrect', { field });
    default:
      // format, multipleOf and anything else: the spec's "... incorrect".
      return msg('validation.incorrect', { field });
  }
}

/**
 * Schema failures as the spec's messages with the field named in the user's words ('ICCID incorrect',
 * 'Name: length should be at most 128 characters'), as a keyed ApiError: Ajv's own text ("body/iccid must
 * match pattern ...") never reaches a user.
 */
export const schemaErrorFormatter: NonNullable<FastifyServerOptions['schemaErrorFormatter']> = (errors) => {
  const first = errors.find((e) => !COMBINATORS.has(e.keyword)) ?? errors[0];
  return new ApiError(ApiCode.BadRequest, first === undefined ? msg('common.invalidRequest') : schemaErrorMessage(first));
};

/** True when the text holds an emoji (the rule is shared with the console's forms). */
export { hasEmoji };

/**
 * A user-typed text, trimmed. Refuses an empty required value and any emoji, with a message naming the
 * field in the spec's style ("Account cannot be empty!"); `label` is the field's catalogue label.
 */
export function cleanText(value: string | undefined, label: FieldLabelKey, required: boolean): string {
  const text = (value ?? '').trim();
  if (required && !text) throw new ApiError(ApiCode.BadRequest, msg('validation.empty', { field: { key: label } }));
  if (hasEmoji(text)) throw new ApiError(ApiCode.BadRequest, msg('validation.emoji', { field: { key: label } }));
  return text;
}

/** The numeric value of an id path parameter (already checked by {@link idParams}). */
export function idOf(value: string): number {
  return Number(value);
}
