import type { WebSocket } from 'ws';
import {
  CHUNK_MAGIC,
  CloseCode,
  type Corkable,
  Command,
  ConnectionLostError,
  commandPermission,
  decodeEnvelope,
  decodeRequest,
  type Envelope,
  isKnownCommand,
  isReply,
  MALFORMED_REQUEST,
  type MappedEnvelope,
  type PendingHandlers,
  peekChunkFlowId,
  RequestTimeoutError,
  Result,
} from '../../protocol/index.ts';
import type { Caller } from '../accounts/caller.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { Message } from '../http/envelope.ts';
import { type DangerousCommandGuard } from './command-limits.ts';
import { commandPermissions } from './command-permissions.ts';
import { ConsoleLink } from './console-link.ts';
import type { ConsoleRights, SessionRights } from './console-rights.ts';
import { commandDevice } from './device-endpoint.ts';
import type { DeviceLink } from './device-link.ts';
import type { DeviceWatchers } from './device-watchers.ts';
import { FLOW_ID_MESSAGE, isValidFlowId } from './flow-ids.ts';
import type { FlowTable } from './flows.ts';
import { Peer } from './peer.ts';
import type { StreamFanout } from './stream-fanout.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import type { TimelineWriter } from '../timeline/writer.ts';
import type { Recordings } from '../recordings/recorder.ts';
import { recordShellRequest } from '../recordings/shell-events.ts';
import { type ConsoleApprovals, waitingReply } from '../approvals/service.ts';

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
  /** A command to a device of `orgId` ended (not flow traffic): webhooks hear it (issue 23). */
  readonly onCommandEnded?: (sn: string, orgId: number, msgId: number, result: number, by: string) => void;
  /** The console's raw socket: what it is sent in one turn of the event loop goes out in one write. */
  readonly socket?: Corkable;
  /** Consoles watching devices hear the outcome of every command sent to them. */
  readonly watchers?: DeviceWatchers;
  /** The devices' timeline: each command's outcome is one entry (issue 22). */
  readonly timeline?: TimelineWriter;
  /** Shell sessions recorded per organisation policy (issue 22). */
  readonly recordings?: Recordings;
  readonly now?: () => number;
  /** The rights of this process's console sessions, checked per command. */
  readonly rights: ConsoleRights;
  /** Dangerous commands (reboot, factory reset, clear data) per device. */
  readonly dangerous: DangerousCommandGuard;
  /** Four-eyes approval (issue 23): wipes wait for a second account when the organisation says so. */
  readonly approvals?: ConsoleApprovals;
}

/**
 * One console command on its way to a device: what the correlator calls with the device's progress,
 * reply or failure. One object per command, where closures over the dispatch made four (and a context).
 */
class ConsoleCommand implements PendingHandlers {
  readonly #req: MappedEnvelope;
  readonly #link: ConsoleLink;
  readonly #deps: ConsoleEndpointDeps;
  readonly #now: () => number;
  readonly #account: string;
  readonly #sn: string;
  readonly #orgId: number | undefined;
  readonly #source: TimelineSource;
  readonly #recordingId: string | null;
  readonly #started = Date.now();

  constructor(req: MappedEnvelope, link: ConsoleLink, deps: ConsoleEndpointDeps, now: () => number, account: string, sn: string, orgId: number | undefined, source: TimelineSource, recordingId: string | null = null) {
    this.#source = source;
    this.#recordingId = recordingId;
    this.#req = req;
    this.#link = link;
    this.#deps = deps;
    this.#now = now;
    this.#account = account;
    this.#sn = sn;
    this.#orgId = orgId;
  }

  progress(reply: Envelope): void {
    this.#answer(reply.result, reply.data);
  }

  result(reply: Envelope): void {
    this.outcome(reply.result ?? Result.Fail, reply.data);
    this.#answer(reply.result, reply.data);
  }

  error(err: Error): void {
    const result = err instanceof ConnectionLostError ? Result.DeviceOffline : Result.Fail;
    const data = err instanceof RequestTimeoutError ? { message: 'Request Timeout' } : undefined;
    this.outcome(result, data);
    this.#answer(result, data);
  }

  /** Metrics, watchers, webhooks and the device's timeline hear how the command ended. */
  outcome(result: number, reply?: unknown): void {
    const req = this.#req;
    const deps = this.#deps;
    const ms = Date.now() - this.#started;
    deps.onOutcome?.(req.msgId, result, ms);
    // Flow commands (shell sessions, transfers) are one console's conversation, not an operation on the
    // device; opening a shell is the one the timeline keeps (who had a shell on the device, and when).
    if (req.flowId !== undefined) {
      const op = req.msgId === Command.Shell ? req.data.op : undefined;
      if (op === 'open') this.#toTimeline(result, reply, ms);
      // A shell that did not open has nothing to record.
      if (op === 'open' && result !== Result.Success && result !== Result.Pushing) void deps.recordings?.end(this.#sn, req.flowId);
      // The session's recording ends once the device has answered its close (its last output came first).
      if (op === 'close') void deps.recordings?.end(this.#sn, req.flowId);
      return;
    }
    this.#toTimeline(result, reply, ms);
    deps.watchers?.commandEnded(this.#sn, req.msgId, result, this.#account, this.#now(), this.#link);
    if (this.#orgId !== undefined) deps.onCommandEnded?.(this.#sn, this.#orgId, req.msgId, result, this.#account);
  }

  #toTimeline(result: number, reply: unknown, ms: number): void {
    if (this.#orgId === undefined || !this.#deps.timeline) return;
    const req = this.#req;
    this.#deps.timeline.record({ orgId: this.#orgId, sn: this.#sn, account: this.#account, source: this.#source, msgId: req.msgId, data: req.data, result, reply, at: this.#now() - ms, durationMs: ms, recordingId: this.#recordingId });
  }

  #answer(result: Envelope['result'], data: unknown): void {
    const req = this.#req;
    this.#link.peer.send({ msgId: req.msgId, cid: req.cid, sn: req.sn, result, data });
  }
}

/** A terminal size from a request, when it is a positive integer. */
const intOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < 10_000 ? v : undefined);

/** The key a console needs to watch a device: the device list's own (it shows the same device). */
const WATCH_PERMISSION = 'device_list';
/** A group-control session marks devices under the live-control key, as group control itself needs. */
const GROUP_PERMISSION = commandPermission(Command.RemoteControl);

/** Keys whose flows (shell sessions, transfers) a console lets go of when it loses them. */
const FLOW_PERMISSIONS = ['device_shell', 'device_file', 'device_file_export', 'device_capture'] as const;
const STREAM_PERMISSIONS = ['device_live_view', 'device_live_control'] as const;

/** A reload of a session's rights failed (the database is away): the console reconnects and loads them afresh. */
const RIGHTS_UNAVAILABLE = 1011;

/**
 * Runs one console socket: heartbeats, and commands routed to devices with their results routed back.
 * `opened` is the session's rights as ConsoleRights.open gave them.
 */
export function serveConsole(ws: WebSocket, opened: SessionRights, deps: ConsoleEndpointDeps): ConsoleLink {
  const link = new ConsoleLink(new Peer(ws, deps.socket), opened);
  const rights = deps.rights.attach(opened, link);
  // The session ended between the upgrade and now: attach closed the socket.
  if (!rights) return link;
  link.useRights(rights);
  deps.consoles.add(link);
  const now = deps.now ?? Date.now;
  const answer = (req: Envelope, result: Envelope['result'], data?: unknown) =>
    link.peer.send({ msgId: req.msgId, cid: req.cid, sn: req.sn, result, data });

  /**
   * Runs `then` with the session's current rights: at once when no change touched them since they were
   * loaded, after their reload when one did (so nothing is decided on rights a committed change took away),
   * and not at all once the session is over (its socket is being closed).
   */
  const withRights = (then: (caller: Caller) => void): Promise<void> | undefined => {
    const current = deps.rights.check(link.rights);
    if (current === undefined) return undefined;
    if (!(current instanceof Promise)) return void then(current);
    return current.then((caller) => {
      if (caller) then(caller);
    });
  };

  // What the lost rights had granted is let go; asking again is checked against the new ones.
  link.onNarrowed = (before, after) => {
    const scopeShrank = !after.scopeCoversAll && [...before.scope].some((id) => !after.scope.has(id));
    const lost = (keys: readonly string[]) => keys.some((k) => before.permissions.has(k) && !after.permissions.has(k));
    if (scopeShrank || lost(STREAM_PERMISSIONS)) deps.streams?.consoleLinkGone(link);
    if (scopeShrank || lost([WATCH_PERMISSION])) deps.watchers?.consoleGone(link);
    // A lost key ends the flows opened under it (each flow keeps its key: flows.ts); the others carry on.
    if (scopeShrank) deps.flows.dropConsole(link);
    else if (lost(FLOW_PERMISSIONS)) deps.flows.dropUnpermitted(link);
  };

  const tooFrequent = (req: Envelope): void => void answer(req, Result.Fail, { message: Message.TooFrequent });

  // Synchronous for a device on this node (no promise per command); a promise when the database must tell.
  const forward = (req: Envelope, caller: Caller): Promise<void> | undefined => {
    if (req.msgId === Command.TransferBegin) {
      // Resuming or starting a transfer on a flow this console opened, while it holds the key it opened it with.
      const route = deps.flows.permitted(req.flowId, link, caller);
      if (!route) return void answer(req, Result.Fail, { message: Message.PermissionDenied });
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
    // The edge (WIRE-2): the data is read by its command's decoder once; past here it is typed.
    const typed = decodeEnvelope(req);
    if (typed === undefined) return void answer(req, Result.MessageError, { message: MALFORMED_REQUEST });
    // A connected device's organisation is on its link; only an unconnected one needs the database, to
    // tell offline (5) from unknown. Out-of-scope devices get the same answer as missing permission.
    const sn = req.sn;
    const target = deps.links.get(sn);
    if (target) return void dispatch(typed, caller, sn, permission, target, target.orgId, false);
    // Refused before the read when the key is missing: a caller without it costs the database nothing.
    if (!caller.permissions.has(permission)) return void answer(req, Result.Fail, { message: Message.PermissionDenied });
    return deps.devices.routeOf(sn).then((route) =>
      // Checked again after the read: a change may have touched the session's rights meanwhile.
      withRights((current) => dispatch(typed, current, sn, permission, undefined, route?.orgId, route?.online === true)),
    );
  };

  const dispatch = (req: MappedEnvelope, caller: Caller, sn: string, permission: string, target: DeviceLink | undefined, orgId: number | undefined, remoteOnline: boolean): void => {
    if (!caller.permissions.has(permission) || orgId === undefined || !caller.scope.has(orgId)) {
      answer(req, Result.Fail, { message: Message.PermissionDenied });
      return;
    }
    if (req.flowId !== undefined && !deps.flows.bind(req.flowId, sn, link, permission)) {
      answer(req, Result.Fail, { message: 'flowId is in use' });
      return;
    }
    const source = caller.session.apiToken ? 'api' : 'console';
    // A command that must wait for a second account becomes a request and is answered result 7 (issue 23).
    const waiting = req.flowId === undefined ? deps.approvals?.intercept(caller, req.msgId, sn, orgId, req.data, source) : undefined;
    if (waiting) {
      waiting.then(
        (view) => (view ? answer(req, Result.AwaitingApproval, waitingReply(view)) : send(req, sn, target, remoteOnline, new ConsoleCommand(req, link, deps, now, caller.account, sn, orgId, source))),
        (err: unknown) => {
          deps.log.warn({ err }, 'approval request failed');
          answer(req, Result.Fail);
        },
      );
      return;
    }
    // A shell's traffic goes to its recording (when its organisation records); opening one may start it first.
    const shell = req.msgId === Command.Shell && req.flowId !== undefined ? req.data : undefined;
    if (deps.recordings && req.flowId !== undefined && shell !== undefined) {
      if (shell.op === 'open') {
        const size = shell;
        deps.recordings
          .begin({ orgId, sn, account: caller.account, flowId: req.flowId, cols: intOr(size.cols), rows: intOr(size.rows), owner: link })
          .then(
            // Required and it could not start: no recording, no shell.
            (r) => ('refused' in r ? answer(req, Result.Fail, { message: Message.PermissionDenied }) : send(req, sn, target, remoteOnline, new ConsoleCommand(req, link, deps, now, caller.account, sn, orgId, source, r.id))),
            (err: unknown) => {
              deps.log.warn({ err }, 'starting a shell recording failed');
              answer(req, Result.Fail);
            },
          );
        return;
      }
      if (shell.op !== 'close') recordShellRequest(deps.recordings, sn, req.flowId, shell);
    }
    // A socket opened with an API token (issue 23) is an API client's, not an operator's console.
    send(req, sn, target, remoteOnline, new ConsoleCommand(req, link, deps, now, caller.account, sn, orgId, source));
  };

  const send = (req: MappedEnvelope, sn: string, target: DeviceLink | undefined, remoteOnline: boolean, command: ConsoleCommand): void => {
    if (target) {
      if (!target.loggedIn) {
        command.outcome(Result.DeviceNotLoggedIn);
        answer(req, Result.DeviceNotLoggedIn);
        return;
      }
      // Counted only when it would reach the device: an offline answer disrupts nothing.
      if (!deps.dangerous.allow(sn, req.msgId, req.data, now())) return tooFrequent(req);
      commandDevice(target, req, deps.commandTimeoutMs, command);
      return;
    }
    // Not on this node: another node of the cluster may hold it (its row says online). The node holding
    // the device spaces dangerous commands, whichever node or route (console, REST) they came through.
    if (remoteOnline && deps.routeRemote(req, command)) return;
    command.outcome(Result.DeviceOffline);
    answer(req, Result.DeviceOffline);
  };

  // Watching a device needs the device list key and the device in scope; missing and out of scope look alike.
  const watch = async (req: Envelope): Promise<void> => {
    const sn = req.sn;
    if (!deps.watchers || !sn) {
      answer(req, Result.MessageError, { message: 'sn is required' });
      return;
    }
    const watchers = deps.watchers;
    // The gateway answers this request itself, so it checks it too (result 2, as for a device's login).
    const on = decodeRequest(Command.DeviceWatch, req.data)?.data.watch;
    if (on === undefined) {
      answer(req, Result.MessageError, { message: 'data.watch must be true or false' });
      return;
    }
    if (!on) {
      watchers.watch(link, sn, false);
      answer(req, Result.Success);
      return;
    }
    // A socket being closed may be a device that just moved organisation: its row has the new one.
    const held = deps.links.get(sn);
    const open = held !== undefined && held.peer.ws.readyState === held.peer.ws.OPEN;
    const orgId = (open ? held.orgId : undefined) ?? (await deps.devices.routeOf(sn))?.orgId;
    await withRights((caller) => {
      if (!caller.permissions.has(WATCH_PERMISSION) || orgId === undefined || !caller.scope.has(orgId)) {
        answer(req, Result.Fail, { message: Message.PermissionDenied });
        return;
      }
      watchers.watch(link, sn, true);
      answer(req, Result.Success);
    });
  };

  // A group-control session (issue 22) marks the devices the console's account has the live-control key for
  // and reaches; the others are left out, as the group-control route refuses them. Empty ends the session.
  const groupSession = async (req: Envelope): Promise<void> => {
    const sns = decodeRequest(Command.GroupControlSession, req.data)?.data.sns;
    if (!deps.watchers || sns === undefined) {
      answer(req, Result.MessageError, { message: 'data.sns must be a list of at most 50 serial numbers' });
      return;
    }
    const watchers = deps.watchers;
    let rights: Caller | undefined;
    await withRights((caller) => {
      rights = caller;
    });
    const caller = rights;
    if (!caller) return;
    const allowed = GROUP_PERMISSION !== undefined && caller.permissions.has(GROUP_PERMISSION) && sns.length > 0;
    const reached = allowed ? (await deps.devices.inScope(sns, caller.scope)).map((d) => d.sn) : [];
    watchers.groupSession(link, caller.account, new Set(reached));
    answer(req, Result.Success);
  };

  const onMessage = (caller: Caller, data: Buffer, isBinary: boolean): void => {
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
    // Every other message is a command, and costs the session one from its budget before any other work.
    if (link.rights.budget?.take(now()) === false) return tooFrequent(env);
    // A flow no chunk header could name is refused before anything is bound or forwarded (DOPS-1).
    if (env.flowId !== undefined && !isValidFlowId(env.flowId)) return void answer(env, Result.MessageError, { message: FLOW_ID_MESSAGE });
    if (deps.streams?.handles(env.msgId)) return deps.streams.fromConsoleLink(link, env, (result, data) => answer(env, result, data));
    if (env.msgId === Command.DeviceWatch) {
      watch(env).catch((err: unknown) => {
        deps.log.warn({ err }, 'console watch failed');
        answer(env, Result.Fail);
      });
      return;
    }
    if (env.msgId === Command.GroupControlSession) {
      groupSession(env).catch((err: unknown) => {
        deps.log.warn({ err }, 'console group session failed');
        answer(env, Result.Fail);
      });
      return;
    }
    const failed = (err: unknown) => {
      deps.log.warn({ err }, 'console command failed');
      answer(env, Result.Fail);
    };
    try {
      forward(env, caller)?.catch(failed);
    } catch (err) {
      failed(err);
    }
  };

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    const current = deps.rights.check(link.rights);
    if (current === undefined) return;
    if (!(current instanceof Promise)) return onMessage(current, data, isBinary);
    // A change touched this session's rights: this message, and any arriving behind it, waits for their
    // reload (promise callbacks run in order, before the socket's next message), so none is decided on
    // rights the committed change took away.
    current.then(
      (caller) => {
        if (caller) onMessage(caller, data, isBinary);
      },
      (err: unknown) => {
        deps.log.warn({ err }, 'reloading console rights failed');
        ws.close(RIGHTS_UNAVAILABLE, 'rights unavailable');
      },
    );
  });
  ws.on('close', () => {
    deps.rights.detach(link.rights, link);
    deps.consoles.delete(link);
    deps.flows.dropConsole(link);
    deps.watchers?.consoleGone(link);
    deps.streams?.consoleLinkGone(link);
    deps.recordings?.endOwner(link);
  });
  return link;
}
