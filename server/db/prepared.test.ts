import { afterEach, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from './database.ts';
import { prepared } from './prepared.ts';

describe('prepared queries', () => {
  const open: Db[] = [];
  const fresh = async () => {
    const db = await openDatabase({ dataDir: '', inMemory: true });
    open.push(db);
    return db;
  };
  afterEach(async () => {
    for (const db of open.splice(0)) await db.destroy();
  });

  const rolesNamed = prepared((db, summary: string, after: number) =>
    db.selectFrom('roles').select('name').where('summary', '=', summary).where('id', '>', after).orderBy('name'),
  );

  it('runs the query compiled once with each call’s own values, on each database its own', async () => {
    const [a, b] = [await fresh(), await fresh()];
    const role = (id: number, name: string, summary: string) => ({ id, name, summary, created_by: null, org_id: null });
    await a.insertInto('roles').values([role(1001, 'a1', 'x'), role(1003, 'a2', 'x'), role(1004, 'a3', 'y')]).execute();
    await b.insertInto('roles').values([role(1003, 'b1', 'x')]).execute();
    expect((await rolesNamed(a, 'x', 1002)).rows).toEqual([{ name: 'a2' }]);
    expect((await rolesNamed(a, 'x', 1000)).rows).toEqual([{ name: 'a1' }, { name: 'a2' }]);
    expect((await rolesNamed(a, 'y', 1000)).rows).toEqual([{ name: 'a3' }]);
    expect((await rolesNamed(b, 'x', 1000)).rows).toEqual([{ name: 'b1' }]);
  });

  it('refuses a builder that does not pass an argument to the SQL as a parameter', async () => {
    const db = await fresh();
    const ignoring = prepared((d, _summary: string) => d.selectFrom('roles').select('name'));
    await expect(ignoring(db, 'x')).rejects.toThrow(/argument 0 is not a parameter/);
  });
});
