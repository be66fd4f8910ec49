import { isRecord } from './decode.ts';
import type { ProcessStateCode } from './enums.ts';

/*
 * Request and reply payloads (`data`) of the platform-to-device commands this protocol defines, as the
 * agent and simulator implement them. PROTOCOL.md ("Payloads") is the prose version of this file.
 * Live-view commands (StartStream, StopStream, RemoteControl) are typed in stream.ts; PushFile and
 * PushProgress in push.ts.
 */

/** A reply whose result is not 0 carries a reason a person can read. */
export interface FailureReply {
  readonly message: string;
}

/** Storage or memory figures in bytes. */
export interface Capacity {
  readonly total: number;
  readonly free: number;
}

/** 65612 base info: identity as at login, plus capacity, MACs and uptime. Request: none. */
export interface BaseInfoReply {
  readonly model: string;
  readonly systemType: 'android' | 'linux';
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
  readonly hostname?: string;
  readonly kernel?: string;
  readonly arch?: string;
  readonly memory: Capacity;
  readonly storage?: Capacity;
  readonly macs?: readonly MacAddress[];
  /** Seconds since the device booted. */
  readonly uptime?: number;
}

export interface MacAddress {
  /** Interface name, e.g. wlan0, eth0, bt. */
  readonly name: string;
  readonly mac: string;
}

/** 65613 system info: hardware and software of the device. Request: none. */
export interface SystemInfoReply {
  readonly manufacturer: string;
  readonly model: string;
  readonly systemType: 'android' | 'linux';
  readonly systemVersion: string;
  readonly kernel: string;
  readonly arch: string;
  readonly cpuModel: string;
  readonly cpuCores: number;
  readonly memory: Capacity;
  readonly storage: Capacity;
  readonly wlanMac: string;
  readonly bluetoothMac: string;
  readonly macs: readonly MacAddress[];
  readonly imei?: string;
  readonly basebandVersion?: string;
  readonly uptime: number;
  /** Support flags of the device entity (devices-and-commerce section 3), true when supported/enabled. */
  readonly support: Readonly<Record<SupportFlag, boolean>>;
}

/** Support flags of the device entity, in the spec's order. */
export const SUPPORT_FLAGS = [
  'appsInstall',
  'camera',
  'screenCapture',
  'wlan',
  'wifi',
  'mobileData',
  'bluetooth',
  'mic',
  'gps',
  'location',
  'adb',
  'forcedOrientation',
  'systemUpgrade',
  'developerOptions',
  'accessibility',
  'security',
  'backupReset',
  'addAccount',
] as const;
export type SupportFlag = (typeof SUPPORT_FLAGS)[number];


export interface ProcessInfo {
  readonly pid: number;
  readonly name: string;
  /** Single-letter state of the spec (ProcessState in enums.ts). */
  readonly state: ProcessStateCode;
  /** Share of one CPU over the sampling interval, 0-100 x cores. */
  readonly cpu: number;
  /** Resident memory in bytes. */
  readonly rss: number;
  readonly user?: string;
}

/** Runtime request data (65614): `limit` caps the processes listed (default 200, most CPU first). */
export interface RuntimeInfoRequest {
  readonly limit?: number;
}

/** 65614 runtime info: a sample taken when asked. */
export interface RuntimeInfoReply {
  /** Device time of the sample, epoch ms. */
  readonly time: number;
  /** Whole-device CPU use, percent 0-100. */
  readonly cpu: number;
  readonly memory: Capacity;
  readonly load?: readonly [number, number, number];
  readonly processCount: number;
  readonly processes: readonly ProcessInfo[];
}

/**
 * 65563 shell, one flow (`flowId`) per session. Requests:
 * - `open` starts (or re-attaches to) the session; reply `ShellOpenReply`. With `raw: true` the device
 *   also starts an interactive terminal (a pseudo-terminal on Linux) whose output it streams on the flow.
 * - `write` sends keystrokes to the interactive terminal exactly as typed (Ctrl-C is `\x03`).
 * - `input` runs one command line on its own; the output arrives as `ShellOutput` messages on the flow,
 *   then the reply `{exitCode, cwd}` (line mode, kept for callers without a terminal).
 * - `resize` sets the terminal's size (the interactive terminal hears SIGWINCH; line commands see
 *   COLUMNS/LINES).
 * - `close` ends the session.
 */
export type ShellRequest =
  | { readonly op: 'open'; readonly cols?: number; readonly rows?: number; readonly raw?: boolean; readonly since?: number }
  | { readonly op: 'write'; readonly data: string }
  | { readonly op: 'input'; readonly line: string }
  | { readonly op: 'resize'; readonly cols: number; readonly rows: number }
  | { readonly op: 'close' };

/** Why a device ended an interactive shell: its shell exited, it sat idle too long, or it was closed. */
export type ShellEndReason = 'exit' | 'idle' | 'closed';

/** Connection information of a shell session. A device that gives none fails the open. */
export interface ShellOpenReply {
  readonly user: string;
  readonly host: string;
  readonly cwd: string;
  readonly prompt: string;
  /** True when the session has an interactive terminal: the console sends `write` and draws nothing itself. */
  readonly raw?: boolean;
  /** Characters of terminal output the session has produced so far. */
  readonly offset?: number;
  /** Terminal output from the request's `since` (or as far back as the device keeps) up to `offset`. */
  readonly backlog?: string;
}

export interface ShellExitReply {
  readonly exitCode: number;
  readonly cwd: string;
}

/** Output of a shell session, sent by the device on the flow without a cid. */
export interface ShellOutput {
  readonly output: string;
  readonly stream?: 'stdout' | 'stderr';
  /** Terminal output only: characters of output before this chunk, so a console can drop what it has. */
  readonly offset?: number;
  /** Set on the last message of an interactive terminal that has ended. */
  readonly ended?: ShellEndReason;
}

/** A directory entry. `type` follows the file entity: file or folder. */
export interface FileEntry {
  readonly name: string;
  readonly type: 'file' | 'folder';
  readonly size: number;
  /** Last modification, epoch ms. */
  readonly mtime: number;
}

/** 65601 file list. Paths are relative to the device's file root; '' or '/' is the root. */
export interface FileListRequest {
  readonly path: string;
}
export interface FileListReply {
  readonly path: string;
  readonly entries: readonly FileEntry[];
}

/**
 * 65602 file upload (console to device) on a flow: the device answers progress (result 6) `{stage:
 * 'ready'}`, the console sends the bytes as a transfer (XFER-*) on the same flow, and the device's final
 * reply is `FileWrittenReply` once the file is written.
 */
export interface FileUploadRequest {
  /** Directory to write into, relative to the root. */
  readonly path: string;
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
}
export interface FileWrittenReply {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * 65603 file download (device to console) on a flow: the device answers progress `DeviceFileOffer`, then
 * sends the bytes as a transfer on the same flow, and replies `{sha256, size}` when the console has them.
 * Folders are refused ('Unable To Download Folders!').
 */
export interface FileDownloadRequest {
  readonly path: string;
}

/** Progress reply announcing a file the device is about to send on the request's flow. */
export interface DeviceFileOffer {
  readonly stage: 'sending';
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
  readonly mime: string;
}

/** 65604 file delete: at most MAX_DELETE paths; more are refused with result 2. */
export interface FileDeleteRequest {
  readonly paths: readonly string[];
}
export interface FileDeleteReply {
  readonly deleted: readonly string[];
  readonly failed: readonly { readonly path: string; readonly message: string }[];
}

/** At most this many paths per delete (devices-and-commerce section 5). */
export const MAX_DELETE = 100;

/** 65564 screenshot on a flow: progress `DeviceFileOffer` (image/png), then the PNG as a transfer. */
export interface ScreenshotRequest {
  /**
   * A thumbnail at most this many pixels wide (the monitor centre's wall); absent: the full screen. The
   * real agent hands it to its screenshot command as SCREENSHOT_MAX_WIDTH (the command decides how to
   * honour it, as the sub stream's size); the simulator draws at that width.
   */
  readonly maxWidth?: number;
}

/** Widths a screenshot's `maxWidth` may ask for (a smaller or larger one is ignored: full size). */
export const SCREENSHOT_MIN_WIDTH = 32;
export const SCREENSHOT_MAX_WIDTH = 4096;

/** The thumbnail width asked in a screenshot request's data, or undefined for the full screen. */
export function screenshotMaxWidth(data: unknown): number | undefined {
  const w = isRecord(data) ? data.maxWidth : undefined;
  return typeof w === 'number' && Number.isInteger(w) && w >= SCREENSHOT_MIN_WIDTH && w <= SCREENSHOT_MAX_WIDTH ? w : undefined;
}

/** 65577 grab log on a flow: the tail of a log as a transfer (`DeviceFileOffer`, text/plain). */
export interface GrabLogRequest {
  /** Most bytes of the log's end to send (default 256 KiB, at most 4 MiB). */
  readonly maxBytes?: number;
}

/** 65549 push text: a message shown on the device. */
export interface PushTextRequest {
  readonly title?: string;
  readonly text: string;
}
/** Reply of actions that only report that they happened (push text, clear, reset, whitelist, daemon, SSH). */
export interface DoneReply {
  readonly message: string;
}

/** 65559 factory reset, 65607 clear data, 65608 clear cache: an optional package for clearing one app. */
export interface ClearRequest {
  readonly packageName?: string;
}

/** 65609 whitelist: Android only. `packages` comma lists are normalised by the console. */
export interface WhitelistRequest {
  readonly action: 'set' | 'cancel' | 'get';
  readonly packages?: readonly string[];
}
export interface WhitelistReply {
  readonly packages: readonly string[];
}

/** 65610 daemon: keep an app alive (Android only). */
export interface DaemonRequest {
  readonly packageName: string;
  readonly enabled: boolean;
}

/** 65575 change SSH config. */
export interface SshConfigRequest {
  readonly enabled: boolean;
  readonly port?: number;
}
export interface SshConfigReply {
  readonly enabled: boolean;
  readonly port: number;
}

/** 65600 OTA list: firmware images installed or staged on the device. */
export interface OtaListReply {
  readonly current: string;
  readonly packages: readonly { readonly name: string; readonly version: string; readonly type: string; readonly state: string }[];
}

/** 65605 app list. */
export interface AppInfo {
  readonly name: string;
  readonly packageName: string;
  readonly versionName: string;
  readonly versionCode: number;
  readonly type: 'system' | 'general';
  readonly running: boolean;
  readonly size: number;
}
export interface AppListReply {
  readonly apps: readonly AppInfo[];
}

/** 65606 uninstall (Android only). */
export interface UninstallRequest {
  readonly packageName: string;
}

/** The reason Linux devices give for the commands of LINUX_REFUSED_COMMANDS (devices-and-commerce section 8). */
export const LINUX_CANNOT = 'Linux devices cannot do this';
/** The reason a device gives for a folder download (devices-and-commerce section 8). */
export const FOLDER_NOT_DOWNLOADABLE = 'Unable To Download Folders!';

/** TransferBegin (65621) data: what the sender is about to send on the flow (XFER-1). */
export interface BeginData {
  readonly size: number;
  readonly chunkSize: number;
  /** The receiver acknowledges at least every half window, or the sender would stall. */
  readonly window: number;
  readonly sha256: string;
}

/** ChunkAck (65620) data, and the reply to TransferBegin: the next chunk wanted, done, or why the transfer failed. */
export interface AckData {
  readonly next: number;
  readonly done?: boolean;
  readonly error?: string;
}
