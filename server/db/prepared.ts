import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { Db } from './database.ts';

/** Stands for the i-th argument of a prepared query while it is built; replaced by the value on each run. */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/**
 * A query built and compiled once per database, then run with new argument values. Kysely builds a query
 * by parsing and visiting an immutable node tree (`visitNode`, `freeze`): on the hot requests (the session
 * and caller reads of every API call, the organisation page) that cost more CPU than the SQL itself
 * (docs/DECISIONS.md, API under 200 clients). The builder is given placeholders, never values: the compiled
 * text is the same for every call, and each run only swaps the placeholders' parameters for the values.
 * The SQL text is per dialect, so it is compiled per `Db`. Only the arguments vary: anything that changes
 * the query's shape (an optional filter, a sort column) needs a prepared query of its own.
 */
export function prepared<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Promise<QueryResult<R>> {
  const compiled = new WeakMap<Db, { query: CompiledQuery<R>; slots: (number | undefined)[] }>();
  // The builder's declared parameters after `db` (no rest or default ones: Function.length counts neither).
  const arity = build.length - 1;
  // Each placeholder is typed as the value it stands for: the builder type-checks as with real values.
  const slots = Array.from({ length: arity }, (_, i) => new Slot(i)) as unknown as A;
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (!entry) {
      const query = build(db, ...slots).compile();
      const positions = query.parameters.map((p) => (p instanceof Slot ? p.index : undefined));
      // Every argument must reach the SQL as a parameter: one the builder inlined or dropped would be silently ignored.
      for (let i = 0; i < arity; i++) if (!positions.includes(i)) throw new Error(`prepared query: argument ${i} is not a parameter of ${query.sql}`);
      entry = { query, slots: positions };
      compiled.set(db, entry);
    }
    const { query, slots: at } = entry;
    const parameters = query.parameters.map((p, i) => {
      const slot = at[i];
      return slot === undefined ? p : args[slot];
    });
    return db.executeQuery<R>({ query: query.query, queryId: query.queryId, sql: query.sql, parameters });
  };
}
