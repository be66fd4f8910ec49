import { describe, expect, it } from 'vitest';
import { sha256Hex, useNativeSha256 } from '../protocol/index.ts';
import { nodeSha256 } from './ws-transport.ts';

describe('nodeSha256', () => {
  it("gives WebCrypto's digest for any size, one slice or several", async () => {
    for (const size of [0, 1, 4 * 1024 * 1024 - 1, 4 * 1024 * 1024, 4 * 1024 * 1024 + 1, 9 * 1024 * 1024 + 7]) {
      const bytes = new Uint8Array(size).map((_, k) => (k * 31) & 0xff);
      const web = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      expect(await nodeSha256(bytes)).toBe(Buffer.from(web).toString('hex'));
    }
  });

  it('is what sha256Hex uses once installed', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const portable = await sha256Hex(bytes);
    let calls = 0;
    useNativeSha256((b) => {
      calls++;
      return nodeSha256(b);
    });
    try {
      expect(await sha256Hex(bytes)).toBe(portable);
      expect(calls).toBe(1);
    } finally {
      useNativeSha256(undefined);
    }
  });
});
