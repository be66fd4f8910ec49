import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of the body alone: `X-Signature-256: sha256=<hex>` (the GitHub convention). */
export const SIGNATURE_HEADER = 'x-signature-256';
/** Seconds since the epoch when the delivery attempt was sent. */
export const TIMESTAMP_HEADER = 'x-webhook-timestamp';
/**
 * HMAC-SHA256 of `<timestamp>.<body>`: `X-Webhook-Signature: t=<timestamp>,v1=<hex>`. A receiver that
 * checks this one and refuses timestamps older than a few minutes cannot be fed a replayed delivery.
 */
export const TIMESTAMPED_SIGNATURE_HEADER = 'x-webhook-signature';

export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/** The signing headers of one delivery attempt. */
export function signatureHeaders(secret: string, body: string, timestampSeconds: number): Record<string, string> {
  return {
    [SIGNATURE_HEADER]: `sha256=${hmacHex(secret, body)}`,
    [TIMESTAMP_HEADER]: String(timestampSeconds),
    [TIMESTAMPED_SIGNATURE_HEADER]: `t=${timestampSeconds},v1=${hmacHex(secret, `${timestampSeconds}.${body}`)}`,
  };
}

/** Constant-time check of an `X-Signature-256` value (for receivers and tests). */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const want = Buffer.from(hmacHex(secret, body), 'hex');
  return given.length === want.length && timingSafeEqual(given, want);
}
