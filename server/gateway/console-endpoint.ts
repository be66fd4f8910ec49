import type { WebSocket } from 'ws';
import {
  CHUNK_MAGIC,
  CloseCode,
  type Corkable,
  Command,
  ConnectionLostError,
  type Envelope,
  isKnownCommand,
  isReply,
  OnlineState,
  type PendingHandlers,
  peekChunkFlowId,
  RequestTimeoutError,
  Result,
} from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { Message } from '../http/envelope.ts';
import { commandPermissions } from './command-permissions.ts';
import { commandDevice, type DeviceLink } from './device-endpoint.ts';
import type { DeviceWatchers } from './device-watchers.ts';
import type { FlowTable } from './flows.ts';
import { Peer } from './peer.ts';
import type { StreamFanout } from './stream-fanout.ts';

/** A logged-in console socket and the caller behind it. */
export class ConsoleLink {
  readonly peer: Peer;
  readonly caller: Caller;

  constructor(peer: Peer, caller: Caller) {
    this.peer = peer;
    this.caller = caller;
  }
}

export interface ConsoleEndpointDeps {
  /** Live view fan-out: answers StartStream and StopStream itself. */
  readonly streams?: StreamFanout;
  readonly devices: DeviceRepository;
  readonly links: ReadonlyMap<string, DeviceLink>;
  readonly consoles: Set<ConsoleLink>;
  readonly commandTimeoutMs: number;
  /** Sends a command to a device held by another node; false when there is no cluster. */
  readonly routeRemote: (req: Envelope, handlers: PendingHandlers) => boolean;
  readonly log: { warn(obj: object, msg: string): void };
  /** Flows (shell sessions, transfers) between consoles and devices on this node. */
  readonly flows: FlowTable;
  /** Hears each command's outcome, for metrics. */
  readonly onOutcome?: (msgId: number, result: number, ms: number) => void;
  /** The console's raw socket: what it is sent in one turn of the event loop goes out in one write. */
  readonly socket?: Corkable;
  /** Consoles watching devices hear the outcome of every command sent to them. */
  readonly watchers?: DeviceWatchers;
  readonly now?: () => number;
}

/** The key a console needs to watch a device: the device list's own (it shows the same device). */
const WATCH_PERMISSION = 'device_list';

/** Runs one console socket: heartbeats, and commands routed to devices with their results routed back. */
export function serveConsole(ws: WebSocket, caller: Caller, deps: ConsoleEndpointDeps): ConsoleLink {
  const link = new ConsoleLink(new Peer(ws, deps.socket), caller);
  deps.consoles.add(link);
  const answer = (req: Envelope, result: Envelope['result'], data?: unknown) =>
    link.peer.send({ msgId: req.msgId, cid: req.cid, sn: req.sn, result, data });

  // Synchronous for a device on this node (no promise per command); a promise when the database must tell.
  const forward = (req: Envelope): Promise<void> | undefined => {
    if (req.msgId === Command.TransferBegin) {
      // Resuming or starting a transfer on a flow this console opened with a permitted command.
      const route = req.flowId === undefined ? undefined : deps.flows.get(req.flowId);
      if (!route || route.console !== link) return void answer(req, Result.Fail, { message: Message.PermissionDenied });
      const relay: PendingHandlers = {
        progress: (reply) => answer(req, reply.result, reply.data),
        result: (reply) => answer(req, reply.result, reply.data),
        error: (err) => answer(req, err instanceof ConnectionLostError ? Result.DeviceOffline : Result.Fail),
      };
      const device = deps.links.get(route.sn);
      if (device) commandDevice(device, req, deps.commandTimeoutMs, relay);
      else if (!deps.routeRemote({ ...req, sn: route.sn }, relay)) answer(req, Result.DeviceOffline);
      return undefined;
    }
    const permission = commandPermissions.get(req.msgId);
    if (!isKnownCommand(req.msgId) || permission === undefined) return void answer(req, Result.UnknownMessageId);
    if (!req.sn) return void answer(req, Result.MessageError, { message: 'sn is required' });
    // A connected device's organisation is on its link; only an unconnected one needs the database, to
    // tell offline (5) from unknown. Out-of-scope devices get the same answer as missing permission.
    const sn = req.sn;
    const target = deps.links.get(sn);
    if (target) return void dispatch(req, sn, permission, target, target.orgId, false);
    return deps.devices.findBySn(sn).then((row) => dispatch(req, sn, permission, undefined, row?.org_id, row?.online_state === OnlineState.Online));
  };

  const dispatch = (req: Envelope, sn: string, permission: string, target: DeviceLink | undefined, orgId: number | undefined, remoteOnline: boolean): void => {
    const started = Date.now();
    const outcome = (reply: Envelope) => {
      const result = reply.result ?? Result.Fail;
      deps.onOutcome?.(req.msgId, result, Date.now() - started);
      // Flow commands (shell sessions, transfers) are one console's conversation, not an operation on the device.
      if (req.flowId === undefined) deps.watchers?.commandEnded(sn, req.msgId, result, caller.account, deps.now?.() ?? Date.now(), link);
    };
    if (!caller.permissions.has(permission) || orgId === undefined || !caller.scope.has(orgId)) {
      answer(req, Result.Fail, { message: Message.PermissionDenied });
      return;
    }
    if (req.flowId !== undefined && !deps.flows.bind(req.flowId, sn, link)) {
      answer(req, Result.Fail, { message: 'flowId is in use' });
      return;
    }
    const handlers: PendingHandlers = {
      progress: (reply) => answer(req, reply.result, reply.data),
      result: (reply) => {
        outcome(reply);
        answer(req, reply.result, reply.data);
      },
      error: (err) => {
        const result = err instanceof ConnectionLostError ? Result.DeviceOffline : Result.Fail;
        outcome({ msgId: req.msgId, result });
        answer(req, result, err instanceof RequestTimeoutError ? { message: 'Request Timeout' } : undefined);
      },
    };
    if (target) {
      if (!target.loggedIn) {
        outcome({ msgId: req.msgId, result: Result.DeviceNotLoggedIn });
        answer(req, Result.DeviceNotLoggedIn);
        return;
      }
      commandDevice(target, req, deps.commandTimeoutMs, handlers);
      return;
    }
    // Not on this node: another node of the cluster may hold it (its row says online).
    if (remoteOnline && deps.routeRemote(req, handlers)) return;
    outcome({ msgId: req.msgId, result: Result.DeviceOffline });
    answer(req, Result.DeviceOffline);
  };

  // Watching a device needs the device list key and the device in scope; missing and out of scope look alike.
  const watch = async (req: Envelope): Promise<void> => {
    const sn = req.sn;
    if (!deps.watchers || !sn) {
      answer(req, Result.MessageError, { message: 'sn is required' });
      return;
    }
    const on = (req.data as { watch?: unknown } | undefined)?.watch !== false;
    if (!on) {
      deps.watchers.watch(link, sn, false);
      answer(req, Result.Success);
      return;
    }
    const orgId = deps.links.get(sn)?.orgId ?? (await deps.devices.findBySn(sn))?.org_id;
    if (!caller.permissions.has(WATCH_PERMISSION) || orgId === undefined || !caller.scope.has(orgId)) {
      answer(req, Result.Fail, { message: Message.PermissionDenied });
      return;
    }
    deps.watchers.watch(link, sn, true);
    answer(req, Result.Success);
  };

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (isBinary && data[0] === CHUNK_MAGIC) {
      // File bytes of a flow this console opened go to its device unchanged (the device checks the CRC).
      deps.flows.toDevice(peekChunkFlowId(data), link, { frame: data });
      return;
    }
    const env = link.peer.decode(data, isBinary);
    if (!('msgId' in env)) {
      ws.close(CloseCode.PolicyViolation, env.message.slice(0, 100));
      return;
    }
    if (isReply(env) || (env.msgId === Command.ChunkAck && env.flowId !== undefined)) {
      // Answers to a device's transfer offer and acknowledgements of its chunks, on this console's flows.
      deps.flows.toDevice(env.flowId, link, { env: { msgId: env.msgId, cid: env.cid, flowId: env.flowId, result: env.result, data: env.data } });
      return;
    }
    if (env.msgId === Command.Heartbeat) {
      answer(env, Result.Success);
      return;
    }
    if (deps.streams?.handles(env.msgId)) return deps.streams.fromConsoleLink(link, env, (result, data) => answer(env, result, data));
    if (env.msgId === Command.DeviceWatch) {
      watch(env).catch((err: unknown) => {
        deps.log.warn({ err }, 'console watch failed');
        answer(env, Result.Fail);
      });
      return;
    }
    const failed = (err: unknown) => {
      deps.log.warn({ err }, 'console command failed');
      answer(env, Result.Fail);
    };
    try {
      forward(env)?.catch(failed);
    } catch (err) {
      failed(err);
    }
  });
  ws.on('close', () => {
    deps.consoles.delete(link);
    deps.flows.dropConsole(link);
    deps.watchers?.consoleGone(link);
    deps.streams?.consoleLinkGone(link);
  });
  return link;
}
