import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Client, client, createAccount, createRole } from '../support/console-api.ts';
import { loginAs, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

/*
 * The upload directory is bounded (security review M5): per account, the uploads open at once and the
 * bytes they declare are capped, creating uploads is rate-limited, finished uploads nobody takes are swept
 * like unfinished ones, and a PATCH still sending bytes is cut off when its session ends (review M1). The
 * caps are set small through the server's configuration, so nothing here fills a disk.
 */

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const KB = 1024;

interface Created {
  status: number;
  location: string;
  body: { code?: number; message?: string };
}

async function create(ts: TestServer, token: string, length: number, name = 'data.bin'): Promise<Created> {
  const res = await fetch(`${ts.server.url}/upload/files`, {
    method: 'POST',
    headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(length), 'Upload-Metadata': `kind ${b64('file')},filename ${b64(name)}` },
  });
  const text = await res.text();
  return { status: res.status, location: res.headers.get('location') ?? '', body: text ? (JSON.parse(text) as Created['body']) : {} };
}

async function send(ts: TestServer, token: string, location: string, data: Buffer, offset = 0): Promise<number> {
  const res = await fetch(`${ts.server.url}${location}`, {
    method: 'PATCH',
    headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: new Uint8Array(data),
  });
  return res.status;
}

async function offsetOf(ts: TestServer, token: string, location: string): Promise<{ status: number; offset: number }> {
  const res = await fetch(`${ts.server.url}${location}`, { method: 'HEAD', headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0' } });
  return { status: res.status, offset: Number(res.headers.get('upload-offset') ?? -1) };
}

let serial = 0;
const unique = (prefix: string) => `${prefix}${++serial}`;

/** An account of the platform organisation that may upload files (file_edit). */
async function uploader(ts: TestServer, admin: Client, roleId: number): Promise<{ token: string; login: () => Promise<string> }> {
  const name = unique('uploader');
  await createAccount(admin, name, 'Upload_pw1', roleId);
  const login = async () => (await loginAs(ts, name, 'Upload_pw1')).token;
  return { token: await login(), login };
}

describe('upload caps per account and the creation rate', () => {
  let ts: TestServer;
  let admin: Client;
  let roleId: number;

  beforeAll(async () => {
    ts = await startTestServer('sqlite', { UPLOAD_MAX_OPEN: '2', UPLOAD_MAX_BYTES_MB: '1', UPLOAD_CREATE_PER_MINUTE: '6' });
    admin = client(ts, (await loginAsAdmin(ts)).token);
    roleId = await createRole(admin, unique('uploaders'), ['file_list', 'file_edit']);
  });
  afterAll(async () => ts?.stop());

  it('caps the uploads one account has open; another account has its own; adding one frees its place', async () => {
    const a = await uploader(ts, admin, roleId);
    const first = await create(ts, a.token, KB);
    const second = await create(ts, a.token, KB);
    expect([first.status, second.status]).toEqual([201, 201]);
    const third = await create(ts, a.token, KB);
    expect(third).toMatchObject({ status: 429, body: { message: 'Too many uploads not added yet (at most 2): finish and add them first' } });
    // Finished but not added still counts: the disk holds it.
    expect(await send(ts, a.token, first.location, Buffer.alloc(KB, 1))).toBe(204);
    expect((await create(ts, a.token, KB)).status).toBe(429);

    const b = await uploader(ts, admin, roleId);
    expect((await create(ts, b.token, KB)).status).toBe(201);

    // Adding the finished upload takes it out of the upload directory, and its place is free again.
    expect((await client(ts, a.token).call('POST', '/file/add', { uploadId: first.location })).code).toBe(20000);
    expect((await create(ts, a.token, KB)).status).toBe(201);
  });

  it('caps the bytes the open uploads of one account declare together', async () => {
    const c = await uploader(ts, admin, roleId);
    expect((await create(ts, c.token, 700 * KB)).status).toBe(201);
    expect(await create(ts, c.token, 400 * KB)).toMatchObject({ status: 413, body: { message: 'Uploads not added yet are too large together (at most 1 MB)' } });
    expect((await create(ts, c.token, 300 * KB)).status).toBe(201);
  });

  it('limits how many uploads one account creates a minute, refused or not', async () => {
    const d = await uploader(ts, admin, roleId);
    const answers: Created[] = [];
    for (let i = 0; i < 7; i++) answers.push(await create(ts, d.token, KB));
    expect(answers.slice(0, 2).map((r) => r.status)).toEqual([201, 201]);
    expect(answers[6]?.body).toMatchObject({ code: 40029, message: 'You click too frequently！' });
    // Another account is not slowed down.
    expect((await create(ts, (await uploader(ts, admin, roleId)).token, KB)).status).toBe(201);
  });

  it('cuts off an upload still sending when its session logs out', async () => {
    const e = await uploader(ts, admin, roleId);
    const other = await e.login();
    const upload = await create(ts, e.token, 512 * KB);
    expect(upload.status).toBe(201);
    // A slow client: the first 64 KB now, the rest never.
    const req = http.request(`${ts.server.url}${upload.location}`, {
      method: 'PATCH',
      headers: { 'X-Token': e.token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream', 'Content-Length': String(512 * KB) },
    });
    const cut = new Promise<void>((resolve) => {
      req.on('error', () => resolve());
      req.on('response', (res) => res.on('close', () => resolve()).resume());
    });
    req.write(Buffer.alloc(64 * KB, 2));
    // Read from the disk: a tus HEAD would itself take the upload's lock and stop the PATCH.
    const file = path.join(ts.config.dataDir, 'uploads', upload.location.split('/').pop() ?? '');
    await vi.waitFor(() => expect(fs.statSync(file).size).toBe(64 * KB), { timeout: 10_000 });
    await client(ts, e.token).ok('GET', '/home/logout');
    await cut;
    req.destroy();
    expect(await offsetOf(ts, other, upload.location)).toEqual({ status: 200, offset: 64 * KB });
  });
});

describe('the sweep of uploads nobody takes', () => {
  let ts: TestServer;

  beforeAll(async () => {
    ts = await startTestServer('sqlite', { UPLOAD_UNCLAIMED_SECONDS: '1', UPLOAD_SWEEP_SECONDS: '1' });
  });
  afterAll(async () => ts?.stop());

  it('removes a finished upload no add call took, and leaves an unfinished one to its own expiry', async () => {
    const { token } = await loginAsAdmin(ts);
    const finished = await create(ts, token, KB);
    expect(await send(ts, token, finished.location, Buffer.alloc(KB, 3))).toBe(204);
    const unfinished = await create(ts, token, 2 * KB);
    expect(await send(ts, token, unfinished.location, Buffer.alloc(KB, 4))).toBe(204);
    const dir = path.join(ts.config.dataDir, 'uploads');
    const idOf = (location: string) => location.split('/').pop() ?? '';

    await vi.waitFor(() => expect(fs.existsSync(path.join(dir, idOf(finished.location)))).toBe(false), { timeout: 10_000, interval: 200 });
    expect(fs.existsSync(path.join(dir, `${idOf(finished.location)}.json`))).toBe(false);
    expect((await offsetOf(ts, token, finished.location)).status).toBe(404);
    expect(await offsetOf(ts, token, unfinished.location)).toEqual({ status: 200, offset: KB });
  });
});
