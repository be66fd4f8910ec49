import { describe, expect, it } from 'vitest';
import { routeSql, scan } from '../../tools/route-sql.ts';

describe('SQL only in repositories (tools/route-sql.ts)', () => {
  it('finds query builder calls, transactions and raw sql in a route file, not in comments or strings', () => {
    const text = `
      // db.selectFrom('devices') in a comment is not a call
      const note = "db.deleteFrom('x')";
      export function registerXRoutes(app: FastifyInstance) {
        app.get('/x', async () => db.selectFrom('devices').selectAll().execute());
        app.post('/y', async () => db.transaction().execute(async (trx) => trx.updateTable('devices').set({ n: sql\`n + 1\` }).execute()));
      }`;
    const { routeFile, sites } = scan('server/x/anything.ts', text);
    expect(routeFile).toBe(true);
    expect(sites.map((s) => s.line)).toEqual([5, 6, 6, 6]);
  });

  it('counts a file as a route file by its name or by registering routes, and a repository as neither', () => {
    expect(scan('server/x/routes.ts', '').routeFile).toBe(true);
    expect(scan('server/x/order-routes.ts', '').routeFile).toBe(true);
    expect(scan('server/x/language-route.ts', '').routeFile).toBe(true);
    expect(scan('server/x/views.ts', `api.delete('/v/:id', handler);`).routeFile).toBe(true);
    const repository = scan('server/x/repository.ts', `export class R { find() { return this.db.selectFrom('x').selectAll().execute(); } }`);
    expect(repository).toEqual({ routeFile: false, sites: [{ line: 1, text: expect.stringContaining('selectFrom') }] });
    expect(scan('server/x/cache.ts', `const v = cache.get('k'); map.delete('k');`).routeFile).toBe(false);
  });

  it('no route file under server/ queries the database itself', () => {
    const found = routeSql();
    // The census reads the real tree: dozens of route files, among them those moved to repositories.
    expect(found.size).toBeGreaterThan(30);
    expect(found.get('server/commerce/order-routes.ts')).toEqual([]);
    const dirty = [...found].filter(([, sites]) => sites.length > 0).map(([file, sites]) => `${file}:${sites[0]?.line}: ${sites[0]?.text}`);
    expect(dirty, 'move these queries into the area\'s repository (server/<area>/repository.ts)').toEqual([]);
  });
});
