import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  type ApprovalDecidedEvent,
  CloseCode,
  Command,
  type Clock,
  ConnectionLostError,
  Correlator,
  type Envelope,
  MAX_FRAME_BYTES,
  OnlineState,
  type PendingHandlers,
  RequestTimeoutError,
  Result,
  type ResultCode,
  chooseSubprotocol,
} from '../../protocol/index.ts';
import type { Bus } from '../bus/bus.ts';
import { type ForwardedCommand, Subject } from '../bus/subjects.ts';
import { loadCaller } from '../accounts/caller.ts';
import { RightsBus } from '../accounts/rights-bus.ts';
import type { SessionStore } from '../auth/sessions.ts';
import { bearerToken } from '../api-tokens/bearer.ts';
import { emitWebhook } from '../webhooks/emit.ts';
import type { Db } from '../db/database.ts';
import { DeviceHolders, type ReleasedDevice } from '../devices/device-holders.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { ClusterMembership } from './cluster-membership.ts';
import { DeviceWatchers } from './device-watchers.ts';
import { serveConsole } from './console-endpoint.ts';
import type { ConsoleLink } from './console-link.ts';
import { AccountBudgets, DangerousCommandGuard, DEFAULT_CONSOLE_COMMAND_BURST, DEFAULT_CONSOLE_COMMAND_RATE } from './command-limits.ts';
import { ConsoleRights } from './console-rights.ts';
import { DeviceAdmissionGate } from './device-admission.ts';
import { admitDevice, commandDevice, type DeviceCredentials, type DeviceEndpointDeps, type DeviceMessageHandler, serveDevice } from './device-endpoint.ts';
import type { DeviceLink } from './device-link.ts';
import { FlowTable } from './flows.ts';
import { DEVICE_SILENCE_MS, LivenessSweep } from './liveness.ts';
import { StreamFanout } from './stream-fanout.ts';
import { randomId } from './random-ids.ts';
import { GatewayMetrics } from '../metrics/metrics.ts';
import { Message } from '../http/envelope.ts';
import type { TimelineSource } from '../../protocol/api/timeline.ts';
import { timelineKeeps, TimelineWriter } from '../timeline/writer.ts';
import { Recordings } from '../recordings/recorder.ts';
import { recordShellOutput } from '../recordings/shell-events.ts';
import type { ConsoleApprovals } from '../approvals/service.ts';

/** Console socket path (devices-and-commerce section 7). */
export const CONSOLE_SOCKET_PATH = '/websocket';
/** Device socket path (ours; the spec does not show one). */
export const DEVICE_SOCKET_PATH = '/device/websocket';

export interface GatewayDeps {
  readonly db: Db;
  readonly devices: DeviceRepository;
  readonly sessions: SessionStore;
  readonly clock: Clock;
  readonly commandTimeoutMs?: number;
  /** The bus to the other nodes of a cluster (in-process when alone). */
  readonly bus: Bus;
  /** This node's id on the bus, unique in the cluster. */
  readonly nodeId: string;
  /** Device sockets admitted per second at most (a reconnect storm is worked through at this pace); 0 for no limit. */
  readonly deviceAdmissionsPerSecond?: number;
  /** Device logins admitted and not yet answered, at most, before devices are answered 503 (0: no bound). */
  readonly deviceLoginsInFlight?: number;
  /** How long a device's upgrade past either limit waits for its turn before it is answered 503 (0: at once). */
  readonly deviceAdmissionWaitMs?: number;
  /** Silence after which a device socket is closed (default: heartbeat + two checks). */
  readonly deviceSilenceMs?: number;
  /** How long a shutdown waits for commands in flight before closing sockets (default 5 s). */
  readonly drainMs?: number;
  /**
   * Whether this node beats on the bus and marks offline the devices of nodes that fall silent: true
   * between the nodes of a NATS cluster. The worker processes of one node leave it to their primary, which
   * sees a worker die at once (server/cluster/node-primary.ts), and whose relay a login storm can slow.
   */
  readonly clusterPresence?: boolean;
  /** Cluster beat period and the silence after which a node is dead (tests shorten them). */
  readonly nodeBeatMs?: number;
  readonly nodeDeadMs?: number;
  /** Commands a console session may send per second, sustained and in a burst (CONSOLE_COMMAND_RATE/BURST); rate 0 for no limit. */
  readonly consoleCommandRate?: number;
  readonly consoleCommandBurst?: number;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  /** Where shell recordings are written (DATA_DIR/recordings); none: shells are not recorded. */
  readonly recordingsDir?: string;
  /** Recorded sessions older than this many days are deleted by an hourly sweep (0 or none: kept). */
  readonly recordingRetentionDays?: number;
}

export interface CommandOptions {
  readonly timeoutMs?: number;
  readonly flowId?: string;
  /** Hears intermediate replies (progress of a push, say). */
  readonly progress?: (reply: Envelope) => void;
  /** Who sends it, as consoles watching the device are told (default 'platform'). */
  readonly by?: string;
  /** The route it came by, for the device's timeline (default 'rest'). */
  readonly source?: TimelineSource;
}

/** An upgrading socket's error listener until ws takes the socket over: one function for every socket. */
function destroyOnError(this: Duplex): void {
  this.destroy();
}

/** The WebSocket gateway: device and console sockets on the HTTP server, and routing between them. */
export class Gateway {
  readonly #deps: GatewayDeps;
  readonly #wss: WebSocketServer;
  readonly #devices = new Map<string, DeviceLink>();
  /** A device's newer socket that has not logged in while `#devices` holds its logged-in one (serveDevice). */
  readonly #pendingDevices = new Map<string, DeviceLink>();
  readonly #consoles = new Set<ConsoleLink>();
  readonly #liveness: LivenessSweep;
  /** Commands this node forwarded to devices held by other nodes. */
  readonly #remote: Correlator;
  /** Commands this node sent to devices it holds (one correlator for all device links). */
  readonly #deviceCommands: Correlator;
  readonly #deviceSubs = new Map<string, () => void>();
  readonly #busSubs: (() => void)[] = [];
  readonly #messageHandlers = new Map<number, DeviceMessageHandler>();
  /** Shell sessions and transfers between consoles and devices on this node. */
  readonly #flows: FlowTable;
  readonly #onlineListeners: ((sn: string) => void)[] = [];
  readonly #presenceListeners: ((sn: string, orgId: number, online: boolean, time: number) => void)[] = [];
  /** Live view: one device stream fanned out to every watching console on this node. */
  readonly streams = new StreamFanout({
    command: (sn, msgId, data, opts) => this.command(sn, msgId, data, opts),
    orgOf: (sn) => (this.#devices.get(sn)?.loggedIn ? this.#devices.get(sn)?.orgId : undefined),
    findDevice: (sn) => this.#deps.devices.routeOf(sn),
    recorder: () => this.recordings,
    // A console's start of watching is one timeline entry of the device, with its recording when made.
    watched: (e) => this.timeline.record({ ...e, source: 'console', msgId: Command.StartStream }),
    now: () => this.#deps.clock.now(),
  });
  /** Consoles watching devices, told the outcome of every command sent to them. */
  readonly #watchers: DeviceWatchers;
  /** Beats and dead-node sweeps, in a cluster only. */
  readonly #membership: ClusterMembership | undefined;
  readonly #holders: DeviceHolders;
  /** Offline writes of closing device sockets, awaited by a shutdown. */
  readonly #offlineWrites = new Set<Promise<unknown>>();
  #deviceDeps: DeviceEndpointDeps | undefined;
  #closing = false;

  /** Connections and command outcomes of this node, for /metrics. */
  readonly metrics: GatewayMetrics;
  /** Every command to a device, one entry per device, written in batches (issue 22). */
  readonly timeline: TimelineWriter;
  /** Shell sessions recorded per organisation policy (issue 22), when a directory is configured. */
  readonly recordings: Recordings | undefined;
  readonly #admissionGate: DeviceAdmissionGate;
  /**
   * Changes to roles, accounts and organisations, told to every node and worker process: writers call
   * `rights.changed` after committing one (the repositories do), and consoles reload the rights it touches.
   */
  readonly rights: RightsBus;
  /** The rights of this process's console sessions, checked per command. */
  readonly #consoleRights: ConsoleRights;
  readonly #dangerous = new DangerousCommandGuard();
  /** Four-eyes approval (issue 23), set by the server before sockets are accepted. */
  approvals: ConsoleApprovals | undefined;
  /** Per-account budgets of commands sent over HTTP, the size of a console session's. */
  readonly accountBudgets: AccountBudgets;
  /** Hear devices moved by this process (held commands are cancelled then). */
  readonly #movedListeners: ((sns: readonly string[], orgId: number) => Promise<void>)[] = [];
  /** Moves this process published, waiting for the bus to carry them back. */
  readonly #moveEchoes = new Map<number, () => void>();
  #moveSeq = 0;

  constructor(deps: GatewayDeps) {
    this.#deps = deps;
    this.timeline = new TimelineWriter(deps.db, { log: deps.log });
    this.recordings = deps.recordingsDir === undefined ? undefined : new Recordings(deps.db, deps.recordingsDir, () => deps.clock.now(), deps.log, (deps.recordingRetentionDays ?? 0) * 86_400_000);
    this.#consoleRights = new ConsoleRights({
      // The session is read again too: one that ended where this process did not hear it is not revived.
      load: async (session) => {
        const live = await deps.sessions.byDigest(session.tokenHash);
        return live && live.accountId === session.accountId ? loadCaller(deps.db, live) : undefined;
      },
      clock: deps.clock,
      commandRate: deps.consoleCommandRate ?? DEFAULT_CONSOLE_COMMAND_RATE,
      commandBurst: deps.consoleCommandBurst ?? DEFAULT_CONSOLE_COMMAND_BURST,
      log: deps.log,
    });
    this.accountBudgets = new AccountBudgets(deps.consoleCommandRate ?? DEFAULT_CONSOLE_COMMAND_RATE, deps.consoleCommandBurst ?? DEFAULT_CONSOLE_COMMAND_BURST);
    this.rights = new RightsBus(deps.bus, deps.nodeId);
    this.rights.listen((change) => this.#consoleRights.invalidate(change));
    this.#admissionGate = new DeviceAdmissionGate({
      perSecond: deps.deviceAdmissionsPerSecond ?? 0,
      maxInFlight: deps.deviceLoginsInFlight ?? 0,
      maxWaitMs: deps.deviceAdmissionWaitMs ?? 0,
    });
    this.metrics = new GatewayMetrics({
      devices: () => this.#devices.size,
      consoles: () => this.#consoles.size,
      flows: () => this.#flows.size,
      admissionsRefused: () => this.#admissionGate.refused,
      admissionsWaited: () => this.#admissionGate.waited,
    });
    this.#remote = new Correlator(deps.clock, { keepArmed: true });
    this.#deviceCommands = new Correlator(deps.clock, { keepArmed: true });
    this.#flows = new FlowTable(this.#devices, deps.bus);
    const recordings = this.recordings;
    if (recordings) this.#flows.onDeviceEnv = (sn, env) => recordShellOutput(recordings, sn, env);
    this.#watchers = new DeviceWatchers(deps.bus, deps.nodeId);
    this.#holders = new DeviceHolders(deps.db);
    this.#membership = deps.bus.shared && (deps.clusterPresence ?? true)
      ? new ClusterMembership({
          bus: deps.bus,
          nodeId: deps.nodeId,
          clock: deps.clock,
          holders: this.#holders,
          onReleased: (released, time) => this.#announceReleased(released, time),
          log: deps.log,
          beatMs: deps.nodeBeatMs,
          deadMs: deps.nodeDeadMs,
        })
      : undefined;
    this.#liveness = new LivenessSweep(this.#devices, deps.clock, deps.deviceSilenceMs ?? DEVICE_SILENCE_MS);
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_FRAME_BYTES,
      // Msgpack when the peer offers it, else JSON, of a contract version this server speaks (CONN-4);
      // none offered means JSON, the spec's default.
      handleProtocols: (offered) => chooseSubprotocol(offered),
    });
    deps.sessions.events.on('ended', ({ tokenHash }) => {
      this.#endSession(tokenHash);
      if (deps.bus.shared) deps.bus.publish(Subject.sessionEnded, { node: deps.nodeId, tokenHash });
    });
    this.#busSubs.push(
      deps.bus.subscribe(Subject.sessionEnded, (m) => m.node !== deps.nodeId && this.#endSession(m.tokenHash)),
      deps.bus.subscribe(Subject.presence, (m) => {
        if (m.node === deps.nodeId) return;
        const { sn } = m;
        // A device that logged in elsewhere is no longer here, whatever this node's socket still thinks
        // (its network dropped without a close): let go of it now rather than at the liveness sweep.
        const held = this.#devices.get(sn);
        if (m.online) {
          if (held?.loggedIn && held.onlineSince <= m.time) held.peer.ws.close(CloseCode.Replaced, 'logged in through another node');
        } else if (held?.loggedIn) {
          // Another node took this one for dead (its beats were late) and marked a device offline that is
          // connected here: say it is online again instead of passing the mistake on.
          this.#reclaim(held);
          return;
        }
        this.#presenceToConsoles(sn, m.orgId, m.online, m.time);
      }),
      deps.bus.subscribe(Subject.deviceRevoked, (m) => {
        if (m.node !== deps.nodeId) this.#closeRevoked(m.sn);
      }),
      deps.bus.subscribe(Subject.deviceMoved, (m) => {
        if (m.node === deps.nodeId) return this.#moveEchoes.get(m.seq)?.();
        for (const sn of m.sns) this.#deviceMoved(sn, m.orgId);
      }),
      deps.bus.subscribe(Subject.approvalDecided, (m) => {
        if (m.node !== deps.nodeId) this.#approvalDecidedHere(m.accountId, m.event);
      }),
      // Cut off from the bus, this node may have been taken for dead and its devices marked offline by the
      // others, whose news it could not hear: once back, it says again that it holds them.
      deps.bus.onReconnect?.(() => this.#reclaimAll()) ?? (() => undefined),
      deps.bus.subscribe(Subject.flowToConsole(deps.nodeId), (m) => this.#flows.fromBusToConsole(m)),
      deps.bus.subscribe(Subject.nodeReplies(deps.nodeId), (m) => {
        // A reply counts only for the device its command was forwarded to (#routeRemote registers the sn).
        this.#remote.resolve({ msgId: m.msgId, cid: m.cid, result: m.result, data: m.data }, m.sn);
      }),
      // Live view across nodes: the node holding a device fans its stream out to watching nodes (stream-fanout.ts).
      this.streams.joinCluster({ bus: deps.bus, nodeId: deps.nodeId }),
    );
  }

  #endSession(tokenHash: string): void {
    this.#consoleRights.endSession(tokenHash);
  }

  /** Forwards a console's command to the node holding the device; false when this node is alone. */
  #routeRemote(req: Envelope, handlers: PendingHandlers): boolean {
    if (!this.#deps.bus.shared || !req.sn) return false;
    const cid = `${this.#deps.nodeId}.${randomId()}`;
    this.#remote.register(cid, req.msgId, this.#deps.commandTimeoutMs ?? 30_000, handlers, req.sn);
    this.#deps.bus.publish(Subject.deviceCommand(req.sn), { from: this.#deps.nodeId, cid, msgId: req.msgId, flowId: req.flowId, data: req.data });
    return true;
  }

  /** Runs a command another node forwarded for a device held here, and publishes its replies back. */
  #serveRemote(link: DeviceLink, m: ForwardedCommand): void {
    const reply = (result: ResultCode, data?: unknown) =>
      this.#deps.bus.publish(Subject.nodeReplies(m.from), { cid: m.cid, sn: link.sn, msgId: m.msgId, result, data });
    if (!link.loggedIn) return reply(Result.DeviceNotLoggedIn);
    const req: Envelope = { msgId: m.msgId, flowId: m.flowId, data: m.data };
    // Dangerous commands are spaced here, on the node holding the device, whichever node sent them.
    if (!this.#dangerous.allow(link.sn, req.msgId, req.data, this.#deps.clock.now())) return reply(Result.Fail, { message: Message.TooFrequent });
    // A flow opened from another node: the device's flow traffic goes back to that node's console.
    if (req.flowId !== undefined) this.#flows.bindRemote(req.flowId, link.sn, m.from);
    commandDevice(link, req, this.#deps.commandTimeoutMs ?? 30_000, {
      progress: (r) => reply(r.result ?? Result.Pushing, r.data),
      result: (r) => reply(r.result ?? Result.Fail, r.data),
      error: (err) => reply(err instanceof ConnectionLostError ? Result.DeviceOffline : Result.Fail),
    });
  }

  /**
   * Sends a command to a device wherever it is connected in the cluster and resolves with its final reply
   * (result 5 when it is offline, 4 before its login). Server-side callers (REST routes, campaigns) use
   * this; they have checked the caller's permission and organisation scope themselves.
   */
  command(sn: string, msgId: number, data: unknown, opts: CommandOptions = {}): Promise<Envelope> {
    const started = this.#deps.clock.now();
    /** The device's organisation, once known (from its link or its row), for the timeline. */
    let orgId: number | undefined;
    return new Promise<Envelope>((resolve) => {
      const req: Envelope = { msgId, sn, flowId: opts.flowId, data };
      const settle = (result: ResultCode, replyData?: unknown) => resolve({ msgId, sn, result, data: replyData });
      const handlers: PendingHandlers = {
        progress: (reply) => opts.progress?.(reply),
        result: (reply) => resolve({ ...reply, sn }),
        error: (err) => {
          if (err instanceof ConnectionLostError) settle(Result.DeviceOffline);
          else settle(Result.Fail, err instanceof RequestTimeoutError ? { message: 'Request Timeout' } : undefined);
        },
      };
      const timeoutMs = opts.timeoutMs ?? this.#deps.commandTimeoutMs ?? 30_000;
      const link = this.#devices.get(sn);
      if (link) {
        orgId = link.orgId;
        if (!link.loggedIn) return settle(Result.DeviceNotLoggedIn);
        // The same spacing of dangerous commands as console sockets get (REST, held commands): DECISIONS.
        if (!this.#dangerous.allow(sn, msgId, data, this.#deps.clock.now())) return settle(Result.Fail, { message: Message.TooFrequent });
        return commandDevice(link, req, timeoutMs, handlers);
      }
      this.#deps.devices.routeOf(sn).then(
        (route) => {
          orgId = route?.orgId;
          if (route?.online === true && this.#routeRemote(req, handlers)) return;
          settle(Result.DeviceOffline);
        },
        () => settle(Result.Fail),
      );
    }).then((reply) => {
      const result = reply.result ?? Result.Fail;
      const now = this.#deps.clock.now();
      this.metrics.commandOutcome(msgId, result, now - started);
      if (opts.flowId === undefined) {
        const by = opts.by ?? 'platform';
        this.#watchers.commandEnded(sn, msgId, result, by, now, undefined);
        const source = opts.source ?? 'rest';
        if (orgId !== undefined && timelineKeeps(source, result)) {
          this.timeline.record({ orgId, sn, account: by, source, msgId, data, result, reply: reply.data, at: started, durationMs: now - started });
        }
      }
      return reply;
    });
  }

  /**
   * Revokes a device's secret: it is disconnected at once (4001, wherever in the cluster it is) and may
   * come back only by enrolling again with its organisation's key. The caller checks permission and scope.
   */
  async revokeDevice(sn: string): Promise<void> {
    if (!(await this.#deps.devices.setSecret(sn, ''))) return;
    this.#closeRevoked(sn);
    if (this.#deps.bus.shared) this.#deps.bus.publish(Subject.deviceRevoked, { node: this.#deps.nodeId, sn });
  }

  #reclaim(link: DeviceLink): void {
    this.#holders.reclaim(link.sn, this.#deps.nodeId).then(
      () => {
        if (this.#devices.get(link.sn) === link) this.#announcePresence(link.sn, link.orgId, true, this.#deps.clock.now());
      },
      (err: unknown) => this.#deps.log.warn({ err, sn: link.sn }, 'reclaiming a device failed'),
    );
  }

  #reclaimAll(): void {
    const links = [...this.#devices.values()].filter((l) => l.loggedIn);
    if (links.length === 0) return;
    this.#holders.reclaimMany(links.map((l) => l.sn), this.#deps.nodeId).then(
      () => {
        const now = this.#deps.clock.now();
        for (const link of links) {
          if (this.#devices.get(link.sn) === link) this.#announcePresence(link.sn, link.orgId, true, now);
        }
        this.#deps.log.info({ devices: links.length }, 'devices reclaimed after the bus came back');
      },
      (err: unknown) => this.#deps.log.warn({ err }, 'reclaiming devices after the bus came back failed'),
    );
  }

  #closeRevoked(sn: string): void {
    this.#devices.get(sn)?.peer.ws.close(CloseCode.Unauthorized, 'device secret revoked');
    // A socket admitted with the old secret would otherwise take the device over at its login.
    this.#pendingDevices.get(sn)?.peer.ws.close(CloseCode.Unauthorized, 'device secret revoked');
  }

  /** Devices marked offline for a dead node: consoles everywhere hear it, as if the node had said so. */
  #announceReleased(released: readonly ReleasedDevice[], time: number): void {
    for (const d of released) {
      this.streams.deviceGone(d.sn);
      this.#announcePresence(d.sn, d.orgId, false, time);
    }
  }

  /** Lets an area handle one device-to-platform command id (status, telemetry, push progress). One handler per id. */
  onDeviceMessage(msgId: number, handler: DeviceMessageHandler): void {
    if (this.#messageHandlers.has(msgId)) throw new Error(`device message ${msgId} already has a handler`);
    this.#messageHandlers.set(msgId, handler);
  }

  /**
   * Closes every console socket on this node with 1001 (going away); consoles reconnect, to this node or,
   * behind a balancer, another one. For draining a node before maintenance.
   */
  reconnectConsoles(): void {
    for (const link of this.#consoles) link.peer.ws.close(CloseCode.GoingAway, 'reconnect');
  }

  /** Hears every device that logs in on this node (held commands are delivered then). */
  onDeviceOnline(listener: (sn: string) => void): void {
    this.#onlineListeners.push(listener);
  }

  /** Devices connected to this node. */
  get deviceCount(): number {
    return this.#devices.size;
  }

  /** The cluster bus, for areas that publish their own subjects (push progress to other nodes' consoles). */
  get bus(): Bus {
    return this.#deps.bus;
  }

  /**
   * Devices whose rows were just moved to organisation `orgId`, in every process of the cluster: the one
   * holding a device closes its socket (the device reconnects and is admitted under its new organisation),
   * and consoles whose scope does not reach `orgId` let go of their watches, flows and live views of it.
   * Resolves once this process's listeners are done and the bus has carried the move back to this process
   * (so, in order, to every other one too), as rights changes do: the caller's answer goes out after that.
   */
  async moveDevices(sns: readonly string[], orgId: number): Promise<void> {
    if (sns.length === 0) return;
    for (const sn of sns) this.#deviceMoved(sn, orgId);
    const bus = this.#deps.bus;
    const echoed = !bus.shared
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const seq = ++this.#moveSeq;
          const done = () => {
            clearTimeout(timer);
            this.#moveEchoes.delete(seq);
            resolve();
          };
          // Real time, not the injected clock: this waits for a socket. Past it the move is answered regardless.
          const timer = setTimeout(done, 1_000);
          timer.unref();
          this.#moveEchoes.set(seq, done);
          bus.publish(Subject.deviceMoved, { node: this.#deps.nodeId, seq, sns: [...sns], orgId });
        });
    const listened = this.#movedListeners.map((listener) =>
      listener(sns, orgId).catch((err: unknown) => this.#deps.log.warn({ err, orgId }, 'a device move listener failed')),
    );
    await Promise.all([echoed, ...listened]);
  }

  /** Hears the devices this process moves (not other processes' moves: each move is told here once). */
  onDevicesMoved(listener: (sns: readonly string[], orgId: number) => Promise<void>): void {
    this.#movedListeners.push(listener);
  }

  #deviceMoved(sn: string, orgId: number): void {
    const link = this.#devices.get(sn);
    if (link) {
      // Its streams end now (their viewers are told), not at the end of the close handshake. A closing
      // socket takes no more commands (Peer.send refuses): the old organisation's consoles get result 5.
      this.streams.deviceGone(sn);
      link.peer.ws.close(CloseCode.GoingAway, 'moved to another organisation');
    }
    // A socket admitted into the old organisation would otherwise take the device over at its login.
    this.#pendingDevices.get(sn)?.peer.ws.close(CloseCode.GoingAway, 'moved to another organisation');
    const outside = (console: ConsoleLink) => !console.caller.scope.has(orgId);
    this.#watchers.deviceMoved(sn, outside);
    this.#flows.deviceMoved(sn, outside);
  }

  /** Takes over WebSocket upgrades of `server` for the two socket paths. */
  attach(server: Server): void {
    this.#liveness.start();
    this.#membership?.start();
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Node's HTTP server takes its error listener off an upgraded socket, and ws adds its own only in
      // handleUpgrade, after the admission and the session or device read: a peer resetting meanwhile (a
      // device turned away with 503 that closes hard, say) was an unheard 'error' that ended the worker.
      socket.on('error', destroyOnError);
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === CONSOLE_SOCKET_PATH) this.#upgradeConsole(req, socket, head, url);
      else if (url.pathname === DEVICE_SOCKET_PATH) this.#upgradeDevice(req, socket, head, url);
      else socket.destroy();
    });
  }

  /**
   * Shuts the gateway down gracefully: no new sockets; commands in flight get up to `drainMs` to finish;
   * then every socket is closed (1001, so clients reconnect, perhaps to another node), the devices held
   * here are recorded offline, and the other nodes are told this node left on purpose.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#liveness.stop();
    // Upgrades waiting for their turn are closed now, not answered a return minutes away.
    this.#admissionGate.close();
    // Real time, not the injected clock: this waits for sockets, and a test's fake clock may stand still.
    const drainUntil = performance.now() + (this.#deps.drainMs ?? 5_000);
    while ((this.#deviceCommands.size > 0 || this.#remote.size > 0) && performance.now() < drainUntil) {
      await new Promise((r) => setTimeout(r, 20));
    }
    this.#remote.failAll(new ConnectionLostError());
    this.#deviceCommands.failAll(new ConnectionLostError());
    const closed = [...this.#wss.clients].map((ws) => new Promise<void>((r) => {
      if (ws.readyState === ws.CLOSED) return r();
      ws.once('close', () => r());
      ws.close(CloseCode.GoingAway, 'server shutting down');
    }));
    // A peer that does not answer the close handshake within a second is cut off.
    const cutoff = setTimeout(() => {
      for (const ws of this.#wss.clients) ws.terminate();
    }, 1_000);
    await Promise.all(closed);
    clearTimeout(cutoff);
    await Promise.all(this.#offlineWrites);
    await this.#membership?.stop();
    for (const unsubscribe of [...this.#busSubs, ...this.#deviceSubs.values()]) unsubscribe();
    this.rights.close();
    this.#consoleRights.close();
    this.#wss.close();
    await this.recordings?.close();
    await this.timeline.close();
  }

  // A refused socket is still upgraded and then closed with an application code, because a browser
  // cannot read an HTTP status from a failed upgrade and would otherwise retry for ever.
  #refuse(req: IncomingMessage, socket: Duplex, head: Buffer, reason: string): void {
    this.#accept(req, socket, head, (ws) => ws.close(CloseCode.Unauthorized, reason));
  }

  #accept(req: IncomingMessage, socket: Duplex, head: Buffer, then: (ws: WebSocket) => void): void {
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      // The WebSocket hears its socket's errors from here on.
      socket.off('error', destroyOnError);
      then(ws);
    });
  }

  #upgradeConsole(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    if (this.#closing) return void socket.destroy();
    // An API client may send its token as `Authorization: Bearer` instead (issue 23).
    const bearer = bearerToken(req.headers.authorization);
    const token = url.searchParams.get('token') || bearer || '';
    // accountId and orgId are the login answer's data.id and data.org.id (CONN-1): both must be the
    // session's, or the socket is refused like a bad token. A bearer socket may leave them out.
    const bare = !url.searchParams.get('token') && bearer !== undefined;
    const accountParam = url.searchParams.get('accountId');
    const orgParam = url.searchParams.get('orgId');
    const accountId = Number(accountParam);
    const orgId = Number(orgParam);
    (async () => {
      const session = token ? await this.#deps.sessions.resolve(token) : undefined;
      const accountOk = session && (session.accountId === accountId || (bare && accountParam === null));
      const rights = session && accountOk ? await this.#consoleRights.open(session) : undefined;
      if (rights && rights.caller.orgId !== orgId && !(bare && orgParam === null)) {
        this.#consoleRights.release(rights);
        return this.#refuse(req, socket, head, 'orgId is not the account\'s organisation');
      }
      if (!rights) return this.#refuse(req, socket, head, 'token invalid');
      this.#accept(req, socket, head, (ws) => {
        serveConsole(ws, rights, {
          devices: this.#deps.devices,
          links: this.#devices,
          consoles: this.#consoles,
          commandTimeoutMs: this.#deps.commandTimeoutMs ?? 30_000,
          routeRemote: (req, handlers) => this.#routeRemote(req, handlers),
          log: this.#deps.log,
          flows: this.#flows,
          streams: this.streams,
          onOutcome: (msgId, result, ms) => this.metrics.commandOutcome(msgId, result, ms),
          onCommandEnded: (sn, orgId, msgId, result, by) => emitWebhook(this.#deps.db, orgId, 'command.result', { sn, msgId, result, by }),
          watchers: this.#watchers,
          timeline: this.timeline,
          recordings: this.recordings,
          now: () => this.#deps.clock.now(),
          rights: this.#consoleRights,
          dangerous: this.#dangerous,
          approvals: this.approvals,
          // The upgraded socket is the one under `ws` (handleUpgrade keeps it).
          socket,
        });
      });
    })().catch((err: unknown) => {
      this.#deps.log.warn({ err }, 'console upgrade failed');
      socket.destroy();
    });
  }

  #upgradeDevice(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    if (this.#closing) return void socket.destroy();
    const sn = url.searchParams.get('sn') ?? '';
    const secret = url.searchParams.get('secret');
    const enroll = url.searchParams.get('enroll');
    const creds: DeviceCredentials | undefined = secret ? { sn, secret } : enroll ? { sn, enroll } : undefined;
    (async () => {
      // The slot is given back at the login's answer (serveDevice), at a refusal, or when the socket closes.
      const slot = await this.#admissionGate.admit(req, socket);
      if (!slot) return;
      // A shutdown that began while the upgrade waited for its turn.
      if (this.#closing) {
        slot.release();
        return void socket.destroy();
      }
      const admission = creds ? await admitDevice(this.#deps.db, this.#deps.devices, creds) : { ok: false as const, reason: 'no credentials' };
      if (!admission.ok) {
        slot.release();
        return this.#refuse(req, socket, head, admission.reason);
      }
      this.#accept(req, socket, head, (ws) => serveDevice(ws, admission, this.#deviceEndpoint(), slot));
    })().catch((err: unknown) => {
      // Destroying the socket gives its slot back.
      this.#deps.log.warn({ err }, 'device upgrade failed');
      socket.destroy();
    });
  }

  /**
   * What every device socket's handlers need, built once for the node: built per socket inside the upgrade,
   * its closures kept that upgrade's context alive for the socket's life (the IncomingMessage with its
   * headers, the URL, the credentials: about 3 KB per held device, seen in a heap snapshot).
   */
  #deviceEndpoint(): DeviceEndpointDeps {
    return (this.#deviceDeps ??= {
      devices: this.#deps.devices,
      clock: this.#deps.clock,
      links: this.#devices,
      pending: this.#pendingDevices,
      onPresence: (link, online, announce) => this.#broadcastPresence(link, online, announce),
      nodeId: this.#deps.nodeId,
      track: (write) => {
        this.#offlineWrites.add(write);
        void write.finally(() => this.#offlineWrites.delete(write));
      },
      messageHandlers: this.#messageHandlers,
      log: this.#deps.log,
      flows: this.#flows,
      streams: this.streams,
      commands: this.#deviceCommands,
    });
  }

  #broadcastPresence(link: DeviceLink, online: boolean, announce: boolean): void {
    if (!online) this.streams.deviceGone(link.sn);
    if (online) {
      this.metrics.deviceLogin(link.enrolled);
      for (const listener of this.#onlineListeners) listener(link.sn);
    }
    const time = this.#deps.clock.now();
    const bus = this.#deps.bus;
    if (bus.shared) {
      this.#deviceSubs.get(link.sn)?.();
      this.#deviceSubs.delete(link.sn);
      if (online) {
        const commands = bus.subscribe(Subject.deviceCommand(link.sn), (m) => this.#serveRemote(link, m));
        const flows = bus.subscribe(Subject.flowToDevice(link.sn), (m) => this.#flows.fromBusToDevice(link.sn, m));
        this.#deviceSubs.set(link.sn, () => {
          commands();
          flows();
        });
      }
    }
    if (announce) this.#announcePresence(link.sn, link.orgId, online, time);
  }

  /** Tells the other nodes (in a cluster) and this node's consoles that a device came or went. */
  #announcePresence(sn: string, orgId: number, online: boolean, time: number): void {
    for (const listener of this.#presenceListeners) listener(sn, orgId, online, time);
    if (this.#deps.bus.shared) this.#deps.bus.publish(Subject.presence, { node: this.#deps.nodeId, sn, orgId, online, time });
    this.#presenceToConsoles(sn, orgId, online, time);
  }

  /**
   * Hears every device coming or going, once in the cluster: on the process that saw it (or that declared
   * a dead node's devices offline). Webhooks listen here (server/webhooks).
   */
  onPresence(listener: (sn: string, orgId: number, online: boolean, time: number) => void): void {
    this.#presenceListeners.push(listener);
  }

  /** Sends an event to every console on this node whose scope holds `orgId`. */
  toConsoles(orgId: number, env: Envelope): void {
    for (const console of this.#consoles) {
      if (console.caller.scope.has(orgId)) console.peer.send(env);
    }
  }

  /** Tells every console of the requester `accountId`, on this node and (in a cluster) the others, that its four-eyes request was decided. */
  approvalDecided(accountId: number, event: ApprovalDecidedEvent): void {
    this.#approvalDecidedHere(accountId, event);
    if (this.#deps.bus.shared) this.#deps.bus.publish(Subject.approvalDecided, { node: this.#deps.nodeId, accountId, event });
  }

  #approvalDecidedHere(accountId: number, event: ApprovalDecidedEvent): void {
    const env: Envelope = { msgId: Command.ApprovalDecided, data: event };
    for (const console of this.#consoles) {
      if (console.caller.accountId === accountId) console.peer.send(env);
    }
  }

  #presenceToConsoles(sn: string, orgId: number, online: boolean, time: number): void {
    const env = { msgId: Command.DevicePresence, sn, data: { onlineState: online ? OnlineState.Online : OnlineState.Offline, time } };
    for (const console of this.#consoles) {
      if (console.caller.scope.has(orgId)) console.peer.send(env, true);
    }
  }
}
