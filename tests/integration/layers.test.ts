/**
 * The layer rules bite (docs/DECISIONS.md, "Layers enforced by the compiler"): the project's own
 * dependency-cruiser rules find the deliberate breaches in tests/fixtures/layers, and the layers' own
 * tsconfigs refuse a host's globals that the root tsconfig lets through.
 */
import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { TYPECHECK_PROJECTS } from '../../tools/typecheck.ts';

const root = path.resolve(import.meta.dirname, '../..');
const fixtures = path.join(root, 'tests/fixtures/layers');

interface Found {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

describe('dependency rules (.dependency-cruiser.mjs)', () => {
  let found: Found[] = [];

  beforeAll(async () => {
    const options = await extractDepcruiseOptions(path.join(root, '.dependency-cruiser.mjs'));
    // The fixture folder stands in for the repository's root: its src/, server/... are the layers.
    const { output } = await cruise(['protocol', 'workers', 'src', 'server', 'agent'], { ...options, baseDir: fixtures });
    const result = output as ICruiseResult;
    found = result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
  });

  it('finds a forbidden arrow taken only through a dynamic import()', () => {
    expect(found).toContainEqual({ rule: 'src-imports-only-workers-and-protocol', from: 'src/leak.ts', to: 'server/secret.ts' });
  });

  it('finds a Node built-in imported dynamically by browser code', () => {
    expect(found).toContainEqual({ rule: 'browser-code-imports-no-node', from: 'src/node-builtin.ts', to: 'fs' });
  });

  it("finds src/ reaching into the worker's internals (a type-only import counts)", () => {
    expect(found).toContainEqual({ rule: 'workers-public-surface', from: 'src/engine-internals.ts', to: 'workers/engine-host.ts' });
  });

  it('finds an import cycle', () => {
    // A cycle is reported once, from whichever of its files comes first.
    expect(found.filter((v) => v.rule === 'no-cycles').map((v) => v.from)).toEqual([expect.stringMatching(/^agent\/(simulated-)?shell\.ts$/)]);
  });

  it('lets the arrows of DESIGN.md through', () => {
    expect(found.filter((v) => v.from === 'src/allowed.ts' || v.from.startsWith('workers/') || v.from.startsWith('protocol/'))).toEqual([]);
  });
});

/**
 * What the compiler says about the fixture `file` under `tsconfig`'s options. The fixture alone keeps this
 * fast; that no package drags a host's types into a whole layer is proven by each layer's
 * host-globals.guard.ts in `npm run typecheck`.
 */
const parsedOnce = new Map<string, ts.SourceFile | undefined>();

function errorsUnder(tsconfig: string, file: string): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, tsconfig), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => expect.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')) });
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  const fixture = path.join(fixtures, file);
  const host = ts.createCompilerHost(parsed.options);
  const read = host.getSourceFile;
  host.getSourceFile = (name, target, ...rest) => {
    // Declaration files (lib.dom.d.ts, @types/node...) are parsed once for all the programs here.
    const key = `${name}:${JSON.stringify(target)}`;
    if (!name.endsWith('.d.ts')) return read.call(host, name, target, ...rest);
    if (!parsedOnce.has(key)) parsedOnce.set(key, read.call(host, name, target, ...rest));
    return parsedOnce.get(key);
  };
  const program = ts.createProgram({ rootNames: [fixture], options: parsed.options, host });
  const source = program.getSourceFile(fixture);
  if (!source) throw new Error(`${file} is not in the program`);
  return program.getSemanticDiagnostics(source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe("each layer's tsconfig", () => {
  it('npm run typecheck checks every layer under its own tsconfig', () => {
    expect(TYPECHECK_PROJECTS).toEqual(expect.arrayContaining(['tsconfig.json', ...['protocol', 'workers', 'src', 'server', 'agent'].map((l) => `${l}/tsconfig.json`)]));
  });

  it('src/ has no Node: Buffer is refused there, and only there', () => {
    expect(errorsUnder('src/tsconfig.json', 'src/uses-buffer.ts')).toEqual([expect.stringMatching(/Cannot find name 'Buffer'/)]);
    expect(errorsUnder('tsconfig.json', 'src/uses-buffer.ts')).toEqual([]);
  });

  it('server/ has no DOM: document is refused', () => {
    expect(errorsUnder('server/tsconfig.json', 'server/uses-document.ts')).toEqual([expect.stringMatching(/Cannot find name 'document'/)]);
    expect(errorsUnder('tsconfig.json', 'server/uses-document.ts')).toEqual([]);
  });

  it('workers/ has no DOM: window is refused', () => {
    expect(errorsUnder('workers/tsconfig.json', 'workers/uses-window.ts')).toEqual([expect.stringMatching(/Cannot find name 'window'/)]);
  });
});
