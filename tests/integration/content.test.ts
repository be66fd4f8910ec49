import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApk } from '../fixtures/apk.ts';
import { dbTargets } from '../support/databases.ts';
import { api, loginAsAdmin, startTestServer, type TestServer } from '../support/server.ts';

const targets = await dbTargets();

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Creates a tus upload; returns the response (Location header holds the upload URL). */
async function createUpload(ts: TestServer, token: string, kind: string, filename: string, length: number): Promise<Response> {
  return fetch(`${ts.server.url}/upload/files`, {
    method: 'POST',
    headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(length), 'Upload-Metadata': `kind ${b64(kind)},filename ${b64(filename)}` },
  });
}

async function patch(ts: TestServer, token: string, location: string, offset: number, body: Buffer): Promise<Response> {
  return fetch(`${ts.server.url}${location}`, {
    method: 'PATCH',
    headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: new Uint8Array(body),
  });
}

/** Uploads a whole file in one PATCH; returns its upload URL. */
export async function uploadWhole(ts: TestServer, token: string, kind: string, filename: string, data: Buffer): Promise<string> {
  const created = await createUpload(ts, token, kind, filename, data.length);
  expect(created.status).toBe(201);
  const location = created.headers.get('location') ?? '';
  expect((await patch(ts, token, location, 0, data)).status).toBe(204);
  return location;
}

describe.each(targets)('content on $name', (target) => {
  let ts: TestServer;
  let token: string;
  const call = <T>(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) => api<T>(ts.server.url, method, url, { token, body });

  beforeAll(async () => {
    if (!target.available) return;
    ts = await startTestServer(target.name);
    token = (await loginAsAdmin(ts)).token;
  });
  afterAll(async () => ts?.stop());

  it.runIf(target.available)('resumes an interrupted upload and stores the file under its SHA-256', async () => {
    const data = Buffer.alloc(300_000, 7);
    data.write('firmware image', 0);
    const created = await createUpload(ts, token, 'firmware', 'fw-201025.bin', data.length);
    expect(created.status).toBe(201);
    const location = created.headers.get('location') ?? '';
    expect(location).toMatch(/^\/upload\/files\/[0-9a-f]{32}$/);
    // The connection drops after the first part: the server keeps what arrived.
    expect((await patch(ts, token, location, 0, data.subarray(0, 120_000))).status).toBe(204);
    const head = await fetch(`${ts.server.url}${location}`, { method: 'HEAD', headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0' } });
    expect(head.headers.get('upload-offset')).toBe('120000');
    // Another account cannot see or continue it.
    const other = await fetch(`${ts.server.url}${location}`, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } });
    expect(other.headers.get('upload-offset')).toBeNull();
    expect((await patch(ts, token, location, 120_000, data.subarray(120_000))).status).toBe(204);
    const added = await call<{ id: number; sha256: string; size: number; version: string }>('POST', '/img/add', {
      uploadId: location, type: 'system', version: '201025.11', model: 'P10', systemType: 'android', offlineInstall: true,
    });
    expect(added.code).toBe(20000);
    expect(added.data.sha256).toBe(sha(data));
    expect(added.data.size).toBe(data.length);
    const download = await fetch(`${ts.server.url}/img/download/${added.data.id}`, { headers: { 'X-Token': token } });
    expect(sha(Buffer.from(await download.arrayBuffer()))).toBe(sha(data));
    // An upload is taken once.
    expect((await call('POST', '/img/add', { uploadId: location, type: 'system', version: '201025.11', model: 'P10', systemType: 'android' })).code).not.toBe(20000);
  });

  it.runIf(target.available)('refuses wrong formats, long names, oversize files and bad versions with clear messages', async () => {
    const apkAsText = await createUpload(ts, token, 'app', 'notes.txt', 10);
    expect(apkAsText.status).toBe(400);
    expect(((await apkAsText.json()) as { message: string }).message).toBe('Only .apk files can be uploaded as apps');
    const longName = await createUpload(ts, token, 'file', `${'a'.repeat(130)}.bin`, 10);
    expect(((await longName.json()) as { message: string }).message).toMatch(/too long/);
    const huge = await createUpload(ts, token, 'firmware', 'big.img', 2 * 1024 ** 3 + 1);
    expect(huge.status).toBe(413);
    const bigApp = await createUpload(ts, token, 'app', 'big.apk', 100 * 1024 ** 2 + 1);
    expect(((await bigApp.json()) as { message: string }).message).toMatch(/too large/);
    const logoText = await createUpload(ts, token, 'logo', 'logo.txt', 10);
    expect(((await logoText.json()) as { message: string }).message).toMatch(/Only images/);
    // A .png that is not an image is refused when it is added.
    const fake = await uploadWhole(ts, token, 'logo', 'fake.png', Buffer.from('not an image at all'));
    const refused = await call('POST', '/logo/add', { uploadId: fake, type: 'logo' });
    expect(refused.message).toMatch(/Only images/);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64)]);
    const logo = await call<{ state: number }>('POST', '/logo/add', { uploadId: await uploadWhole(ts, token, 'logo', 'boot.png', png), type: 'logo' });
    expect(logo.data.state).toBe(1);
    const fw = await uploadWhole(ts, token, 'firmware', 'mcu.bin', Buffer.from('mcu'));
    expect((await call('POST', '/img/add', { uploadId: fw, type: 'mcu', version: '201025.11', model: 'P10', systemType: 'android' })).message).toMatch(/Version format/);
    expect((await call('POST', '/img/add', { uploadId: fw, type: 'mcu', version: 'v1.03', model: 'P10', systemType: 'android' })).code).toBe(20000);
    const noToken = await fetch(`${ts.server.url}/upload/files`, { method: 'POST', headers: { 'Tus-Resumable': '1.0.0', 'Upload-Length': '1', 'Upload-Metadata': `kind ${b64('file')},filename ${b64('a.bin')}` } });
    expect(((await noToken.json()) as { code: number }).code).toBe(3);
  });

  it.runIf(target.available)('reads package name and versions from the APK itself, never from the form', async () => {
    const v1 = buildApk({ packageName: 'com.example.scanner', versionName: '1.0.0', versionCode: 10 });
    const added = await call<{ id: number; packageName: string; versionName: string; versionCode: number }>('POST', '/app/add', {
      uploadId: await uploadWhole(ts, token, 'app', 'scanner.apk', v1), type: 'general',
    });
    expect(added.data).toMatchObject({ packageName: 'com.example.scanner', versionName: '1.0.0', versionCode: 10 });
    const v2 = buildApk({ packageName: 'com.example.scanner', versionName: '1.1.0', versionCode: 11 });
    const updated = await call<{ versionCode: number }>('POST', '/app/update', { id: added.data.id, uploadId: await uploadWhole(ts, token, 'app', 'scanner-1.1.apk', v2) });
    expect(updated.data.versionCode).toBe(11);
    const older = buildApk({ packageName: 'com.example.scanner', versionName: '0.9', versionCode: 9 });
    expect((await call('POST', '/app/update', { id: added.data.id, uploadId: await uploadWhole(ts, token, 'app', 'old.apk', older) })).message).toMatch(/higher/);
    const history = await call<{ versionCode: number }[]>('GET', `/app/history/${added.data.id}`);
    expect(history.data.map((h) => h.versionCode)).toEqual([11, 10]);
    const list = await call<{ list: { packageName: string; versionCode: number }[] }>('POST', '/app/list', { pageNum: 1, pageSize: 10 });
    expect(list.data.list.filter((a) => a.packageName === 'com.example.scanner').map((a) => a.versionCode)).toEqual([11]);
    // A zip without a manifest is not an app.
    const notApk = Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.alloc(40)]);
    expect((await call('POST', '/app/add', { uploadId: await uploadWhole(ts, token, 'app', 'broken.apk', notApk), type: 'general' })).message).toMatch(/not a valid APK/);
    // A .apk that is not even a ZIP is a corrupt APK, not a wrong format (issue 20).
    const garbage = Buffer.from('this is no zip at all');
    expect((await call('POST', '/app/add', { uploadId: await uploadWhole(ts, token, 'app', 'garbage.apk', garbage), type: 'general' })).message).toBe('The file is not a valid APK');
  });

  it.runIf(target.available)('keeps folders out of downloads and caps a delete at 100 entries', async () => {
    const folder = await call<{ id: number }>('POST', '/file/folder', { name: 'Manuals' });
    expect((await call('GET', `/file/download/${folder.data.id}`)).message).toBe('Unable To Download Folders!');
    const inside = await call<{ id: number; parentId: number }>('POST', '/file/add', { uploadId: await uploadWhole(ts, token, 'file', 'guide.pdf', Buffer.from('%PDF-1.4')), parentId: folder.data.id });
    expect(inside.data.parentId).toBe(folder.data.id);
    const tooMany = await call('DELETE', '/file/delete', { ids: Array.from({ length: 101 }, (_, i) => i + 1) });
    expect(tooMany.message).toBe('At most 100 files per delete');
    expect((await call<{ deleted: number }>('DELETE', '/file/delete', { ids: [folder.data.id] })).data.deleted).toBe(2);
  });
  it.runIf(target.available)('walks a custom firmware order through its allowed states and refuses the others', async () => {
    const att = await uploadWhole(ts, token, 'attachment', 'requirements.pdf', Buffer.from('%PDF-1.4 spec'));
    const order = await call<{ id: number; state: number; attachmentId: number }>('POST', '/custom-made-img/apply', { title: 'Kiosk build', description: 'Locked launcher', attachmentUploadId: att });
    expect(order.data.state).toBe(0);
    expect(order.data.attachmentId).toBeGreaterThan(0);
    const step = (action: string, extra: Record<string, unknown> = {}) => call<{ state: number; amount: number }>('POST', '/custom-made-img/transition', { id: order.data.id, action, ...extra });
    // Nothing skips ahead: no payment, development or finish before a quote.
    for (const action of ['payOffline', 'confirmPayment', 'finishDevelopment', 'confirmFinish']) expect((await step(action)).message).toMatch(/not allowed/);
    expect((await step('quote')).message).toBe('A quote needs an amount');
    expect((await step('quote', { amount: 1200.5, assessment: 'two weeks' })).data).toMatchObject({ state: 6, amount: 1200.5 });
    expect((await step('payOffline')).data.state).toBe(7);
    expect((await step('cancel')).message).toMatch(/not allowed/);
    expect((await step('confirmPayment')).data.state).toBe(3);
    expect((await step('finishDevelopment')).data.state).toBe(4);
    expect((await step('confirmFinish')).data.state).toBe(5);
    expect((await step('refuse', { refuseReason: 'late' })).message).toMatch(/not allowed/);
    const refused = await call<{ id: number }>('POST', '/custom-made-img/apply', { title: 'Second' });
    expect((await call('POST', '/custom-made-img/transition', { id: refused.data.id, action: 'refuse' })).message).toBe('A refusal needs a reason');
    expect((await call<{ state: number }>('POST', '/custom-made-img/transition', { id: refused.data.id, action: 'refuse', refuseReason: 'Out of scope' })).data.state).toBe(2);
  });
});
