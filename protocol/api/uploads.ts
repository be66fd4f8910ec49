// Uploads (tus, /upload/*): what an upload may be, how large, in which formats. The server enforces these
// (server/uploads/upload-kinds.ts) and the console checks them before sending: one definition for both.
// The tus protocol's own requests carry no JSON body, so there is no request schema here.

/** What an upload is for; decides its size cap, its accepted formats and the key needed to send it. */
export const UploadKind = {
  Firmware: 'firmware',
  App: 'app',
  File: 'file',
  Logo: 'logo',
  BootAnimation: 'boot_animation',
  Wallpaper: 'wallpaper',
  Attachment: 'attachment',
} as const;
export type UploadKindCode = (typeof UploadKind)[keyof typeof UploadKind];

const GB = 1024 ** 3;
const MB = 1024 ** 2;

/** Largest upload of each kind (devices-and-commerce section 5: caps 2GB and 100MB; docs/DECISIONS.md says which is which). */
export const UPLOAD_CAP: Readonly<Record<UploadKindCode, number>> = {
  firmware: 2 * GB,
  file: 2 * GB,
  app: 100 * MB,
  logo: 100 * MB,
  boot_animation: 100 * MB,
  wallpaper: 100 * MB,
  attachment: 100 * MB,
};

/** Above this size the console asks the user to confirm a Wi-Fi connection before sending. */
export const WIFI_CONFIRM_BYTES = 5 * MB;

export const IMAGE_EXTENSIONS = ['png', 'jpg', 'jpeg', 'bmp'] as const;

/** Extensions each kind accepts; undefined accepts any. */
export const UPLOAD_EXTENSIONS: Readonly<Record<UploadKindCode, readonly string[] | undefined>> = {
  firmware: undefined,
  file: undefined,
  app: ['apk'],
  logo: IMAGE_EXTENSIONS,
  boot_animation: ['zip'],
  wallpaper: IMAGE_EXTENSIONS,
  attachment: undefined,
};
