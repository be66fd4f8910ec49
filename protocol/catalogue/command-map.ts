import type { Envelope } from '../envelope.ts';
import { isMessageKey, type MessageKey, type MessageParam, type MessageParams } from '../messages/format.ts';
import { Command, type CommandId } from './commands.ts';
import {
  array,
  boolean,
  type Decoder,
  decode,
  fromParser,
  integer,
  Invalid,
  isRecord,
  none,
  number,
  object,
  oneOf,
  optional,
  record,
  string,
  tagged,
  tuple,
  withDefault,
} from './decode.ts';
import type {
  AckData,
  AppListReply,
  BaseInfoReply,
  BeginData,
  Capacity,
  ClearRequest,
  DaemonRequest,
  DeviceFileOffer,
  DoneReply,
  FileDeleteReply,
  FileDeleteRequest,
  FileDownloadRequest,
  FileEntry,
  FileListReply,
  FileListRequest,
  FileUploadRequest,
  FileWrittenReply,
  GrabLogRequest,
  MacAddress,
  OtaListReply,
  ProcessInfo,
  PushTextRequest,
  RuntimeInfoReply,
  RuntimeInfoRequest,
  ShellOpenReply,
  ShellOutput,
  ShellRequest,
  SshConfigReply,
  SshConfigRequest,
  SupportFlag,
  SystemInfoReply,
  UninstallRequest,
  WhitelistReply,
  WhitelistRequest,
} from './payloads.ts';
import { SCREENSHOT_MAX_WIDTH, SCREENSHOT_MIN_WIDTH, type ScreenshotRequest, SUPPORT_FLAGS } from './payloads.ts';
import { ProcessState } from './enums.ts';
import { decodePushFile, decodePushProgress, type PushFileRequest, type PushProgressReport } from './push.ts';
import { parseRemoteControl, parseStartStream, type RemoteControlReply, type RemoteControlRequest, type ScreenPoint, STREAM_CAMERAS, type StartStreamReply, type StartStreamRequest, type StopStreamRequest } from './stream.ts';
import { type AbnormalEvent, type LocationUpload, parseAbnormalEvent, parseLocationUpload, parseRuntimeInfo, parseStatusUpload, type RuntimeInfo, type StatusUpload } from './telemetry.ts';

/*
 * The wire contract, once (WIRE-1..WIRE-4 in PROTOCOL.md): for every command id, the data its request
 * carries, the data its successful reply carries, progress replies (result 6) where it has them, the
 * decoders that read each from the wire, and who may send it (permission key; dangerous and wiping
 * commands). The gateway, the agent, the simulator and the engine read payloads through these decoders
 * where a message enters them; past that point the data is typed and nothing casts.
 */

/** What a console needs to send one command: its permission key, and whether it disrupts or wipes the device. */
export interface CommandRight {
  readonly permission: string;
  /** Reboot, factory reset, clear data: the gateway lets the same one reach a device once a second. */
  readonly dangerous?: true;
  /** Factory reset, clear data: they wipe what is on the device, and the console shows and asks them in red. */
  readonly wipes?: true;
}

/** One command of the map. */
export interface CommandSpec<Req, Rep, Prog = never> {
  readonly request: Decoder<Req>;
  readonly reply: Decoder<Rep>;
  /** Data of progress replies (result 6), when the command has them. */
  readonly progress?: Decoder<Prog>;
  /** Consoles may send it with this right; absent, the gateway refuses it from a console (result 3). */
  readonly right?: CommandRight;
}

/** The reply to a device's login: the secret issued when it enrolled. */
export interface DeviceLoginReply {
  readonly secret?: string;
}

/** Progress of an upload to a device: ready for the bytes, or how many chunks arrived. */
export interface FileUploadProgress {
  readonly stage: 'ready' | 'receiving';
  readonly chunks?: number;
}

/** Final reply of a file the device sent on a flow (download, screenshot, log). */
export interface DeviceFileSent {
  readonly name?: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * 65563 shell replies: `open` answers {@link ShellOpenReply}, `input` {@link ShellExitReply}, `resize`
 * the size applied, `write` and `close` nothing. One reply type covers them; `open`'s reader checks that
 * the connection fields are there.
 */
export interface ShellReply {
  readonly user?: string;
  readonly host?: string;
  readonly cwd?: string;
  readonly prompt?: string;
  readonly raw?: boolean;
  readonly offset?: number;
  readonly backlog?: string;
  readonly exitCode?: number;
  readonly cols?: number;
  readonly rows?: number;
}

/** The connection information of a shell `open` reply, or undefined when the device gave none (the open failed). */
export function shellOpened(reply: ShellReply): ShellOpenReply | undefined {
  const { user, host, cwd, prompt, raw, offset, backlog } = reply;
  if (user === undefined || host === undefined || cwd === undefined || prompt === undefined) return undefined;
  return { user, host, cwd, prompt, ...(raw === undefined ? {} : { raw }), ...(offset === undefined ? {} : { offset }), ...(backlog === undefined ? {} : { backlog }) };
}

/** 196609 platform -> console: a device came online or went offline. */
export interface DevicePresenceEvent {
  readonly onlineState: number;
  readonly time?: number;
}

/** 196611 console -> platform: start or stop hearing the outcomes of commands to a device. */
export interface DeviceWatchRequest {
  readonly watch: boolean;
}

/** 196612 platform -> console: a command to a watched device ended (sent by anyone, on any node). */
export interface DeviceCommandOutcomeEvent {
  readonly msgId: number;
  readonly result: number;
  readonly by: string;
  readonly time: number;
  readonly message?: string;
}

/** 196614 console -> platform: the devices (at most 50, as MAX_GROUP_SNS) of this console's group-control session; empty ends it. */
export interface GroupControlSessionRequest {
  readonly sns: readonly string[];
}

/**
 * 196615 platform -> console: a watched device (envelope `sn`) is under group control by `by` (`active`),
 * or no longer is. Sent to the consoles watching it, which the watch already checked for scope.
 */
export interface DeviceGroupControlEvent {
  readonly active: boolean;
  readonly by: string;
}

/**
 * 196613 platform -> console: a four-eyes request (issue 23) of the console's account was approved,
 * rejected (with the approver's reason) or expired; sent to that account's consoles only, on any node.
 */
export interface ApprovalDecidedEvent {
  readonly id: number;
  readonly state: 'approved' | 'rejected' | 'expired';
  readonly kind: 'command' | 'bulk' | 'campaign';
  /** The command (a push's is PushFile). */
  readonly msgId: number;
  readonly targetCount: number;
  /** The approver's account, or 'platform' for an expiry. */
  readonly decidedBy: string;
  readonly reason: string;
  /** A push's content name. */
  readonly contentName?: string;
}

/** A refusal's data: the reason (always, PROTOCOL.md result codes) and, for a live view, a reason code. */
export interface FailureData {
  readonly message?: string;
  /** The message's catalogue key and parameters (errors as keys): the console words it in its language. */
  readonly key?: MessageKey;
  readonly params?: MessageParams;
  /** Result 7 (awaiting approval): the approval request the command waits in (four-eyes, issue 23). */
  readonly approvalId?: number;
  /** A code the console words in its own language (StreamRefusal). */
  readonly reason?: string;
  /** 65604 file delete that deleted nothing: the per-path outcome beside the message. */
  readonly deleted?: readonly string[];
  readonly failed?: readonly { readonly path: string; readonly message: string }[];
}

// ---------------------------------------------------------------------------------------------------
// Decoders of the payload types
// ---------------------------------------------------------------------------------------------------

/** Absent data reads as `{}`: commands whose fields are all optional may be sent without data. */
function orEmpty<T>(decoder: Decoder<T>): Decoder<T> {
  return (v) => decoder(v === undefined || v === null ? {} : v);
}

const text = string();
const bytes = number(0, 2 ** 53);
const count = integer(0);
const capacity = object<Capacity>({ total: bytes, free: bytes });
const mac = object<MacAddress>({ name: string(64), mac: string(64) });
const systemType = oneOf('android', 'linux');

const support: Decoder<Readonly<Record<SupportFlag, boolean>>> = (v) => {
  if (!isRecord(v)) return Invalid;
  const out = {} as Record<SupportFlag, boolean>;
  for (const flag of SUPPORT_FLAGS) {
    const b = v[flag];
    if (typeof b !== 'boolean') return Invalid;
    out[flag] = b;
  }
  return out;
};

const failedPaths = array(object<{ readonly path: string; readonly message: string }>({ path: text, message: text }));
/** A message's parameters: values shown as they are, or a nested message by key (a field label). */
function messageParams(v: unknown): MessageParams | undefined {
  if (!isRecord(v)) return undefined;
  const out: Record<string, MessageParam> = {};
  for (const [name, p] of Object.entries(v)) {
    if (typeof p === 'string' || typeof p === 'number') out[name] = p;
    else if (isRecord(p) && isMessageKey(p.key)) out[name] = { key: p.key };
    else return undefined;
  }
  return out;
}

const messageKey: Decoder<MessageKey> = (v) => (isMessageKey(v) ? v : Invalid);
const messageParamsOf: Decoder<MessageParams> = (v) => messageParams(v) ?? Invalid;

export const failureData: Decoder<FailureData> = orEmpty(
  object<FailureData>({ message: optional(text), key: optional(messageKey), params: optional(messageParamsOf), approvalId: optional(integer(1)), reason: optional(text), deleted: optional(array(text)), failed: optional(failedPaths) }),
);
const done = object<DoneReply>({ message: text });
const fileEntry = object<FileEntry>({ name: text, type: oneOf('file', 'folder'), size: bytes, mtime: number() });
const processInfo = object<ProcessInfo>({
  pid: integer(0),
  name: text,
  state: oneOf(...(Object.values(ProcessState) as ProcessInfo['state'][])),
  cpu: number(0),
  rss: bytes,
  user: optional(text),
});

export const shellRequest: Decoder<ShellRequest> = tagged<ShellRequest, 'op'>('op', {
  open: object<Extract<ShellRequest, { op: 'open' }>>({ op: oneOf('open'), cols: optional(number()), rows: optional(number()), raw: optional(boolean), since: optional(number(0)) }),
  write: object<Extract<ShellRequest, { op: 'write' }>>({ op: oneOf('write'), data: text }),
  input: object<Extract<ShellRequest, { op: 'input' }>>({ op: oneOf('input'), line: text }),
  // A terminal's size is clamped by the device; absent sides take the classic 80 x 24.
  resize: object<Extract<ShellRequest, { op: 'resize' }>>({ op: oneOf('resize'), cols: withDefault(number(), 80), rows: withDefault(number(), 24) }),
  close: object<Extract<ShellRequest, { op: 'close' }>>({ op: oneOf('close') }),
});

const shellReply = orEmpty(
  object<ShellReply>({
    user: optional(text),
    host: optional(text),
    cwd: optional(text),
    prompt: optional(text),
    raw: optional(boolean),
    offset: optional(count),
    backlog: optional(text),
    exitCode: optional(integer()),
    cols: optional(number()),
    rows: optional(number()),
  }),
);

/** Output of a shell session on its flow (no cid), device to console. */
export const shellOutput: Decoder<ShellOutput> = object<ShellOutput>({
  output: text,
  stream: optional(oneOf('stdout', 'stderr')),
  offset: optional(count),
  ended: optional(oneOf('exit', 'idle', 'closed')),
});

export const deviceFileOffer: Decoder<DeviceFileOffer> = object<DeviceFileOffer>({ stage: oneOf('sending'), name: text, size: bytes, sha256: text, mime: text });
const deviceFileSent = object<DeviceFileSent>({ name: optional(text), size: bytes, sha256: text });

export const ackData: Decoder<AckData> = object<AckData>({ next: integer(0), done: optional(boolean), error: optional(text) });
export const beginData: Decoder<BeginData> = object<BeginData>({ size: count, chunkSize: integer(1), window: integer(1), sha256: text });

const startStreamReply = object<StartStreamReply>({
  flowId: string(256, 1),
  quality: oneOf('main', 'sub'),
  camera: optional(oneOf(...STREAM_CAMERAS)),
  codec: oneOf('h264'),
  width: number(0),
  height: number(0),
  fps: number(0),
  audio: optional(object({ codec: oneOf('opus'), sampleRate: oneOf(48000), channels: oneOf(1, 2) })),
});

const baseInfoReply = object<BaseInfoReply>({
  model: text,
  systemType,
  systemVersion: text,
  imageVersion: text,
  networkType: integer(),
  hostname: optional(text),
  kernel: optional(text),
  arch: optional(text),
  memory: capacity,
  storage: optional(capacity),
  macs: optional(array(mac, 64)),
  uptime: optional(number(0)),
});

const systemInfoReply = object<SystemInfoReply>({
  manufacturer: text,
  model: text,
  systemType,
  systemVersion: text,
  kernel: text,
  arch: text,
  cpuModel: text,
  cpuCores: integer(0),
  memory: capacity,
  storage: capacity,
  wlanMac: text,
  bluetoothMac: text,
  macs: array(mac, 64),
  imei: optional(text),
  basebandVersion: optional(text),
  uptime: number(0),
  support,
});

const runtimeInfoReply = object<RuntimeInfoReply>({
  time: number(),
  cpu: number(0),
  memory: capacity,
  load: optional(tuple(number(), number(), number())),
  processCount: count,
  processes: array(processInfo),
});

const otaListReply = object<OtaListReply>({
  current: text,
  packages: array(object({ name: text, version: text, type: text, state: text })),
});

const appListReply = object<AppListReply>({
  apps: array(object({ name: text, packageName: text, versionName: text, versionCode: number(), type: oneOf('system', 'general'), running: boolean, size: bytes })),
});

const fileDeleteReply = object<FileDeleteReply>({ deleted: array(text), failed: failedPaths });

// ---------------------------------------------------------------------------------------------------
// The map
// ---------------------------------------------------------------------------------------------------

function spec<Req, Rep, Prog = never>(s: CommandSpec<Req, Rep, Prog>): CommandSpec<Req, Rep, Prog> {
  return s;
}

const OFFER = { progress: deviceFileOffer, reply: deviceFileSent } as const;

/**
 * The command map: msgId -> request data, reply data, progress data, decoders and right (devices-and-
 * commerce sections 4-6). A command absent from the map has no data on either side; one without `right`
 * is not a console's to send (the gateway answers result 3).
 */
export const COMMANDS = {
  // device -> platform
  [Command.DeviceLogin]: spec({ request: orEmpty(record<unknown>((v) => v, 256)), reply: orEmpty(object<DeviceLoginReply>({ secret: optional(text) })) }),
  [Command.Heartbeat]: spec({ request: none, reply: none }),
  [Command.StatusUpload]: spec<StatusUpload, undefined>({ request: fromParser(parseStatusUpload), reply: none }),
  [Command.RuntimeInfo]: spec<RuntimeInfo, undefined>({ request: fromParser(parseRuntimeInfo), reply: none }),
  [Command.PushProgress]: spec<PushProgressReport, undefined>({ request: fromParser(decodePushProgress), reply: none }),
  [Command.LocationUpload]: spec<LocationUpload, undefined>({ request: fromParser(parseLocationUpload), reply: none }),
  [Command.AbnormalEvent]: spec<AbnormalEvent, undefined>({ request: fromParser(parseAbnormalEvent), reply: none }),

  // platform -> device
  [Command.PushText]: spec({ request: object<PushTextRequest>({ title: optional(text), text }), reply: done, right: { permission: 'device_message' } }),
  [Command.PushFile]: spec<PushFileRequest, undefined>({ request: fromParser(decodePushFile), reply: none }),
  [Command.Reboot]: spec({ request: none, reply: orEmpty(failureData), right: { permission: 'device_reboot', dangerous: true } }),
  [Command.FactoryReset]: spec({ request: orEmpty(object<ClearRequest>({ packageName: optional(text) })), reply: done, right: { permission: 'device_reset', dangerous: true, wipes: true } }),
  [Command.ClearData]: spec({ request: orEmpty(object<ClearRequest>({ packageName: optional(text) })), reply: done, right: { permission: 'device_clear', dangerous: true, wipes: true } }),
  [Command.ClearCache]: spec({ request: orEmpty(object<ClearRequest>({ packageName: optional(text) })), reply: done, right: { permission: 'device_clear' } }),
  [Command.Shell]: spec({ request: shellRequest, reply: shellReply, right: { permission: 'device_shell' } }),
  [Command.Screenshot]: spec({ request: orEmpty(object<ScreenshotRequest>({ maxWidth: optional(integer(SCREENSHOT_MIN_WIDTH, SCREENSHOT_MAX_WIDTH)) })), ...OFFER, right: { permission: 'device_capture' } }),
  [Command.GrabLog]: spec({ request: orEmpty(object<GrabLogRequest>({ maxBytes: optional(number(0)) })), ...OFFER, right: { permission: 'device_capture' } }),
  [Command.StartStream]: spec<StartStreamRequest, StartStreamReply>({ request: fromParser(parseStartStream), reply: startStreamReply, right: { permission: 'device_live_view' } }),
  [Command.StopStream]: spec({ request: object<StopStreamRequest>({ flowId: string(256, 1) }), reply: none, right: { permission: 'device_live_view' } }),
  [Command.RemoteControl]: spec<RemoteControlRequest, RemoteControlReply>({
    request: fromParser(parseRemoteControl),
    reply: object<RemoteControlReply>({ applied: oneOf('tap', 'swipe', 'key', 'text', 'scroll', 'longPress', 'clipboard'), text: optional(text), at: optional(object<ScreenPoint>({ x: integer(0), y: integer(0) })) }),
    right: { permission: 'device_live_control' },
  }),
  [Command.ChangeSshConfig]: spec({
    request: object<SshConfigRequest>({ enabled: boolean, port: optional(number()) }),
    reply: object<SshConfigReply>({ enabled: boolean, port: integer(0, 65535) }),
    right: { permission: 'device_ssh' },
  }),
  [Command.OtaList]: spec({ request: none, reply: otaListReply, right: { permission: 'device_system_info' } }),
  [Command.FileList]: spec({ request: orEmpty(object<FileListRequest>({ path: withDefault(text, '') })), reply: object<FileListReply>({ path: text, entries: array(fileEntry) }), right: { permission: 'device_file' } }),
  [Command.FileUpload]: spec({
    request: object<FileUploadRequest>({ path: withDefault(text, ''), name: text, size: count, sha256: withDefault(text, '') }),
    reply: object<FileWrittenReply>({ path: text, size: bytes, sha256: text }),
    progress: object<FileUploadProgress>({ stage: oneOf('ready', 'receiving'), chunks: optional(count) }),
    right: { permission: 'device_file' },
  }),
  [Command.FileDownload]: spec({ request: orEmpty(object<FileDownloadRequest>({ path: withDefault(text, '') })), ...OFFER, right: { permission: 'device_file_export' } }),
  [Command.FileDelete]: spec({ request: object<FileDeleteRequest>({ paths: array(text) }), reply: fileDeleteReply, right: { permission: 'device_file_delete' } }),
  [Command.AppList]: spec({ request: none, reply: appListReply, right: { permission: 'device_app' } }),
  [Command.Uninstall]: spec({ request: object<UninstallRequest>({ packageName: text }), reply: done, right: { permission: 'device_app' } }),
  [Command.Whitelist]: spec({
    request: object<WhitelistRequest>({ action: oneOf('set', 'cancel', 'get'), packages: optional(array(text)) }),
    reply: object<WhitelistReply>({ packages: array(text) }),
    right: { permission: 'device_whitelist' },
  }),
  [Command.Daemon]: spec({ request: object<DaemonRequest>({ packageName: text, enabled: withDefault(boolean, true) }), reply: done, right: { permission: 'device_app' } }),
  [Command.BaseInfo]: spec({ request: none, reply: baseInfoReply, right: { permission: 'device_base_info' } }),
  [Command.SystemInfo]: spec({ request: none, reply: systemInfoReply, right: { permission: 'device_system_info' } }),
  [Command.RuntimeQuery]: spec({ request: orEmpty(object<RuntimeInfoRequest>({ limit: optional(number()) })), reply: runtimeInfoReply, right: { permission: 'device_runtime' } }),

  // binary transfers, either direction
  [Command.ChunkAck]: spec({ request: ackData, reply: none }),
  [Command.TransferBegin]: spec({ request: beginData, reply: ackData }),

  // platform <-> console
  [Command.DevicePresence]: spec({ request: object<DevicePresenceEvent>({ onlineState: integer(), time: optional(number()) }), reply: none }),
  [Command.HeldCommandDone]: spec({ request: orEmpty(record<unknown>((v) => v)), reply: none }),
  [Command.DeviceWatch]: spec({ request: object<DeviceWatchRequest>({ watch: boolean }), reply: none }),
  [Command.ApprovalDecided]: spec({
    request: object<ApprovalDecidedEvent>({
      id: integer(),
      state: oneOf('approved', 'rejected', 'expired'),
      kind: oneOf('command', 'bulk', 'campaign'),
      msgId: integer(),
      targetCount: count,
      decidedBy: text,
      reason: withDefault(text, ''),
      contentName: optional(text),
    }),
    reply: none,
  }),
  [Command.GroupControlSession]: spec({ request: object<GroupControlSessionRequest>({ sns: array(text, 50) }), reply: none }),
  [Command.DeviceGroupControl]: spec({ request: object<DeviceGroupControlEvent>({ active: boolean, by: text }), reply: none }),
  [Command.DeviceCommandOutcome]: spec({
    request: object<DeviceCommandOutcomeEvent>({ msgId: integer(), result: integer(), by: text, time: number(), message: optional(text) }),
    reply: none,
  }),
} as const;

/** Command ids of the map. */
export type MappedCommand = keyof typeof COMMANDS & CommandId;

/** The data of a request (or event) `K`. */
export type RequestOf<K extends number> = K extends MappedCommand ? ((typeof COMMANDS)[K] extends CommandSpec<infer Req, unknown, unknown> ? Req : never) : unknown;
/**
 * The data a sender may put in request `K`: its decoded type, with the fields its decoder fills in when
 * absent left optional (a live view's quality, camera and voice; an upload's folder and checksum).
 */
export type SendOf<K extends number> = K extends keyof SendOverrides ? SendOverrides[K] : RequestOf<K>;
interface SendOverrides {
  readonly [Command.StartStream]: Partial<StartStreamRequest>;
  readonly [Command.FileUpload]: Omit<FileUploadRequest, 'path' | 'sha256'> & Partial<Pick<FileUploadRequest, 'path' | 'sha256'>>;
  readonly [Command.FileList]: Partial<FileListRequest>;
  readonly [Command.FileDownload]: Partial<FileDownloadRequest>;
}
/** The data of a successful reply to `K`. */
export type ReplyOf<K extends number> = K extends MappedCommand ? ((typeof COMMANDS)[K] extends CommandSpec<unknown, infer Rep, unknown> ? Rep : never) : unknown;
/** The data of a progress reply (result 6) to `K`. */
export type ProgressOf<K extends number> = K extends MappedCommand ? ((typeof COMMANDS)[K] extends CommandSpec<unknown, unknown, infer P> ? P : never) : unknown;

/** The map as a lookup by plain number (a msgId read from the wire). */
const byId: ReadonlyMap<number, CommandSpec<unknown, unknown, unknown>> = new Map<number, CommandSpec<unknown, unknown, unknown>>(
  Object.entries(COMMANDS).map(([id, s]): [number, CommandSpec<unknown, unknown, unknown>] => [Number(id), s]),
);

/** True when `msgId` is in the map. */
export function isMappedCommand(msgId: number): msgId is MappedCommand {
  return byId.has(msgId);
}

// The three readers below are the one place where the key-erased `byId` meets the typed keys of COMMANDS:
// the entry stored under K decodes RequestOf<K> (ReplyOf<K>, ProgressOf<K>), which TypeScript cannot
// follow through a Map, hence one `as` each. A command outside the map has `unknown` data, passed as is.

/** Decodes a request's (or event's) data for `msgId`; undefined when malformed. Data of a command outside the map is passed as is. */
export function decodeRequest<K extends number>(msgId: K, data: unknown): { readonly data: RequestOf<K> } | undefined {
  const s = byId.get(msgId);
  const v = s === undefined ? data : s.request(data);
  return v === Invalid ? undefined : { data: v as RequestOf<K> };
}

/** Decodes a successful reply's data for `msgId`; undefined when malformed. Data of a command outside the map is passed as is. */
export function decodeReply<K extends number>(msgId: K, data: unknown): { readonly data: ReplyOf<K> } | undefined {
  const s = byId.get(msgId);
  const v = s === undefined ? data : s.reply(data);
  return v === Invalid ? undefined : { data: v as ReplyOf<K> };
}

/** Decodes a progress reply's data for `msgId`; undefined when malformed or the command has no progress data in the map. */
export function decodeProgress<K extends number>(msgId: K, data: unknown): { readonly data: ProgressOf<K> } | undefined {
  const s = byId.get(msgId);
  const v = s === undefined ? data : s.progress === undefined ? Invalid : s.progress(data);
  return v === Invalid ? undefined : { data: v as ProgressOf<K> };
}

/** An envelope whose data its command's decoder has read, discriminated by `msgId`: narrow on it to read `data`. */
export type MappedEnvelope<K extends MappedCommand = MappedCommand> = K extends MappedCommand ? Omit<Envelope, 'msgId' | 'data'> & { readonly msgId: K; readonly data: RequestOf<K> } : never;

/**
 * Reads a request (or event) envelope at the edge (WIRE-2): undefined when its command is not in the map
 * or its data is malformed (answer result 2, {@link MALFORMED_REQUEST}). Unknown keys of the data are gone.
 */
export function decodeEnvelope(env: Envelope): MappedEnvelope | undefined {
  if (!isMappedCommand(env.msgId)) return undefined;
  const read = decodeRequest(env.msgId, env.data);
  // Read by the decoder of env.msgId, so msgId and data are one member of the union (TypeScript cannot pair them).
  return read === undefined ? undefined : ({ ...env, msgId: env.msgId, data: read.data } as MappedEnvelope);
}

/**
 * The `message` of a reply's data, as {@link decodeFailure} reads it, without reading the rest: the
 * server's timeline keeps only this of every reply, and building the whole failure was 0.5 KB of garbage
 * per command on the hot path (gateway bench, allocation sampling).
 */
export function failureMessage(data: unknown): string | undefined {
  return isRecord(data) ? decode(text, data.message) : undefined;
}

/**
 * A refusal's data (result 1-5): its message and reason code, where it has them. Each field is read on
 * its own, so a malformed extra never costs the reason a person reads.
 */
export function decodeFailure(data: unknown): FailureData {
  if (!isRecord(data)) return {};
  const message = failureMessage(data);
  const reason = decode(text, data.reason);
  const deleted = decode(array(text), data.deleted);
  const failed = decode(failedPaths, data.failed);
  const key = isMessageKey(data.key) ? data.key : undefined;
  const params = messageParams(data.params);
  const approvalId = decode(integer(1), data.approvalId);
  return {
    ...(approvalId === undefined ? {} : { approvalId }),
    ...(message === undefined ? {} : { message }),
    ...(key === undefined ? {} : { key }),
    ...(key === undefined || params === undefined ? {} : { params }),
    ...(reason === undefined ? {} : { reason }),
    ...(deleted === undefined ? {} : { deleted }),
    ...(failed === undefined ? {} : { failed }),
  };
}

/** The right a console needs to send `msgId`, or undefined when consoles may not send it. */
export function commandRight(msgId: number): CommandRight | undefined {
  return byId.get(msgId)?.right;
}

/**
 * The one command -> right map (devices-and-commerce section 6), derived from {@link COMMANDS}: read by the
 * gateway's check of every console command, held command and REST device command, and by the console's
 * row actions, device view tabs and remote management. A command not listed here is refused with result 3.
 */
export const COMMAND_RIGHTS: ReadonlyMap<number, CommandRight> = new Map(
  [...byId].flatMap(([msgId, s]): [number, CommandRight][] => (s.right ? [[msgId, s.right]] : [])),
);

/** {@link COMMAND_RIGHTS} as msgId -> permission key. */
export const COMMAND_PERMISSIONS: ReadonlyMap<number, string> = new Map([...COMMAND_RIGHTS].map(([msgId, r]) => [msgId, r.permission]));

/** The permission key command `msgId` needs, or undefined when consoles may not send it. */
export function commandPermission(msgId: number): string | undefined {
  return COMMAND_PERMISSIONS.get(msgId);
}

/** True for the commands that disrupt or wipe a whole device (reboot, factory reset, clear data). */
export function isDangerousCommand(msgId: number): boolean {
  return COMMAND_RIGHTS.get(msgId)?.dangerous === true;
}

/** True for the commands that wipe what is on the device (factory reset, clear data). */
export function wipesDevice(msgId: number): boolean {
  return COMMAND_RIGHTS.get(msgId)?.wipes === true;
}

/** The reason of a result 2 answering a request whose data its decoder refused (WIRE-3). */
export const MALFORMED_REQUEST = 'Malformed request data';
/** The reason of the result 2 a requester hears for a successful reply whose data its decoder refused (WIRE-3). */
export const MALFORMED_REPLY = 'Malformed reply data';
