import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.ts';

// A console build as vite.config.ts makes it: hashed assets with .br and .gz beside them (issue 21).
const script = `export const greeting = ${JSON.stringify('hello '.repeat(500))};\n`;
const html = '<!doctype html><html><head><script type="module" src="/user/assets/index-AbCd1234.js"></script></head><body><div id="root"></div></body></html>\n';

let dir: string;
let ts: TestServer;
let base: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-assets-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  const write = (file: string, text: string) => {
    fs.writeFileSync(path.join(dir, file), text);
    fs.writeFileSync(path.join(dir, `${file}.br`), brotliCompressSync(text));
    fs.writeFileSync(path.join(dir, `${file}.gz`), gzipSync(text));
  };
  write('assets/index-AbCd1234.js', script);
  write('index.html', html);
  ts = await startTestServer('sqlite', { CONSOLE_DIR: dir });
  base = ts.server.url;
});

afterAll(async () => {
  await ts?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console static assets', () => {
  it('sends a hashed asset precompressed with brotli when asked, cached for a year as immutable', async () => {
    const res = await fetch(`${base}/user/assets/index-AbCd1234.js`, { headers: { 'Accept-Encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
    // fetch would decode it for us; read the raw bytes from the precompressed file's length instead.
    expect(Number(res.headers.get('content-length'))).toBe(fs.statSync(path.join(dir, 'assets/index-AbCd1234.js.br')).size);
    expect(brotliDecompressSync(fs.readFileSync(path.join(dir, 'assets/index-AbCd1234.js.br'))).toString()).toBe(await res.text());
  });

  it('sends gzip to a browser that accepts only gzip, and the plain file to one that accepts neither', async () => {
    const gz = await fetch(`${base}/user/assets/index-AbCd1234.js`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(await gz.text()).toBe(script);
    const plain = await fetch(`${base}/user/assets/index-AbCd1234.js`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await plain.text()).toBe(script);
  });

  it('revalidates index.html on every load, at /user/ and at a history-style route', async () => {
    for (const url of ['/user/', '/user/index.html', '/user/dashboard/index']) {
      const res = await fetch(`${base}${url}`, { headers: { 'Accept-Encoding': 'br, gzip' } });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control'), url).toBe('no-cache');
      expect(res.headers.get('content-type'), url).toMatch(/text\/html/);
      expect(await res.text(), url).toBe(html);
    }
  });
});
