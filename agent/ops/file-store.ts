import fs from 'node:fs';
import path from 'node:path';
import type { FileEntry } from '../../protocol/index.ts';

/** A path that would leave the device's file root, or is not a valid path at all. */
export class PathEscapeError extends Error {
  constructor(p: string, why = 'Path is outside the file root') {
    // NUL bytes shown escaped: the message travels to the console and into logs.
    super(`${why}: ${p.slice(0, 200).replaceAll('\0', '\\0')}`);
    this.name = 'PathEscapeError';
  }
}

/**
 * Normalises a path given by the platform to segments below the root. `..` may not climb above the root,
 * NUL bytes and backslashes are refused (a Windows-style separator would be a second way to spell `..`).
 */
export function rootSegments(p: string): string[] {
  if (typeof p === 'string' && p.includes('\0')) throw new PathEscapeError(p, 'Path may not contain a NUL byte');
  if (typeof p !== 'string' || p.length > 4096 || p.includes('\\')) throw new PathEscapeError(String(p));
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw new PathEscapeError(p);
      out.pop();
    } else out.push(seg);
  }
  return out;
}

/** The files a device exposes to the platform, all inside one root. */
export interface FileStore {
  list(dir: string): Promise<FileEntry[]>;
  /** The entry at a path, or undefined when nothing is there. */
  stat(p: string): Promise<FileEntry | undefined>;
  read(p: string): Promise<Uint8Array>;
  /** Writes `name` into directory `dir`; returns the file's path relative to the root. */
  write(dir: string, name: string, bytes: Uint8Array): Promise<string>;
  /** Deletes a file or a folder with its contents. */
  remove(p: string): Promise<void>;
}

/**
 * A file name to create inside a folder: one path segment, no separators, no NUL byte. Throws
 * {@link PathEscapeError}; the upload handler calls it before any byte travels.
 */
export function validName(name: string): string {
  const segs = rootSegments(name);
  if (segs.length !== 1 || segs[0] !== name) throw new PathEscapeError(name);
  return name;
}

/** Files on disk under `root`, for the real agent. Symbolic links that lead outside the root are refused. */
export class DiskFileStore implements FileStore {
  readonly #root: string;

  constructor(root: string) {
    fs.mkdirSync(root, { recursive: true });
    this.#root = fs.realpathSync(root);
  }

  // Resolves lexically, then checks the real path of the deepest existing ancestor, so a symlink placed
  // inside the root cannot be followed out of it.
  #resolve(p: string): string {
    const full = path.join(this.#root, ...rootSegments(p));
    let probe = full;
    for (;;) {
      try {
        const real = fs.realpathSync(probe);
        if (real !== this.#root && !real.startsWith(this.#root + path.sep)) throw new PathEscapeError(p);
        break;
      } catch (err) {
        if (err instanceof PathEscapeError) throw err;
        const parent = path.dirname(probe);
        if (parent === probe) throw new PathEscapeError(p);
        probe = parent;
      }
    }
    return full;
  }

  #entry(name: string, st: fs.Stats): FileEntry {
    return { name, type: st.isDirectory() ? 'folder' : 'file', size: st.isDirectory() ? 0 : st.size, mtime: Math.round(st.mtimeMs) };
  }

  async list(dir: string): Promise<FileEntry[]> {
    const full = this.#resolve(dir);
    const names = await fs.promises.readdir(full);
    const entries: FileEntry[] = [];
    for (const name of names.sort()) {
      try {
        entries.push(this.#entry(name, await fs.promises.stat(path.join(full, name))));
      } catch {
        // vanished or a dangling link: not listed
      }
    }
    return entries;
  }

  async stat(p: string): Promise<FileEntry | undefined> {
    // Outside the try: a path leaving the root is refused (PathEscapeError, result 2), not "not there".
    const full = this.#resolve(p);
    try {
      return this.#entry(path.basename(full), await fs.promises.stat(full));
    } catch {
      return undefined;
    }
  }

  async read(p: string): Promise<Uint8Array> {
    return new Uint8Array(await fs.promises.readFile(this.#resolve(p)));
  }

  async write(dir: string, name: string, bytes: Uint8Array): Promise<string> {
    const rel = [...rootSegments(dir), validName(name)].join('/');
    const full = this.#resolve(rel);
    await fs.promises.mkdir(path.dirname(full), { recursive: true });
    // Written beside and renamed, so a reader never sees half a file.
    const tmp = `${full}.part-${process.pid}`;
    await fs.promises.writeFile(tmp, bytes);
    await fs.promises.rename(tmp, full);
    return rel;
  }

  async remove(p: string): Promise<void> {
    if (rootSegments(p).length === 0) throw new PathEscapeError(p, 'The file root cannot be deleted');
    try {
      await fs.promises.rm(this.#resolve(p), { recursive: true });
    } catch (err) {
      // The same words as the simulated store, and no absolute path of this machine in the reply.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`No such file: ${p}`, { cause: err });
      throw err;
    }
  }
}

type MemoryNode = { readonly kind: 'file'; bytes: Uint8Array; mtime: number } | { readonly kind: 'folder'; mtime: number };

/** An in-memory file tree for a simulated device, seeded with a few plausible files. */
export class MemoryFileStore implements FileStore {
  readonly #nodes = new Map<string, MemoryNode>([['', { kind: 'folder', mtime: 0 }]]);
  readonly #now: () => number;

  constructor(now: () => number, seed: Readonly<Record<string, string>> = {}) {
    this.#now = now;
    for (const [p, text] of Object.entries(seed)) void this.write(path.posix.dirname(p), path.posix.basename(p), new TextEncoder().encode(text));
  }

  #key(p: string): string {
    return rootSegments(p).join('/');
  }

  #entry(key: string, node: MemoryNode): FileEntry {
    return { name: key.split('/').pop() ?? '', type: node.kind, size: node.kind === 'file' ? node.bytes.length : 0, mtime: node.mtime };
  }

  async list(dir: string): Promise<FileEntry[]> {
    const key = this.#key(dir);
    const node = this.#nodes.get(key);
    if (!node) throw new Error(`No such folder: ${dir}`);
    if (node.kind !== 'folder') throw new Error(`Not a folder: ${dir}`);
    const prefix = key === '' ? '' : `${key}/`;
    return [...this.#nodes.entries()]
      .filter(([k]) => k !== key && k.startsWith(prefix) && !k.slice(prefix.length).includes('/'))
      .map(([k, n]) => this.#entry(k, n))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async stat(p: string): Promise<FileEntry | undefined> {
    const key = this.#key(p);
    const node = this.#nodes.get(key);
    return node && this.#entry(key, node);
  }

  async read(p: string): Promise<Uint8Array> {
    const node = this.#nodes.get(this.#key(p));
    if (!node || node.kind !== 'file') throw new Error(`No such file: ${p}`);
    return node.bytes;
  }

  async write(dir: string, name: string, bytes: Uint8Array): Promise<string> {
    const segs = [...rootSegments(dir), validName(name)];
    for (let i = 1; i < segs.length; i++) {
      const k = segs.slice(0, i).join('/');
      const n = this.#nodes.get(k);
      if (n && n.kind === 'file') throw new Error(`Not a folder: ${k}`);
      if (!n) this.#nodes.set(k, { kind: 'folder', mtime: this.#now() });
    }
    const key = segs.join('/');
    if (this.#nodes.get(key)?.kind === 'folder') throw new Error(`A folder is in the way: ${key}`);
    // Kept as given, not copied: both writers hand over bytes nobody changes afterwards (an upload's
    // reassembled file, a seed's fresh encoding), and `read` hands the same bytes out. A copy here was a
    // second fresh buffer of the file's size per upload, which on a simulator process holding thousands
    // of devices is page clearing and a full collection per large file (gateway bench, transfer phase).
    this.#nodes.set(key, { kind: 'file', bytes, mtime: this.#now() });
    return key;
  }

  async remove(p: string): Promise<void> {
    const key = this.#key(p);
    if (key === '') throw new PathEscapeError(p, 'The file root cannot be deleted');
    if (!this.#nodes.has(key)) throw new Error(`No such file: ${p}`);
    for (const k of [...this.#nodes.keys()]) if (k === key || k.startsWith(`${key}/`)) this.#nodes.delete(k);
  }
}
