import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DiskFileStore, MemoryFileStore, PathEscapeError, rootSegments } from './file-store.ts';
import { parseProcStat, specProcessState } from './linux-proc.ts';
import { encodePng, renderSimulatedScreen } from './png.ts';
import { LinuxShellProvider } from './shell.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('file root', () => {
  it('never yields a path above the root, whatever the input', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('..', '.', 'a', 'b', '', 'c d'), { maxLength: 12 }), (segs) => {
        try {
          const out = rootSegments(segs.join('/'));
          expect(out.every((s) => s !== '..' && s !== '.' && s !== '')).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(PathEscapeError);
        }
      }),
    );
    expect(() => rootSegments('../x')).toThrow(PathEscapeError);
    expect(() => rootSegments('a/../../x')).toThrow(PathEscapeError);
    expect(() => rootSegments('a\\..\\x')).toThrow(PathEscapeError);
    expect(() => rootSegments('a\0b')).toThrow(PathEscapeError);
    expect(rootSegments('/a/./b/../c')).toEqual(['a', 'c']);
  });

  it('refuses symbolic links that lead out of a disk root, and writes atomically inside it', async () => {
    const root = path.join(tmp, 'root');
    const store = new DiskFileStore(root);
    fs.symlinkSync(os.tmpdir(), path.join(root, 'out'));
    await expect(store.list('out')).rejects.toBeInstanceOf(PathEscapeError);
    await expect(store.write('out', 'x.txt', new Uint8Array([1]))).rejects.toBeInstanceOf(PathEscapeError);
    await expect(store.write('', '../x.txt', new Uint8Array([1]))).rejects.toBeInstanceOf(PathEscapeError);
    await expect(store.remove('')).rejects.toBeInstanceOf(PathEscapeError);
    expect(await store.write('in/deep', 'a.txt', new TextEncoder().encode('hi'))).toBe('in/deep/a.txt');
    expect((await store.list('in/deep')).map((e) => e.name)).toEqual(['a.txt']);
  });

  it('keeps a simulated tree with folders and files', async () => {
    const store = new MemoryFileStore(() => 1, { 'a/b.txt': 'x' });
    await store.write('a/c', 'd.bin', new Uint8Array(3));
    expect((await store.list('a')).map((e) => `${e.name}:${e.type}`)).toEqual(['b.txt:file', 'c:folder']);
    await store.remove('a/c');
    expect(await store.stat('a/c/d.bin')).toBeUndefined();
  });
});

describe('/proc parsing', () => {
  it('reads a stat line whose command name holds spaces and parentheses', () => {
    const line = '1234 (my (odd) proc) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000000 321 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 1234, name: 'my (odd) proc', state: 'S', ticks: 300, rssPages: 321 });
  });

  it('maps Linux states to the spec letters', () => {
    expect(['R', 'S', 'D', 'I', 'T', 'Z', 'X', 't', 'W', 'P'].map(specProcessState)).toEqual(['R', 'S', 'D', 'I', 'T', 'Z', 'X', 'T', 'S', 'S']);
  });
});

describe('PNG', () => {
  it('encodes a valid PNG whose pixels inflate back', () => {
    const rgb = new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]);
    const png = encodePng(2, 2, rgb);
    expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');
    const idatAt = Buffer.from(png).indexOf('IDAT');
    const len = new DataView(png.buffer).getUint32(idatAt - 4);
    const raw = zlib.inflateSync(png.subarray(idatAt + 4, idatAt + 4 + len));
    expect([...raw]).toEqual([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 9, 9, 9]);
    expect(renderSimulatedScreen('SIM1', 0).length).toBeGreaterThan(100);
  });
});

describe('Linux shell', () => {
  it('is off unless allowed', () => {
    expect(() => new LinuxShellProvider({ allowed: false, cwd: tmp, timeoutMs: 1000 }).open(80, 24)).toThrow(/--allow-shell/);
  });

  it('runs in its working directory, keeps cd, and kills a command past its timeout', async () => {
    const shell = new LinuxShellProvider({ allowed: true, cwd: tmp, timeoutMs: 300 }).open(80, 24);
    let out = '';
    expect(await shell.run('pwd', (o) => (out += o.output))).toMatchObject({ exitCode: 0 });
    expect(out.trim()).toBe(fs.realpathSync(tmp));
    fs.mkdirSync(path.join(tmp, 'sub'), { recursive: true });
    expect((await shell.run('cd sub', () => undefined)).cwd).toBe(path.join(fs.realpathSync(tmp), 'sub'));
    expect(await shell.run('sleep 3', (o) => (out += o.output))).toMatchObject({ exitCode: 124 });
    expect(out).toContain('timed out');
  });
});
