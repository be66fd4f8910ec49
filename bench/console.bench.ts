import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'vite';
import type { BenchRow } from './table.ts';

const root = path.resolve(import.meta.dirname, '..');

interface ManifestChunk {
  readonly file: string;
  readonly imports?: readonly string[];
  readonly css?: readonly string[];
}
type Manifest = Readonly<Record<string, ManifestChunk>>;

/** A built file's size as sent: its precompressed sibling when the build made one (what the server sends). */
function sentSize(dir: string, file: string, enc: 'gz' | 'br'): number {
  const full = path.join(dir, file);
  if (fs.existsSync(`${full}.${enc}`)) return fs.statSync(`${full}.${enc}`).size;
  const bytes = fs.readFileSync(full);
  return (enc === 'gz' ? gzipSync(bytes) : brotliCompressSync(bytes)).length;
}

/**
 * The files a browser fetches to show these modules: each one's chunk, its stylesheets and every chunk
 * it imports statically (Vite preloads them together); never the dynamic `import()` of other pages.
 */
export function filesFor(manifest: Manifest, modules: readonly string[]): string[] {
  const files = new Set<string>(['index.html']);
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`no chunk for ${key} in the build manifest`);
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  for (const m of modules) visit(m);
  return [...files];
}

/**
 * Gzip and brotli bytes of what the login page loads and of what the shell loads with its landing page
 * (the dashboard), as sent precompressed, beside the whole console. Builds the console into a temp dir.
 */
export async function runConsoleBench(): Promise<BenchRow[]> {
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-bench-'));
  try {
    await build({ root, configFile: path.join(root, 'vite.config.ts'), logLevel: 'error', build: { outDir, emptyOutDir: true, manifest: true } });
    const manifest = JSON.parse(fs.readFileSync(path.join(outDir, '.vite', 'manifest.json'), 'utf8')) as Manifest;
    const kB = (files: readonly string[], enc: 'gz' | 'br') => files.reduce((n, f) => n + sentSize(outDir, f, enc), 0) / 1000;
    // Each language's texts are a chunk the entry imports on start (src/i18n/index.ts): a page counts the
    // larger of the two, as a visit in that language loads it.
    const withLanguage = (modules: readonly string[]) => {
      const en = filesFor(manifest, [...modules, 'src/i18n/locales/en.ts']);
      const zh = filesFor(manifest, [...modules, 'src/i18n/locales/zh.ts']);
      return kB(en, 'gz') >= kB(zh, 'gz') ? en : zh;
    };
    const login = withLanguage(['index.html', 'src/pages/login/LoginPage.tsx']);
    const shell = withLanguage(['index.html', 'src/layout/Shell.tsx', 'src/pages/dashboard/DashboardPage.tsx']);
    const all = fs
      .readdirSync(path.join(outDir, 'assets'))
      .filter((f) => /\.(js|css)$/.test(f))
      .map((f) => `assets/${f}`);
    const largest = Math.max(...all.map((f) => fs.statSync(path.join(outDir, f)).size)) / 1000;
    const whole = { gz: kB(all, 'gz'), br: kB(all, 'br') };
    return [
      { name: `login page (${login.length} files), gzip`, value: kB(login, 'gz'), unit: 'kB', baseline: whole.gz, target: '< 250 kB; baseline: every chunk of the console' },
      { name: 'login page, brotli', value: kB(login, 'br'), unit: 'kB', baseline: whole.br, target: 'what a browser asking for br gets' },
      { name: `shell with the dashboard (${shell.length} files), gzip`, value: kB(shell, 'gz'), unit: 'kB', baseline: whole.gz, target: '< 250 kB' },
      { name: 'shell with the dashboard, brotli', value: kB(shell, 'br'), unit: 'kB', baseline: whole.br },
      { name: 'largest chunk, minified', value: largest, unit: 'kB', target: 'under the 500 kB warning' },
    ];
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}
