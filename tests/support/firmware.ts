import { expect } from 'vitest';
import { api } from './server.ts';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** Uploads a small system image for model P10 over tus and adds it as firmware; returns its content id. */
export async function uploadFirmware(url: string, token: string): Promise<number> {
  const data = Buffer.from('system image bytes '.repeat(100));
  const created = await fetch(`${url}/upload/files`, {
    method: 'POST',
    headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Length': String(data.length), 'Upload-Metadata': `kind ${b64('firmware')},filename ${b64('p10-241020.img')}` },
  });
  const location = created.headers.get('location') ?? '';
  await fetch(`${url}${location}`, { method: 'PATCH', headers: { 'X-Token': token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' }, body: new Uint8Array(data) });
  const added = await api<{ id: number }>(url, 'POST', '/img/add', { token, body: { uploadId: location, type: 'system', version: '241020.10', model: 'P10', systemType: 'android' } });
  expect(added.code).toBe(20000);
  return added.data.id;
}
