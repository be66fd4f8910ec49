interface SubtleDigest {
  crypto: { subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } };
}

// WebCrypto is present in browsers, workers and Node 20+, but protocol/ compiles without DOM or Node
// typings, so it is reached through this narrow view.
const host = globalThis as unknown as SubtleDigest;

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await host.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}
