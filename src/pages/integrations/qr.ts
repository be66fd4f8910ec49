import { renderSVG } from 'uqr';

/** A data: URL of the QR code of `text` (an otpauth:// link), for an <img>. uqr: tiny, no dependencies. */
export function qrDataUrl(text: string): string {
  return `data:image/svg+xml;utf8,${encodeURIComponent(renderSVG(text, { border: 2 }))}`;
}
