import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CloseCode, Command, type Clock, OnlineState, MAX_FRAME_BYTES, Subprotocol } from '../../protocol/index.ts';
import { loadCaller } from '../accounts/caller.ts';
import type { SessionStore } from '../auth/sessions.ts';
import type { Db } from '../db/database.ts';
import type { DeviceRepository } from '../devices/repository.ts';
import { type ConsoleLink, serveConsole } from './console-endpoint.ts';
import { admitDevice, type DeviceCredentials, type DeviceLink, serveDevice } from './device-endpoint.ts';
import { DEVICE_SILENCE_MS, LivenessSweep } from './liveness.ts';

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
  /** Silence after which a device socket is closed (default: heartbeat + two checks). */
  readonly deviceSilenceMs?: number;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** The WebSocket gateway: device and console sockets on the HTTP server, and routing between them. */
export class Gateway {
  readonly #deps: GatewayDeps;
  readonly #wss: WebSocketServer;
  readonly #devices = new Map<string, DeviceLink>();
  readonly #consoles = new Set<ConsoleLink>();
  readonly #liveness: LivenessSweep;

  constructor(deps: GatewayDeps) {
    this.#deps = deps;
    this.#liveness = new LivenessSweep(this.#devices, deps.clock, deps.deviceSilenceMs ?? DEVICE_SILENCE_MS);
    this.#wss = new WebSocketServer({
      noServer: true,
      maxPayload: MAX_FRAME_BYTES,
      // Prefer msgpack when the peer offers it; JSON is the spec's default.
      handleProtocols: (offered) => (offered.has(Subprotocol.Msgpack) ? Subprotocol.Msgpack : offered.has(Subprotocol.Json) ? Subprotocol.Json : false),
    });
    deps.sessions.events.on('ended', ({ tokenHash }) => {
      for (const link of this.#consoles) {
        if (link.caller.session.tokenHash === tokenHash) link.peer.ws.close(CloseCode.SessionEnded, 'session ended');
      }
    });
  }

  /** Devices connected to this node. */
  get deviceCount(): number {
    return this.#devices.size;
  }

  get consoleCount(): number {
    return this.#consoles.size;
  }

  /** Takes over WebSocket upgrades of `server` for the two socket paths. */
  attach(server: Server): void {
    this.#liveness.start();
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (url.pathname === CONSOLE_SOCKET_PATH) this.#upgradeConsole(req, socket, head, url);
      else if (url.pathname === DEVICE_SOCKET_PATH) this.#upgradeDevice(req, socket, head, url);
      else socket.destroy();
    });
  }

  /** Closes every socket (server shutdown). */
  close(): void {
    this.#liveness.stop();
    for (const ws of this.#wss.clients) ws.close(CloseCode.GoingAway, 'server shutting down');
    this.#wss.close();
  }

  // A refused socket is still upgraded and then closed with an application code, because a browser
  // cannot read an HTTP status from a failed upgrade and would otherwise retry for ever.
  #refuse(req: IncomingMessage, socket: Duplex, head: Buffer, reason: string): void {
    this.#wss.handleUpgrade(req, socket, head, (ws) => ws.close(CloseCode.Unauthorized, reason));
  }

  #accept(req: IncomingMessage, socket: Duplex, head: Buffer, then: (ws: WebSocket) => void): void {
    this.#wss.handleUpgrade(req, socket, head, then);
  }

  #upgradeConsole(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    const token = url.searchParams.get('token') ?? '';
    const accountId = Number(url.searchParams.get('accountId'));
    (async () => {
      const session = token ? await this.#deps.sessions.resolve(token) : undefined;
      const caller = session && session.accountId === accountId ? await loadCaller(this.#deps.db, session) : undefined;
      if (!caller) return this.#refuse(req, socket, head, 'token invalid');
      this.#accept(req, socket, head, (ws) => {
        serveConsole(ws, caller, {
          devices: this.#deps.devices,
          links: this.#devices,
          consoles: this.#consoles,
          commandTimeoutMs: this.#deps.commandTimeoutMs ?? 30_000,
          log: this.#deps.log,
        });
      });
    })().catch((err: unknown) => {
      this.#deps.log.warn({ err }, 'console upgrade failed');
      socket.destroy();
    });
  }

  #upgradeDevice(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    const sn = url.searchParams.get('sn') ?? '';
    const secret = url.searchParams.get('secret');
    const enroll = url.searchParams.get('enroll');
    const creds: DeviceCredentials | undefined = secret ? { sn, secret } : enroll ? { sn, enroll } : undefined;
    (async () => {
      const admission = creds ? await admitDevice(this.#deps.db, this.#deps.devices, creds) : { ok: false as const, reason: 'no credentials' };
      if (!admission.ok) return this.#refuse(req, socket, head, admission.reason);
      this.#accept(req, socket, head, (ws) => {
        serveDevice(ws, admission, {
          devices: this.#deps.devices,
          clock: this.#deps.clock,
          links: this.#devices,
          onPresence: (link, online) => this.#broadcastPresence(link, online),
          log: this.#deps.log,
        });
      });
    })().catch((err: unknown) => {
      this.#deps.log.warn({ err }, 'device upgrade failed');
      socket.destroy();
    });
  }

  #broadcastPresence(link: DeviceLink, online: boolean): void {
    const env = {
      msgId: Command.DevicePresence,
      sn: link.sn,
      data: { onlineState: online ? OnlineState.Online : OnlineState.Offline, time: this.#deps.clock.now() },
    };
    for (const console of this.#consoles) {
      if (console.caller.scope.has(link.orgId)) console.peer.send(env, true);
    }
  }
}
