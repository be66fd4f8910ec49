import type { PushTargetEvent } from '../../protocol/api/campaigns.ts';
import { type ApprovalDecidedEvent, Command, decodeRequest, decoders as d, type Decoder, type Envelope, Invalid, Result, type ResultCode, STREAM_CAMERAS, STREAM_QUALITIES, type StreamCamera, type StreamQuality, toEnvelope } from '../../protocol/index.ts';
import type { DeviceOperationRow, DeviceOperationState } from '../gateway/device-operation-tables.ts';

/*
 * The bus contract, once (BUS-1..BUS-3 in server/bus/subjects.test.ts): every subject that travels between
 * server processes, the payload it carries and the decoder that reads it where it enters a process (the
 * NATS and IPC buses decode each message by its subject's decoder before any handler sees it; a message
 * a decoder refuses is dropped and logged). Publishers and subscribers are typed by subject through
 * {@link BusMap}, so past the bus nothing coerces or casts. Other nodes run the same code, so a refusal
 * means a bug or a foreign publisher on the cluster's prefix, never a peer of an older release: fields
 * added since a release are optional with the old meaning as their default (a stream's camera).
 */

/** A subject: the map entry it belongs to (which decodes it) and its name on the bus. */
export interface BusSubject<K extends string = string> {
  readonly kind: K;
  /** The exact name (no wildcards); a NATS bus puts its cluster's prefix before it. */
  readonly name: string;
}

/** One decoder per subject kind of a map: what reads a message of that kind off the wire. */
export type SubjectDecoders<M> = { readonly [K in keyof M]: Decoder<M[K]> };

/** The decoded message, or undefined when the subject's decoder refuses it. */
export function decodeOn<M, K extends keyof M>(subjects: SubjectDecoders<M>, kind: K, value: unknown): M[K] | undefined {
  const decoded = subjects[kind](value);
  return decoded === Invalid ? undefined : decoded;
}

// ---------------------------------------------------------------------------------------------------
// Payloads
// ---------------------------------------------------------------------------------------------------

/** A console's command forwarded to the node holding its device. */
export interface ForwardedCommand {
  /** The node the console is on: replies go to its {@link Subject.nodeReplies}. */
  readonly from: string;
  readonly cid: string;
  readonly msgId: number;
  readonly flowId?: string;
  /** The command's data, decoded by the device (the gateway that received it decoded it already). */
  readonly data?: unknown;
}

/** A reply (progress or final) of a forwarded command, back to the console's node. */
export interface ForwardedReply {
  readonly cid: string;
  /** The device the command was forwarded to: a reply counts only for it. */
  readonly sn: string;
  readonly msgId: number;
  readonly result: ResultCode;
  /** The device's reply data, passed on to the console (whose engine decodes it). */
  readonly data?: unknown;
}

/** A device came online or went offline on `node`. */
export interface PresenceNews {
  readonly node: string;
  readonly sn: string;
  readonly orgId: number;
  readonly online: boolean;
  readonly time: number;
}

/** A console session ended (logout, expiry) on `node`. */
export interface SessionEnded {
  readonly node: string;
  readonly tokenHash: string;
}

/**
 * What changed about who may do what: accounts (role or organisation moved, removed), roles (their
 * permission lists), organisations (created below, frozen, unfrozen, moved, deleted, their login's role).
 * A receiver reloads every caller the change may touch; touching too many is harmless, too few is not.
 */
export interface RightsChange {
  readonly accounts?: readonly number[];
  readonly roles?: readonly number[];
  /** A caller is touched when one of these is in its scope or on its path to the root. */
  readonly orgs?: readonly number[];
  readonly all?: boolean;
}

/** A rights change as the bus carries it: who published it, and its number there (its echo ends the wait). */
export interface RightsChanged extends RightsChange {
  readonly node: string;
  readonly seq: number;
}

/** A node's beat, and its goodbye (`leaving`) on a graceful shutdown. */
export interface NodeAlive {
  readonly node: string;
  readonly leaving?: boolean;
}

/** A command's outcome as consoles watching its device hear it (command 196612). */
export interface CommandOutcome {
  readonly msgId: number;
  readonly result: number;
  /** Who sent it: an account name, or 'platform' for the server's own work (campaigns, held commands). */
  readonly by: string;
  readonly time: number;
}

export interface DeviceOutcome {
  readonly node: string;
  readonly outcome: CommandOutcome;
}

export interface DeviceRevoked {
  readonly node: string;
  readonly sn: string;
}

/** Devices moved to organisation `orgId`; `seq` numbers the publisher's moves (its echo ends its wait). */
export interface DevicesMoved {
  readonly node: string;
  readonly seq: number;
  readonly sns: readonly string[];
  readonly orgId: number;
}

/** What travels on a flow: a binary chunk frame (relayed unchanged) or an envelope. */
export type FlowPayload = { readonly frame: Uint8Array } | { readonly env: Envelope };

/** Console-to-device flow traffic, for the node holding the device. */
export type FlowToDevice = { readonly flowId: string } & FlowPayload;

/** Device-to-console flow traffic, for the node holding the console (looked up by device and flowId). */
export type FlowToConsole = { readonly flowId: string; readonly sn: string } & FlowPayload;

/** Which stream of a device: what the device encodes (viewers of the same key share it). */
export interface StreamKey {
  readonly sn: string;
  readonly quality: StreamQuality;
  readonly camera: StreamCamera;
}

/** A node's watch (repeated as a keepalive) or leave of a stream, acted on by the node holding the device. */
export interface StreamControl extends StreamKey {
  readonly op: 'watch' | 'leave';
  readonly node: string;
}

/** The holding node's answer, frames and end of a stream, for one watching node. */
export type StreamToNode =
  | (StreamKey & { readonly op: 'started'; readonly result: ResultCode; readonly data?: unknown })
  | (StreamKey & { readonly op: 'frame'; readonly frame: Uint8Array; readonly key?: boolean })
  | (StreamKey & { readonly op: 'gone' });

/** A held command reached its end (answered, expired, cancelled) on `node`. */
export interface HeldFinished {
  readonly node: string;
  readonly row: DeviceOperationRow;
}

/** One device's row as consoles see it, live: a /push-log/stream target line without its type. */
export type TargetUpdate = Omit<PushTargetEvent, 'type'>;

export interface CampaignChange {
  readonly id: number;
  readonly orgId: number;
  readonly state: string;
}

/** Per-device progress and campaign state changes committed on `node` (one message per committed batch). */
export interface CampaignProgress {
  /** The publishing runner, which ignores its own messages (NATS echoes them). */
  readonly node: string;
  readonly targets: readonly TargetUpdate[];
  readonly campaigns: readonly CampaignChange[];
}

/** A login challenge opened on one process: only the keyed hash of its answer (see server/auth/captcha.ts). */
export interface CaptchaIssued {
  readonly id: string;
  /** HMAC of the answer, base64url. */
  readonly mac: string;
  readonly expiresAt: number;
  readonly owner: string;
}

export interface CaptchaSpent {
  readonly id: string;
}

/** A four-eyes request decided on `node`, for the requester's consoles on the others (command 196613). */
export interface ApprovalDecidedNews {
  readonly node: string;
  readonly accountId: number;
  readonly event: ApprovalDecidedEvent;
}

/** Every subject kind and the payload its messages carry. */
export interface BusMap {
  readonly deviceCommand: ForwardedCommand;
  readonly nodeReplies: ForwardedReply;
  readonly presence: PresenceNews;
  readonly sessionEnded: SessionEnded;
  readonly rightsChanged: RightsChanged;
  readonly nodeAlive: NodeAlive;
  readonly deviceOutcome: DeviceOutcome;
  readonly deviceRevoked: DeviceRevoked;
  readonly deviceMoved: DevicesMoved;
  readonly flowToDevice: FlowToDevice;
  readonly flowToConsole: FlowToConsole;
  readonly streamControl: StreamControl;
  readonly streamToNode: StreamToNode;
  readonly heldFinished: HeldFinished;
  readonly campaignProgress: CampaignProgress;
  readonly captchaIssued: CaptchaIssued;
  readonly captchaSpent: CaptchaSpent;
  readonly approvalDecided: ApprovalDecidedNews;
}

export type BusKind = keyof BusMap;

// ---------------------------------------------------------------------------------------------------
// Subjects
// ---------------------------------------------------------------------------------------------------

const subject = <K extends BusKind>(kind: K, name: string): BusSubject<K> => ({ kind, name });

/** The subjects of {@link BusMap}, by kind; a NATS bus puts its cluster's prefix before each name. */
export const Subject = {
  /** Commands for a device, published by the node a console is on, heard by the node holding the device. */
  deviceCommand: (sn: string) => subject('deviceCommand', `device.${sn}.cmd`),
  /** Replies to a node's forwarded commands. */
  nodeReplies: (nodeId: string) => subject('nodeReplies', `node.${nodeId}.reply`),
  presence: subject('presence', 'presence'),
  sessionEnded: subject('sessionEnded', 'session.ended'),
  /** Roles, accounts or organisations changed: consoles reload the rights they cached (server/accounts/rights-bus.ts). */
  rightsChanged: subject('rightsChanged', 'rights.changed'),
  /** Every node's beat (`{node}`), and its goodbye (`{node, leaving: true}`) on a graceful shutdown. */
  nodeAlive: subject('nodeAlive', 'node.alive'),
  /** Outcomes of commands to a device, for consoles on other nodes that watch it. */
  deviceOutcome: (sn: string) => subject('deviceOutcome', `device.${sn}.outcome`),
  /** A device's secret was revoked: the node holding it closes its socket. */
  deviceRevoked: subject('deviceRevoked', 'device.revoked'),
  /**
   * Devices moved to another organisation: the process holding one closes its socket, and every process's
   * consoles outside the new organisation let go of their watches and flows.
   */
  deviceMoved: subject('deviceMoved', 'device.moved'),
  /** Console-to-device flow traffic, heard by the node holding the device (server/gateway/flows.ts). */
  flowToDevice: (sn: string) => subject('flowToDevice', `device.${sn}.flow`),
  /** Device-to-console flow traffic, heard by the node holding the console. */
  flowToConsole: (nodeId: string) => subject('flowToConsole', `node.${nodeId}.flow`),
  /** Live view watch and leave requests, heard by every node; only the node holding the device acts on them. */
  streamControl: subject('streamControl', 'stream.control'),
  /** A stream's start, frames and end, for the viewers on one node (server/gateway/stream-fanout.ts). */
  streamToNode: (nodeId: string) => subject('streamToNode', `node.${nodeId}.stream`),
  /** A held command's end reached on one node, for the consoles of the others (server/gateway/persistent-commands.ts). */
  heldFinished: subject('heldFinished', 'device-ops.held.finished'),
  /**
   * Per-device push progress and campaign state changes written on one node, for the /push-log/stream
   * consumers on the others (server/campaigns/runner.ts): a few hundred messages for 10,000 devices.
   */
  campaignProgress: subject('campaignProgress', 'campaigns.progress'),
  /** Login challenges and their spending, shared by every process behind one balancer (server/auth/captcha.ts). */
  captchaIssued: subject('captchaIssued', 'captcha.issued'),
  captchaSpent: subject('captchaSpent', 'captcha.spent'),
  /** A four-eyes request approved, rejected or expired on one node, for its requester's consoles on the others (server/gateway/gateway.ts). */
  approvalDecided: subject('approvalDecided', 'approval.decided'),
} as const;

// ---------------------------------------------------------------------------------------------------
// Decoders
// ---------------------------------------------------------------------------------------------------

const { object, string, integer, number, boolean, oneOf, optional, withDefault, array, opaque, tagged } = d;

/** Device serials, node ids, flow ids, correlation ids: short strings without spaces in practice. */
const id = string(256, 1);
const text = string();
const time = number();
const orgId = integer();
/** Bounds of lists between trusted peers: far above a real message (a move of a whole fleet), below a runaway. */
const MANY = 1_000_000;
const ids = array(integer(), MANY);
const resultCode: Decoder<ResultCode> = oneOf(...Object.values(Result));
const quality: Decoder<StreamQuality> = oneOf(...STREAM_QUALITIES);
/** The screen when absent (the meaning before cameras were added). */
const camera: Decoder<StreamCamera> = withDefault(oneOf(...STREAM_CAMERAS), 'screen');
/** A binary frame: msgpack hands back a Buffer, IPC a Uint8Array; both are Uint8Array. */
const bytes: Decoder<Uint8Array> = (v) => (v instanceof Uint8Array ? v : Invalid);
/** An envelope relayed on a flow, checked as the gateway checks a frame's (its data is the receiver's to decode). */
const envelope: Decoder<Envelope> = (v) => {
  try {
    return toEnvelope(v);
  } catch {
    return Invalid;
  }
};

/** A flow's payload: a chunk frame when `frame` is bytes, else an envelope. */
function flowPayload<T extends object>(head: Decoder<T>): Decoder<T & FlowPayload> {
  const frame = object<{ readonly frame: Uint8Array }>({ frame: bytes });
  const env = object<{ readonly env: Envelope }>({ env: envelope });
  return (v) => {
    const h = head(v);
    if (h === Invalid) return Invalid;
    const p = frame(v);
    if (p !== Invalid) return { ...h, ...p };
    const e = env(v);
    return e === Invalid ? Invalid : { ...h, ...e };
  };
}

const commandOutcome = object<CommandOutcome>({ msgId: integer(0), result: integer(0), by: text, time });
const STATES: readonly DeviceOperationState[] = ['waiting', 'delivering', 'done', 'expired', 'cancelled'];
const intOrNull = (v: unknown): number | null | Invalid => (v === null ? null : integer()(v));
const textOrNull = (v: unknown): string | null | Invalid => (v === null ? null : text(v));
/** A held command's row (its numbers as numbers: the publisher converts PostgreSQL's bigint strings). */
const heldRow = object<DeviceOperationRow>({
  id: integer(),
  sn: id,
  org_id: integer(),
  msg_id: integer(0),
  data: text,
  state: oneOf(...STATES),
  result: intOrNull,
  reply: textOrNull,
  account_id: intOrNull,
  created_at: integer(),
  expires_at: integer(),
  delivered_at: intOrNull,
  finished_at: intOrNull,
});
const targetUpdate = object<TargetUpdate>({
  campaignId: integer(),
  orgId: integer(),
  sn: id,
  pushResult: number(),
  downloadState: number(),
  progress: number(),
  installResult: number(),
  message: withDefault(text, ''),
  updateTime: number(),
});
const streamKey = { sn: id, quality, camera } as const;
/** The console event itself, read by its command's decoder (the same the console reads it with). */
const approvalDecidedEvent: Decoder<ApprovalDecidedEvent> = (v) => decodeRequest(Command.ApprovalDecided, v)?.data ?? Invalid;

/** The decoder of every subject kind: {@link BusMap} read off the wire. */
export const BUS_SUBJECTS: SubjectDecoders<BusMap> = {
  deviceCommand: object<ForwardedCommand>({ from: id, cid: id, msgId: integer(0), flowId: optional(id), data: opaque }),
  nodeReplies: object<ForwardedReply>({ cid: id, sn: id, msgId: integer(0), result: resultCode, data: opaque }),
  presence: object<PresenceNews>({ node: id, sn: id, orgId, online: boolean, time }),
  sessionEnded: object<SessionEnded>({ node: id, tokenHash: id }),
  rightsChanged: object<RightsChanged>({ node: id, seq: integer(0), accounts: optional(ids), roles: optional(ids), orgs: optional(ids), all: optional(boolean) }),
  nodeAlive: object<NodeAlive>({ node: id, leaving: optional(boolean) }),
  deviceOutcome: object<DeviceOutcome>({ node: id, outcome: commandOutcome }),
  deviceRevoked: object<DeviceRevoked>({ node: id, sn: id }),
  deviceMoved: object<DevicesMoved>({ node: id, seq: integer(0), sns: array(id, MANY), orgId }),
  flowToDevice: flowPayload(object<{ readonly flowId: string }>({ flowId: id })),
  flowToConsole: flowPayload(object<{ readonly flowId: string; readonly sn: string }>({ flowId: id, sn: id })),
  streamControl: object<StreamControl>({ op: oneOf('watch', 'leave'), node: id, ...streamKey }),
  streamToNode: tagged<StreamToNode, 'op'>('op', {
    started: object<Extract<StreamToNode, { op: 'started' }>>({ op: oneOf('started'), ...streamKey, result: resultCode, data: opaque }),
    frame: object<Extract<StreamToNode, { op: 'frame' }>>({ op: oneOf('frame'), ...streamKey, frame: bytes, key: optional(boolean) }),
    gone: object<Extract<StreamToNode, { op: 'gone' }>>({ op: oneOf('gone'), ...streamKey }),
  }),
  heldFinished: object<HeldFinished>({ node: id, row: heldRow }),
  campaignProgress: object<CampaignProgress>({ node: id, targets: array(targetUpdate, MANY), campaigns: array(object<CampaignChange>({ id: integer(), orgId: integer(), state: string(64) }), MANY) }),
  captchaIssued: object<CaptchaIssued>({ id, mac: string(256), expiresAt: time, owner: string(256) }),
  captchaSpent: object<CaptchaSpent>({ id }),
  approvalDecided: object<ApprovalDecidedNews>({ node: id, accountId: integer(), event: approvalDecidedEvent }),
};
