import { type Kysely, sql } from 'kysely';

// Account names become unique regardless of case ("Admin" beside "admin" passes for it in every list), as
// role names already are (0002). Only a database written before this migration can hold two names that
// differ only in case; the index could not be built over them, so the oldest account of each such group
// keeps its name and each later one is renamed to `<name>_<id>` (cut to the 16 characters the login rule
// allows), still a valid login name, which an administrator can tell its holder (docs/DECISIONS.md).

const MAX_ACCOUNT = 16;

interface AccountRow {
  id: number;
  account: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<AccountRow>`
    select id, account from accounts
    where lower(account) in (select lower(account) from accounts group by lower(account) having count(*) > 1)
    order by id`.execute(db);
  if (rows.length > 0) await renameCaseDuplicates(db, rows);
  await db.schema.createIndex('accounts_account_lower').on('accounts').unique().expression(sql`lower(account)`).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('accounts_account_lower').execute();
}

async function renameCaseDuplicates(db: Kysely<unknown>, duplicates: readonly AccountRow[]): Promise<void> {
  const { rows: all } = await sql<{ name: string }>`select lower(account) as name from accounts`.execute(db);
  const taken = new Set(all.map((r) => r.name));
  const kept = new Set<string>();
  for (const { id, account } of duplicates) {
    const key = account.toLowerCase();
    // Rows come oldest first: the first of each group keeps its name.
    if (!kept.has(key)) {
      kept.add(key);
      continue;
    }
    const name = freeName(account, id, taken);
    taken.add(name.toLowerCase());
    await sql`update accounts set account = ${name} where id = ${id}`.execute(db);
  }
}

/** `<name>_<id>`, then `<name>_<id>_<n>`, cut to fit, until no account has it in any case. */
function freeName(account: string, id: number, taken: ReadonlySet<string>): string {
  for (let n = 0; ; n++) {
    const suffix = n === 0 ? `_${id}` : `_${id}_${n}`;
    const name = `${account.slice(0, Math.max(1, MAX_ACCOUNT - suffix.length))}${suffix}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}
