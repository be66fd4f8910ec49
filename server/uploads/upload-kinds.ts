import { englishOf, type MessageRef, msg } from '../../protocol/index.ts';
import { hasEmoji, MAX_TEXT } from '../http/validation.ts';
import { IMAGE_EXTENSIONS, UPLOAD_CAP, UPLOAD_EXTENSIONS, UploadKind, type UploadKindCode, WIFI_CONFIRM_BYTES } from '../../protocol/api/uploads.ts';

// Kinds, caps and formats are the contract's (protocol/api/uploads.ts), shared with the console.
export { IMAGE_EXTENSIONS, UPLOAD_CAP, UPLOAD_EXTENSIONS, UploadKind, type UploadKindCode, WIFI_CONFIRM_BYTES };

/** Permission key that allows sending an upload of each kind. */
export const UPLOAD_PERMISSION: Readonly<Record<UploadKindCode, string>> = {
  firmware: 'img_edit',
  file: 'file_edit',
  app: 'app_edit',
  logo: 'logo_edit',
  boot_animation: 'logo_edit',
  wallpaper: 'wallpaper_edit',
  attachment: 'custom-made-img_apply',
};

/** Upload refusals in English, for tests and callers comparing the wording. */
export const UploadMessage = englishOf({
  WrongFormat: 'upload.wrongFormat',
  AppOnlyApk: 'upload.appOnlyApk',
  ImageOnly: 'upload.imageOnly',
  BadName: 'upload.badName',
  TooLarge: 'upload.tooLarge',
  Empty: 'upload.empty',
  NoLength: 'upload.noLength',
  Failed: 'upload.failed',
  NotFinished: 'upload.notFinished',
  Gone: 'upload.gone',
  UnknownKind: 'upload.unknownKind',
});

export function isUploadKind(value: string): value is UploadKindCode {
  return Object.values(UploadKind).includes(value as UploadKindCode);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

// Letters (any script, so Chinese too), digits, space and a small punctuation set (devices-and-commerce section 5).
const NAME_CHARS = /^[\p{L}\p{N} ._\-()[\]+@#&,]+$/u;

/** Why this file may not be uploaded as this kind, or undefined when it may. */
export function refuseUpload(kind: UploadKindCode, fileName: string, size: number): MessageRef | undefined {
  if (fileName.length > MAX_TEXT) return msg('upload.nameTooLong', { max: MAX_TEXT });
  if (!fileName || fileName.startsWith('.') || hasEmoji(fileName) || !NAME_CHARS.test(fileName) || fileName.includes('..')) return msg('upload.badName');
  const allowed = UPLOAD_EXTENSIONS[kind];
  if (allowed && !allowed.includes(extensionOf(fileName))) {
    return msg(kind === 'app' ? 'upload.appOnlyApk' : allowed === IMAGE_EXTENSIONS ? 'upload.imageOnly' : 'upload.wrongFormat');
  }
  if (size <= 0) return msg('upload.empty');
  if (size > UPLOAD_CAP[kind]) return msg('upload.tooLargeAtMost', { mb: Math.round(UPLOAD_CAP[kind] / 1024 ** 2) });
  return undefined;
}

/** True when the first bytes are a PNG, JPEG or BMP header (an image upload must be what its name says). */
export function looksLikeImage(head: Buffer): boolean {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return true;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return true;
  return head[0] === 0x42 && head[1] === 0x4d;
}

/** True when the first bytes are a ZIP local header (APKs and boot animations are ZIPs). */
export function looksLikeZip(head: Buffer): boolean {
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}
