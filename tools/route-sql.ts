/**
 * `node tools/route-sql.ts`: SQL in route files (issue 17 part 4: "SQL only in repositories, never in route
 * handlers"). A route file is a non-test source file under server/ named `routes.ts`, `*-routes.ts` or
 * `*-route.ts`, or one that registers HTTP routes (`app.get(`, `api.post(`, ... on an `app`, `api` or
 * `fastify` instance). A SQL call site is a Kysely query builder call (`selectFrom`, `insertInto`,
 * `updateTable`, `deleteFrom`, `replaceInto`, `mergeInto`, `selectNoFrom`), a `.transaction()` or a raw
 * `sql` template, found in the syntax tree (so comments and strings do not count). Prints each site and the
 * count per file; tests/integration/route-sql.test.ts fails when any route file has one.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

/** Kysely calls that start a query (or a transaction), by method name. */
export const QUERY_METHODS: ReadonlySet<string> = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom', 'transaction']);
const ROUTE_METHODS: ReadonlySet<string> = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route']);
const INSTANCES: ReadonlySet<string> = new Set(['app', 'api', 'fastify']);
const ROUTE_FILE_NAME = /(^|-)routes?\.ts$/;
const TEST_FILE = /(\.test\.ts|\.guard\.ts)$/;

export interface SqlSite {
  readonly line: number;
  readonly text: string;
}

/** What one file holds: whether it is a route file, and its SQL call sites. */
export function scan(file: string, text: string): { routeFile: boolean; sites: SqlSite[] } {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let registers = false;
  const sites: SqlSite[] = [];
  const site = (node: ts.Node) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    sites.push({ line: line + 1, text: (text.split('\n')[line] ?? '').trim() });
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const target = node.expression.expression;
      if (QUERY_METHODS.has(method)) site(node.expression.name);
      if (ROUTE_METHODS.has(method) && ts.isIdentifier(target) && INSTANCES.has(target.text)) registers = true;
    } else if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && node.tag.text === 'sql') {
      site(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { routeFile: registers || ROUTE_FILE_NAME.test(path.posix.basename(file)), sites };
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(rel));
    else if (entry.name.endsWith('.ts') && !TEST_FILE.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

/** Every route file under server/ with its SQL call sites (an empty list when clean). */
export function routeSql(): Map<string, SqlSite[]> {
  const found = new Map<string, SqlSite[]>();
  for (const file of walk('server')) {
    const { routeFile, sites } = scan(file, fs.readFileSync(path.join(root, file), 'utf8'));
    if (routeFile) found.set(file, sites);
  }
  return found;
}

if (import.meta.main) {
  const found = routeSql();
  let total = 0;
  for (const [file, sites] of found) {
    if (sites.length === 0) continue;
    total += sites.length;
    process.stdout.write(`${String(sites.length).padStart(4)} ${file}\n`);
    for (const s of sites) process.stdout.write(`       ${file}:${s.line}: ${s.text}\n`);
  }
  process.stdout.write(`SQL call sites in ${found.size} route files: ${total}\n`);
}
