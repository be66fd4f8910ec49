/*
 * Decoders for message data: each turns an untrusted `unknown` (a decoded frame's `data`, a bus message)
 * into a typed value or refuses it. They are the edge of the wire contract (WIRE-1 in PROTOCOL.md): a
 * payload is decoded once where it enters a program, and past that point nothing casts.
 *
 * Plain functions rather than TypeBox (measured, docs/DECISIONS.md "Wire contract"): TypeBox's
 * interpreted `Value.Check` costs 40-70x these on the same payloads; its compiled check is as fast or
 * faster but only answers yes or no (the input itself goes on, unknown keys and all), builds code with
 * `new Function` at start, and would mean rewriting the catalogue's payload interfaces as schemas. These
 * add no dependency, are checked by the compiler against those interfaces (`Fields<T>` names every key),
 * and build only the fields they know, so an unknown key (`__proto__` included) never reaches a caller.
 */

/** What a field decoder returns for a value it refuses (kept apart from `undefined`, an absent optional field). */
export const Invalid: unique symbol = Symbol('invalid');
export type Invalid = typeof Invalid;

/** A decoder: the typed value, or {@link Invalid}. */
export type Decoder<T> = (value: unknown) => T | Invalid;

/** The type a decoder yields. */
export type Decoded<D> = D extends Decoder<infer T> ? T : never;

/** Runs `decoder` on `value`: the typed value, or undefined when it is refused. */
export function decode<T>(decoder: Decoder<T>, value: unknown): T | undefined {
  const v = decoder(value);
  return v === Invalid ? undefined : v;
}

export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string of at most `max` characters (and at least `min`). */
export const string =
  (max = 1_000_000, min = 0): Decoder<string> =>
  (v) =>
    typeof v === 'string' && v.length <= max && v.length >= min ? v : Invalid;

/** A finite number in [min, max]. */
export const number =
  (min = -Number.MAX_VALUE, max = Number.MAX_VALUE): Decoder<number> =>
  (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : Invalid;

/** A safe integer in [min, max]. */
export const integer =
  (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Decoder<number> =>
  (v) =>
    typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max ? v : Invalid;

export const boolean: Decoder<boolean> = (v) => (typeof v === 'boolean' ? v : Invalid);

/** One of the listed values (strings or numbers). */
export function oneOf<const T extends readonly (string | number | boolean)[]>(...values: T): Decoder<T[number]> {
  const set: ReadonlySet<unknown> = new Set<unknown>(values);
  return (v) => (set.has(v) ? (v as T[number]) : Invalid);
}

/** `undefined` (the field is absent) or what `decoder` accepts. */
export function optional<T>(decoder: Decoder<T>): Decoder<T | undefined> {
  return (v) => (v === undefined ? undefined : decoder(v));
}

/** Like {@link optional}, with `fallback` when the field is absent (or null). */
export function withDefault<T>(decoder: Decoder<T>, fallback: T): Decoder<T> {
  return (v) => (v === undefined || v === null ? fallback : decoder(v));
}

/** An array of at most `max` items, every one accepted by `item` (one bad item refuses the array). */
export function array<T>(item: Decoder<T>, max = 100_000): Decoder<readonly T[]> {
  return (v) => {
    if (!Array.isArray(v) || v.length > max) return Invalid;
    const out: T[] = [];
    for (const x of v) {
      const d = item(x);
      if (d === Invalid) return Invalid;
      out.push(d);
    }
    return out;
  };
}

/** A tuple of fixed length. */
export function tuple<A, B, C>(a: Decoder<A>, b: Decoder<B>, c: Decoder<C>): Decoder<readonly [A, B, C]> {
  return (v) => {
    if (!Array.isArray(v) || v.length !== 3) return Invalid;
    const x = a(v[0]);
    const y = b(v[1]);
    const z = c(v[2]);
    return x === Invalid || y === Invalid || z === Invalid ? Invalid : [x, y, z];
  };
}

/** The decoders of an object type's fields, every key named (optional keys take an `optional(...)` decoder). */
export type Fields<T> = { readonly [K in keyof T]-?: Decoder<T[K]> };

/**
 * An object whose fields `fields` decode. Unknown keys are dropped, absent optional fields stay absent
 * (a strict msgpack writer refuses `undefined` values), and the result is a new object.
 */
export function object<T extends object>(fields: Fields<T>): Decoder<T> {
  const entries: readonly (readonly [string, Decoder<unknown>])[] = Object.entries(fields);
  return (v) => {
    if (!isRecord(v)) return Invalid;
    const out: Record<string, unknown> = {};
    for (const [key, decoder] of entries) {
      const d = decoder(Object.hasOwn(v, key) ? v[key] : undefined);
      if (d === Invalid) return Invalid;
      if (d !== undefined) out[key] = d;
    }
    // `out` holds exactly the keys of `fields`, each decoded by its field's decoder.
    return out as T;
  };
}

/** An object with string keys and values `value` accepts (at most `max` keys). */
export function record<V>(value: Decoder<V>, max = 1_000): Decoder<Readonly<Record<string, V>>> {
  return (v) => {
    if (!isRecord(v)) return Invalid;
    const keys = Object.keys(v);
    if (keys.length > max) return Invalid;
    const out: Record<string, V> = {};
    for (const key of keys) {
      if (key === '__proto__') return Invalid;
      const d = value(v[key]);
      if (d === Invalid) return Invalid;
      out[key] = d;
    }
    return out;
  };
}

/** A union discriminated by the string field `tag`: `variants` maps each tag value to its member's decoder. */
export function tagged<T extends Readonly<Record<K, string>>, K extends keyof T & string>(
  tag: K,
  variants: { readonly [V in T[K]]: Decoder<Extract<T, Readonly<Record<K, V>>>> },
): Decoder<T> {
  const byTag: ReadonlyMap<unknown, Decoder<T>> = new Map<unknown, Decoder<T>>(Object.entries<Decoder<T>>(variants));
  return (v) => {
    if (!isRecord(v)) return Invalid;
    const decoder = byTag.get(v[tag]);
    return decoder === undefined ? Invalid : decoder(v);
  };
}

/** A decoder from a parser that answers undefined for what it refuses (the catalogue's older `parseX`). */
export function fromParser<T>(parse: (value: unknown) => T | undefined): Decoder<T> {
  return (v) => parse(v) ?? Invalid;
}

/** Accepts nothing but an absent value (commands without data); anything else is ignored, not refused. */
export const none: Decoder<undefined> = () => undefined;

/** Any value, unread (a payload this side passes on without looking, such as a held reply it relays). */
export const opaque: Decoder<unknown> = (v) => v;
