import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  CHUNK_MAGIC,
  CloseCode,
  Command,
  ConnectionLostError,
  Correlator,
  type Clock,
  type Envelope,
  isRecord,
  isReply,
  type PendingHandlers,
  peekChunkFlowId,
  Result,
} from '../../protocol/index.ts';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { DeviceInfo, DeviceRepository } from '../devices/repository.ts';
import { parseDeviceDetails } from '../devices/details.ts';
import type { LoginSlot } from './device-admission.ts';
import { DeviceLink } from './device-link.ts';
import type { FlowTable } from './flows.ts';
import { Peer } from './peer.ts';
import { randomId } from './random-ids.ts';
import type { StreamFanout } from './stream-fanout.ts';

// Timed-out commands leave their ids in `waiting`; past this many, the ids no longer pending are dropped.
const WAITING_PRUNE_AT = 256;

/**
 * Sends a command to a connected device under a fresh, random gateway correlation id; `handlers` hear
 * its progress and final reply, result 5 if the device goes away, or a timeout. Only this link's socket
 * may answer it (see {@link DeviceLink.resolve}).
 */
export function commandDevice(link: DeviceLink, req: Envelope, timeoutMs: number, handlers: PendingHandlers): void {
  const cid = `g${randomId()}`;
  link.commands.register(cid, req.msgId, timeoutMs, handlers, link);
  if (!link.peer.send({ msgId: req.msgId, cid, sn: link.sn, flowId: req.flowId, data: req.data })) {
    link.commands.cancel(cid);
    handlers.error(new ConnectionLostError());
    return;
  }
  const waiting = (link.waiting ??= new Set());
  if (waiting.size >= WAITING_PRUNE_AT) for (const old of waiting) if (!link.commands.has(old)) waiting.delete(old);
  waiting.add(cid);
}

/** How a device proves who it is at upgrade: its issued secret, or its organisation's enrolment key. */
export type DeviceCredentials = { readonly sn: string; readonly secret: string } | { readonly sn: string; readonly enroll: string };

export type DeviceAdmission =
  | {
      readonly ok: true;
      readonly sn: string;
      readonly orgId: number;
      readonly enrolling: boolean;
      /** Enrolling again after its secret was revoked: the row exists, only the secret is issued anew. */
      readonly reenrolling?: boolean;
    }
  | { readonly ok: false; readonly reason: string };

// Device secrets are 32 random bytes, so a fast hash is enough; slow hashes are for guessable passwords
// and would make a reconnect storm of thousands of devices cost minutes of CPU.
export function deviceSecretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

const SN_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The organisation an enrolment key belongs to: read at every enrolling login. */
const orgByEnrollKey = prepared((db, key: string) => db.selectFrom('organisations').select('id').where('enroll_key', '=', key));

/** Decides whether a device may connect, before any frame is exchanged. */
export async function admitDevice(db: Db, devices: DeviceRepository, creds: DeviceCredentials): Promise<DeviceAdmission> {
  if (!SN_PATTERN.test(creds.sn)) return { ok: false, reason: 'invalid sn' };
  const row = await devices.findBySn(creds.sn);
  if ('secret' in creds) {
    if (!row) return { ok: false, reason: 'unknown device' };
    const a = Buffer.from(deviceSecretDigest(creds.secret));
    const b = Buffer.from(row.secret_hash);
    return a.length === b.length && timingSafeEqual(a, b) ? { ok: true, sn: row.sn, orgId: row.org_id, enrolling: false } : { ok: false, reason: 'bad secret' };
  }
  // An enrolment key registers a new serial, or one whose secret was revoked, in its own organisation
  // only; a known device must use its own secret, once it has used it. Until then (secret_pending) it may
  // enrol again: the secret travels in the login reply, and a device whose socket dropped before that
  // reply arrived has none to come back with (it would be locked out for good). Enrolling again issues a
  // new secret, so the lost one never works.
  if (row && row.secret_hash !== '' && row.secret_pending === 0) return { ok: false, reason: 'device already enrolled' };
  const org = (await orgByEnrollKey(db, creds.enroll)).rows[0];
  if (!org || (row && row.org_id !== org.id)) return { ok: false, reason: 'bad enrolment key' };
  return { ok: true, sn: creds.sn, orgId: org.id, enrolling: true, reenrolling: row !== undefined };
}

function parseInfo(data: unknown): DeviceInfo | undefined {
  if (!isRecord(data)) return undefined;
  const d = data;
  const str = (v: unknown, max = 128) => (typeof v === 'string' && v.length <= max ? v : undefined);
  const systemType = d.systemType === 'linux' ? 'linux' : d.systemType === 'android' ? 'android' : undefined;
  const model = str(d.model);
  if (!systemType || model === undefined) return undefined;
  return {
    model,
    systemType,
    systemVersion: str(d.systemVersion) ?? '',
    imageVersion: str(d.imageVersion) ?? '',
    networkType: Number.isInteger(d.networkType) && (d.networkType as number) >= 0 && (d.networkType as number) <= 3 ? (d.networkType as number) : 0,
    details: parseDeviceDetails(d),
  };
}

/** Which device sent a device-to-platform message. */
export interface DeviceOrigin {
  readonly sn: string;
  readonly orgId: number;
}

/**
 * Handles one device-to-platform message; what it returns (or its promise resolves to) is the reply's data,
 * sent when the device asked with a cid. A handler that throws or rejects answers result 1 with
 * `data.message`: a {@link DeviceMessageRefused}'s own words, else a generic reason (an internal error's
 * text is for the log, not the device). Handlers on the ingest path return synchronously so an upload
 * costs no promise.
 */
export type DeviceMessageHandler = (from: DeviceOrigin, env: Envelope) => unknown;

/** Thrown by a device message handler to refuse the message with a reason the device is told. */
export class DeviceMessageRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeviceMessageRefused';
  }
}

/** What a device hears when its message failed for a reason of the platform's own. */
export const DEVICE_MESSAGE_FAILED = 'The platform could not handle this message';

export interface DeviceEndpointDeps {
  readonly devices: DeviceRepository;
  readonly clock: Clock;
  readonly links: Map<string, DeviceLink>;
  /**
   * A device's newer socket while `links` still holds a logged-in one: it takes the device over when it
   * sends its login (serveDevice says why). One per serial; the node's, like `links`.
   */
  readonly pending: Map<string, DeviceLink>;
  /** A login, or a disconnect; `announce` is false when a newer login elsewhere keeps the device online. */
  readonly onPresence: (link: DeviceLink, online: boolean, announce: boolean) => void;
  /** This node's id, recorded as the holder of the devices that log in here. */
  readonly nodeId: string;
  /** Hears each offline write, so a shutdown can wait for them before closing the database. */
  readonly track?: (write: Promise<unknown>) => void;
  /** Handlers of device-to-platform messages (status, telemetry, progress), by command id. */
  readonly messageHandlers: ReadonlyMap<number, DeviceMessageHandler>;
  readonly log: { warn(obj: object, msg: string): void };
  /** Flows between consoles and devices: a device's flow messages and chunks go to the console that opened the flow. */
  readonly flows: FlowTable;
  /** Live view fan-out: video chunks of a live stream go to every console watching it. */
  readonly streams?: StreamFanout;
  /** The node's correlator of commands to devices (shared by all links). */
  readonly commands: Correlator;
}

/**
 * Runs one admitted device socket: login, heartbeats, replies to forwarded commands, and going offline.
 * `slot`, its place among the node's logins in flight, is given back once its login is answered.
 *
 * A newer socket of a device replaces its logged-in one when it sends its login, not when it opens
 * (DEV-2). An upgrade can be served long after its device gave up on it: it waited in the accept queue, at
 * admission or behind a database read in a login storm, and the device's handshake timed out (10 s), so
 * the device connected again and logged in. Replaced at open, the stale socket closed the live one with
 * 4008, after which a device stops for good (LIFE-3): 714 of 19,000 simulated agents logged in once and
 * were gone. A stale socket never sends a login, so the live one stays. A socket that has not logged in
 * yet is superseded with 1013 (try again later), which a device answers by reconnecting.
 */
export function serveDevice(ws: WebSocket, admission: Extract<DeviceAdmission, { ok: true }>, deps: DeviceEndpointDeps, slot?: LoginSlot): void {
  const link = new DeviceLink(new Peer(ws), admission.sn, admission.orgId, deps.clock, deps.commands);
  const previous = deps.links.get(link.sn);
  if (previous?.loggedIn) {
    deps.pending.get(link.sn)?.peer.ws.close(CloseCode.TryAgainLater, 'superseded by a newer connection');
    deps.pending.set(link.sn, link);
  } else {
    previous?.peer.ws.close(CloseCode.TryAgainLater, 'superseded by a newer connection');
    deps.links.set(link.sn, link);
  }
  let enrolling = admission.enrolling;
  const reenrolling = admission.reenrolling === true;

  const handleLogin = async (env: Envelope) => {
    const info = parseInfo(env.data);
    if (!info) {
      link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.MessageError, data: { message: 'model and systemType are required' } });
      return;
    }
    if (deps.pending.get(link.sn) === link) {
      // The device logs in on this socket, so the logged-in one is the socket it left (DEV-2).
      deps.pending.delete(link.sn);
      deps.links.get(link.sn)?.peer.ws.close(CloseCode.Replaced, 'replaced by a newer connection');
      deps.links.set(link.sn, link);
    }
    const now = deps.clock.now();
    let secret: string | undefined;
    let registered = false;
    if (enrolling) {
      secret = randomBytes(32).toString('base64url');
      if (reenrolling) await deps.devices.setSecret(link.sn, deviceSecretDigest(secret));
      else await deps.devices.register(link.sn, link.orgId, deviceSecretDigest(secret), info, now, deps.nodeId);
      registered = !reenrolling;
      enrolling = false;
    }
    // A first enrolment wrote the row online already (one write per login).
    if (!registered) await deps.devices.markOnline(link.sn, info, now, deps.nodeId, !admission.enrolling);
    if (deps.links.get(link.sn) !== link) {
      // The socket closed while the write was on its way (a newer connection of the device writes its own
      // login). Its close skipped the offline write, the device not being logged in yet: write it now, or
      // the row says online with no socket behind it. A newer login has moved online_since, so this
      // changes nothing then.
      if (!deps.links.has(link.sn)) {
        const write = deps.devices.markOffline(link.sn, deps.clock.now(), now).catch((err: unknown) => deps.log.warn({ err, sn: link.sn }, 'marking offline failed'));
        deps.track?.(write);
      }
      return;
    }
    link.loggedIn = true;
    link.onlineSince = now;
    link.enrolled = secret !== undefined;
    link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.Success, data: secret ? { secret } : {} });
    deps.onPresence(link, true, true);
  };

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    link.lastRx = deps.clock.now();
    if (isBinary && data[0] === CHUNK_MAGIC) {
      if (!deps.flows.toConsole(peekChunkFlowId(data), link.sn, { frame: data })) deps.streams?.fromDevice(link.sn, data);
      return;
    }
    const env = link.peer.decode(data, isBinary);
    if (!('msgId' in env)) {
      ws.close(CloseCode.PolicyViolation, env.message.slice(0, 100));
      return;
    }
    if (isReply(env)) {
      link.resolve(env);
    } else if (env.msgId === Command.Heartbeat) {
      link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.Success });
    } else if (env.msgId === Command.DeviceLogin) {
      handleLogin(env).then(slot?.release, (err: unknown) => {
        slot?.release();
        deps.log.warn({ err, sn: link.sn }, 'device login failed');
        ws.close(CloseCode.PolicyViolation, 'login failed');
      });
    } else if (link.loggedIn && deps.flows.toConsole(env.flowId, link.sn, { env: { msgId: env.msgId, cid: env.cid, flowId: env.flowId, sn: link.sn, data: env.data } })) {
      // Shell output, transfer offers and acknowledgements went to the console that opened the flow.
    } else if (link.loggedIn) {
      const handler = deps.messageHandlers.get(env.msgId);
      if (!handler) return link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.UnknownMessageId });
      const done = (data: unknown) => env.cid && link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.Success, data });
      const failed = (err: unknown) => {
        deps.log.warn({ err, sn: link.sn, msgId: env.msgId }, 'device message failed');
        const message = err instanceof DeviceMessageRefused ? err.message : DEVICE_MESSAGE_FAILED;
        if (env.cid) link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.Fail, data: { message } });
      };
      let out: unknown;
      try {
        // The link is the origin (sn, orgId): no object per message.
        out = handler(link, env);
      } catch (err) {
        return failed(err);
      }
      if (out instanceof Promise) out.then(done, failed);
      else done(out);
    } else {
      link.peer.send({ msgId: env.msgId, cid: env.cid, result: Result.DeviceNotLoggedIn });
    }
  });

  ws.on('close', () => {
    // An error captures a stack trace: only built when a command is actually waiting.
    if (link.waiting?.size) link.failWaiting(new ConnectionLostError());
    if (deps.pending.get(link.sn) === link) deps.pending.delete(link.sn);
    if (deps.links.get(link.sn) !== link) return;
    deps.links.delete(link.sn);
    if (!link.loggedIn) return;
    // Consoles hear 'offline' only once the database says so, so a command sent on hearing it gets
    // result 5 instead of being routed to a node that no longer holds the device. A row left unchanged
    // means a newer login (through another node) holds the device: nothing to announce.
    const write = deps.devices
      .markOffline(link.sn, deps.clock.now(), link.onlineSince)
      .catch((err: unknown) => {
        deps.log.warn({ err, sn: link.sn }, 'marking offline failed');
        return true;
      })
      .then((changed) => deps.onPresence(link, false, changed))
      .catch((err: unknown) => deps.log.warn({ err, sn: link.sn }, 'announcing offline failed'));
    deps.track?.(write);
  });
}
