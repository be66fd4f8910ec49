/**
 * `node tools/contract-census.ts`: how far issue 17's "one contract, written once" has come. Prints
 *
 *  (a) REST/wire shapes declared more than once. A shape is an object's set of property names, declared
 *      as an interface, a type alias of an object type, a JSON-schema object literal (an object literal
 *      with a `properties: {...}` member) or a TypeBox `Type.Object({...})`, in protocol/api/, server/ or
 *      src/api/ (tests excluded). An interface's own members only (not what it extends). Two declarations
 *      in different files, or of different kinds in one file (a schema and its hand-written interface),
 *      with the same set of at least {@link MIN_PROPS} names mirror each other; a set declared N times
 *      counts N - 1 mirrored shapes, unless every declaration is a TypeBox contract in protocol/api (two
 *      areas' contracts may share names; a copy is a declaration outside the contracts). A type derived from a schema (`Static<typeof X>`) declares nothing;
 *      dependency bags (`...Deps` interfaces of services and registrars, `...Options` of Fastify plugins) are
 *      not REST shapes and are skipped.
 *  (b) `as` casts of message data (`data as X`, `.data as X`, `payload as X`, `body as X`, `as const`
 *      excluded) in non-test sources, per folder (two path steps: server/gateway, src/pages, ...).
 *  (c) Non-test source files over {@link MAX_LINES} lines.
 *
 * `--json` prints the same as one JSON object. Reads the source, runs nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');
export const MIN_PROPS = 2;
export const MAX_LINES = 400;
const SHAPE_ROOTS = ['protocol/api', 'server', 'src/api'];
const SOURCE_ROOTS = ['protocol', 'workers', 'src', 'server', 'agent', 'tools', 'bench'];
const TEST_FILE = /(\.(test|e2e)\.tsx?|\.guard\.ts)$/;

function walk(dir: string): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'testing') out.push(...walk(rel));
    } else if (/\.tsx?$/.test(entry.name) && !TEST_FILE.test(entry.name)) out.push(rel);
  }
  return out.sort();
}

export interface Shape {
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly kind: 'interface' | 'type' | 'json-schema' | 'typebox';
  readonly props: readonly string[];
}

function propName(name: ts.PropertyName | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** Property names of an object literal (spreads of a named const are followed within the file). */
function literalProps(obj: ts.ObjectLiteralExpression, consts: ReadonlyMap<string, ts.Expression>, depth = 0): string[] {
  const names: string[] = [];
  for (const p of obj.properties) {
    if (ts.isSpreadAssignment(p)) {
      const target = ts.isIdentifier(p.expression) ? consts.get(p.expression.text) : undefined;
      if (target !== undefined && ts.isObjectLiteralExpression(stripAs(target)) && depth < 4) names.push(...literalProps(stripAs(target) as ts.ObjectLiteralExpression, consts, depth + 1));
      continue;
    }
    const n = propName(p.name);
    if (n !== undefined) names.push(n);
  }
  return names;
}

function stripAs(e: ts.Expression): ts.Expression {
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

function nameNear(node: ts.Node): string {
  for (let n: ts.Node | undefined = node; n; n = n.parent) {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name)) return n.name.text;
    if (ts.isPropertyAssignment(n)) return propName(n.name) ?? '?';
  }
  return '(anonymous)';
}

export function shapesOf(file: string, text: string): Shape[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const consts = new Map<string, ts.Expression>();
  const shapes: Shape[] = [];
  const add = (node: ts.Node, name: string, kind: Shape['kind'], props: string[]) => {
    const unique = [...new Set(props)].sort();
    if (unique.length >= MIN_PROPS && !/(Deps|Options)$/.test(name)) shapes.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, name, kind, props: unique });
  };
  const visitConsts = (node: ts.Node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) consts.set(node.name.text, node.initializer);
    ts.forEachChild(node, visitConsts);
  };
  visitConsts(sf);
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node)) {
      add(node, node.name.text, 'interface', node.members.map((m) => propName(m.name)).filter((n): n is string => n !== undefined));
    } else if (ts.isTypeAliasDeclaration(node) && ts.isTypeLiteralNode(node.type)) {
      add(node, node.name.text, 'type', node.type.members.map((m) => propName(m.name)).filter((n): n is string => n !== undefined));
    } else if (ts.isObjectLiteralExpression(node)) {
      const props = node.properties.find((p) => ts.isPropertyAssignment(p) && propName(p.name) === 'properties');
      if (props && ts.isPropertyAssignment(props)) {
        const value = stripAs(props.initializer);
        const obj = ts.isIdentifier(value) ? consts.get(value.text) : value;
        if (obj && ts.isObjectLiteralExpression(stripAs(obj))) add(node, nameNear(node), 'json-schema', literalProps(stripAs(obj) as ts.ObjectLiteralExpression, consts));
      }
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'Object' && ts.isIdentifier(node.expression.expression) && node.expression.expression.text === 'Type') {
      const arg = node.arguments[0];
      if (arg && ts.isObjectLiteralExpression(arg)) add(node, nameNear(node), 'typebox', literalProps(arg, consts));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return shapes;
}

export interface MirrorGroup {
  readonly props: readonly string[];
  readonly shapes: readonly Shape[];
}

/** Sets of property names declared more than once (see the header for what counts). */
export function mirrors(shapes: readonly Shape[]): MirrorGroup[] {
  const bySet = new Map<string, Shape[]>();
  for (const s of shapes) {
    const key = s.props.join(',');
    bySet.set(key, [...(bySet.get(key) ?? []), s]);
  }
  const groups: MirrorGroup[] = [];
  for (const list of bySet.values()) {
    // One declaration per file and kind: a schema and a type derived in the same file are one shape.
    const distinct = [...new Map(list.map((s) => [`${s.file}|${s.kind}`, s])).values()];
    const first = distinct[0];
    // TypeBox schemas in protocol/api only: each is a contract of its own (the cards' group body and the
    // content's edit body share names, not meaning); a copy is a declaration anywhere else.
    const copies = distinct.some((s) => !(s.kind === 'typebox' && s.file.startsWith('protocol/api/')));
    if (first !== undefined && distinct.length > 1 && copies) groups.push({ props: first.props, shapes: distinct });
  }
  return groups.sort((a, b) => b.shapes.length - a.shapes.length || a.props.join().localeCompare(b.props.join()));
}

export const CAST = /(?:\b|\.)(?:data|payload|body)\s+as\s+(?!const\b)/g;

export interface Census {
  readonly mirroredShapes: number;
  readonly mirrorGroups: readonly MirrorGroup[];
  readonly casts: number;
  readonly castsByFolder: Readonly<Record<string, number>>;
  readonly castSites: readonly string[];
  readonly longFiles: readonly { readonly file: string; readonly lines: number }[];
}

export function census(): Census {
  const shapes = SHAPE_ROOTS.flatMap((dir) => walk(dir)).flatMap((file) => shapesOf(file, fs.readFileSync(path.join(root, file), 'utf8')));
  const groups = mirrors(shapes);
  const castsByFolder: Record<string, number> = {};
  const castSites: string[] = [];
  const longFiles: { file: string; lines: number }[] = [];
  for (const file of SOURCE_ROOTS.flatMap((dir) => walk(dir))) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const lines = text.split('\n');
    const count = text.endsWith('\n') ? lines.length - 1 : lines.length;
    if (count > MAX_LINES) longFiles.push({ file, lines: count });
    lines.forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed.startsWith('//') || trimmed.startsWith('/*') || trimmed.startsWith('*')) return;
      for (const _ of line.matchAll(CAST)) {
        const folder = file.split('/').slice(0, 2).join('/').replace(/\.tsx?$/, '');
        castsByFolder[folder] = (castsByFolder[folder] ?? 0) + 1;
        castSites.push(`${file}:${i + 1}: ${trimmed}`);
      }
    });
  }
  return {
    mirroredShapes: groups.reduce((n, g) => n + g.shapes.length - 1, 0),
    mirrorGroups: groups,
    casts: castSites.length,
    castsByFolder: Object.fromEntries(Object.entries(castsByFolder).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    castSites,
    longFiles: longFiles.sort((a, b) => b.lines - a.lines),
  };
}

function print(c: Census): string {
  const out: string[] = [];
  out.push(`(a) mirrored shapes: ${c.mirroredShapes} (in ${c.mirrorGroups.length} sets of property names declared more than once)`);
  for (const g of c.mirrorGroups) {
    out.push(`  {${g.props.join(', ')}}`);
    for (const s of g.shapes) out.push(`    ${s.file}:${s.line} ${s.kind} ${s.name}`);
  }
  out.push(`(b) casts of message data: ${c.casts}`);
  for (const [folder, n] of Object.entries(c.castsByFolder)) out.push(`  ${String(n).padStart(3)} ${folder}`);
  out.push(`(c) files over ${MAX_LINES} lines: ${c.longFiles.length}`);
  for (const f of c.longFiles) out.push(`  ${String(f.lines).padStart(5)} ${f.file}`);
  return out.join('\n') + '\n';
}

if (import.meta.main) {
  const c = census();
  process.stdout.write(process.argv.includes('--json') ? JSON.stringify(c, null, 2) + '\n' : print(c));
}
