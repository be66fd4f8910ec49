/*
 * Push payloads (devices-and-commerce section 4, "Push"): 65551 PushFile (platform -> device) and
 * 5 PushProgress (device -> platform). Declared once here; the campaign runner builds PushFile from it,
 * the agent and the simulator decode it with `decodePushFile`, and the runner decodes reports with
 * `decodePushProgress`. Each decoder is the edge: past it nothing casts.
 */

/** 65551 PushFile request data: what to download, how to check it, and whether to install it. */
export interface PushFileRequest {
  readonly campaignId: number;
  /** Content kind (apk, firmware, file, logo, wallpaper, ...), as the content library names it. */
  readonly kind: string;
  /** Where the device downloads the bytes: a path on the platform (`/content/blob/<sha256>`) or a URL. */
  readonly url: string;
  /** Lower-case hex SHA-256 of the content; the device checks the download against it. */
  readonly sha256: string;
  readonly size: number;
  readonly fileName: string;
  /** The content's version ('' when it has none). */
  readonly version: string;
  /** The application's package name for an APK ('' otherwise). */
  readonly packageName: string;
  /** Install (or apply) after a successful download. */
  readonly autoInstall: boolean;
}

/** 5 PushProgress request data: one report on one push, download state 0-7 and install result -1..2. */
export interface PushProgressReport {
  readonly campaignId: number;
  readonly downloadState: number;
  /** Download progress, 0-100. */
  readonly progress: number;
  readonly installResult?: number;
  /** A reason a person can read, at most 200 characters kept. */
  readonly message?: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function integerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

function nonNegativeInteger(value: unknown): value is number {
  return integerIn(value, 0, Number.MAX_SAFE_INTEGER);
}

/**
 * Reads a PushFile request, or undefined when it is not one. Every field is required on the wire (the
 * platform always sends them all); a device that must refuse a push answers with result 2 (failure).
 */
export function decodePushFile(data: unknown): PushFileRequest | undefined {
  if (!isRecord(data)) return undefined;
  const { campaignId, kind, url, sha256, size, fileName, version, packageName, autoInstall } = data;
  if (!nonNegativeInteger(campaignId) || !nonNegativeInteger(size)) return undefined;
  if (typeof url !== 'string' || url === '' || typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) return undefined;
  if (typeof kind !== 'string' || typeof fileName !== 'string' || typeof version !== 'string' || typeof packageName !== 'string') return undefined;
  if (typeof autoInstall !== 'boolean') return undefined;
  return { campaignId, kind, url, sha256, size, fileName, version, packageName, autoInstall };
}

/** Reads a PushProgress report, or undefined when it is not one (unknown states are refused, not guessed). */
export function decodePushProgress(data: unknown): PushProgressReport | undefined {
  if (!isRecord(data)) return undefined;
  const { campaignId, downloadState, progress, installResult, message } = data;
  if (!nonNegativeInteger(campaignId) || !integerIn(downloadState, 0, 7)) return undefined;
  if (installResult !== undefined && !integerIn(installResult, -1, 2)) return undefined;
  if (message !== undefined && typeof message !== 'string') return undefined;
  const percent = typeof progress === 'number' && Number.isFinite(progress) ? Math.max(0, Math.min(100, Math.round(progress))) : 0;
  return {
    campaignId,
    downloadState,
    progress: percent,
    ...(installResult === undefined ? {} : { installResult }),
    ...(message === undefined ? {} : { message: message.slice(0, 200) }),
  };
}
