import type { WebSocket } from 'ws';
import { CloseCode, Command, ConnectionLostError, type Envelope, isKnownCommand, isReply, OnlineState, type PendingHandlers, RequestTimeoutError, Result } from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { Message } from '../http/envelope.ts';
import { commandPermissions } from './command-permissions.ts';
import { commandDevice, type DeviceLink } from './device-endpoint.ts';
import { Peer } from './peer.ts';

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
  readonly devices: DeviceRepository;
  readonly links: ReadonlyMap<string, DeviceLink>;
  readonly consoles: Set<ConsoleLink>;
  readonly commandTimeoutMs: number;
  /** Sends a command to a device held by another node; false when there is no cluster. */
  readonly routeRemote: (req: Envelope, handlers: PendingHandlers) => boolean;
  readonly log: { warn(obj: object, msg: string): void };
}

/** Runs one console socket: heartbeats, and commands routed to devices with their results routed back. */
export function serveConsole(ws: WebSocket, caller: Caller, deps: ConsoleEndpointDeps): ConsoleLink {
  const link = new ConsoleLink(new Peer(ws), caller);
  deps.consoles.add(link);
  const answer = (req: Envelope, result: Envelope['result'], data?: unknown) =>
    link.peer.send({ msgId: req.msgId, cid: req.cid, sn: req.sn, result, data });

  const forward = async (req: Envelope) => {
    const permission = commandPermissions.get(req.msgId);
    if (!isKnownCommand(req.msgId) || permission === undefined) return answer(req, Result.UnknownMessageId);
    if (!req.sn) return answer(req, Result.MessageError, { message: 'sn is required' });
    // A connected device's organisation is on its link; only an unconnected one needs the database, to
    // tell offline (5) from unknown. Out-of-scope devices get the same answer as missing permission.
    const target = deps.links.get(req.sn);
    const row = target ? undefined : await deps.devices.findBySn(req.sn);
    const orgId = target ? target.orgId : row?.org_id;
    const remoteOnline = row?.online_state === OnlineState.Online;
    if (!caller.permissions.has(permission) || orgId === undefined || !caller.scope.has(orgId)) {
      return answer(req, Result.Fail, { message: Message.PermissionDenied });
    }
    const handlers: PendingHandlers = {
      progress: (reply) => answer(req, reply.result, reply.data),
      result: (reply) => answer(req, reply.result, reply.data),
      error: (err) => {
        if (err instanceof ConnectionLostError) answer(req, Result.DeviceOffline);
        else if (err instanceof RequestTimeoutError) answer(req, Result.Fail, { message: 'Request Timeout' });
        else answer(req, Result.Fail);
      },
    };
    if (target) {
      if (!target.loggedIn) return answer(req, Result.DeviceNotLoggedIn);
      return commandDevice(target, req, deps.commandTimeoutMs, handlers);
    }
    // Not on this node: another node of the cluster may hold it (its row says online).
    if (remoteOnline && deps.routeRemote(req, handlers)) return;
    return answer(req, Result.DeviceOffline);
  };

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const env = link.peer.decode(data, isBinary);
    if (!('msgId' in env)) {
      ws.close(CloseCode.PolicyViolation, env.message.slice(0, 100));
      return;
    }
    if (isReply(env)) return;
    if (env.msgId === Command.Heartbeat) {
      answer(env, Result.Success);
      return;
    }
    forward(env).catch((err: unknown) => {
      deps.log.warn({ err }, 'console command failed');
      answer(env, Result.Fail);
    });
  });
  ws.on('close', () => deps.consoles.delete(link));
  return link;
}
