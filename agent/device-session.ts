import { BehaviorSubject, filter, firstValueFrom, type Observable, type Subscription } from 'rxjs';
import {
  type Clock,
  Command,
  type ConnectionState,
  type ConnectionTuning,
  decodeRequest,
  type Envelope,
  type FailureReply,
  isRecord,
  MALFORMED_REQUEST,
  ProtocolEngine,
  Result,
  type RequestOf,
  type ResultCode,
  type SubprotocolName,
  SUPPORT_FLAGS,
  type SupportFlag,
  type SystemInfoReply,
  type TransportFactory,
} from '../protocol/index.ts';

/**
 * The device entity's optional fields (devices-and-commerce section 3) a device may add to its login data;
 * the platform stores them in the columns the device list filters and sorts on (server/devices/details.ts).
 * Times are epoch ms, uptime seconds, storage bytes, battery a percent.
 */
export interface DeviceEntityFields {
  readonly mcuVersion?: string;
  readonly installDate?: number;
  readonly uptime?: number;
  readonly location?: string;
  readonly imei?: string;
  readonly basebandVersion?: string;
  readonly bluetoothMac?: string;
  readonly wlanMac?: string;
  readonly battery?: number;
  readonly manufacturer?: string;
  readonly gnssModel?: string;
  readonly lteModel?: string;
  readonly hardwareId?: string;
  readonly terminalVersion?: string;
  readonly storageTotal?: number;
  readonly storageFree?: number;
  readonly supportFlags?: readonly SupportFlag[];
}

/**
 * The entity fields a system info answer (65613) holds, for the login data: what the system-info tab
 * shows is then what the device list filters on. Empty texts (no Bluetooth adapter, say) are left out.
 */
export function entityFieldsOf(system: SystemInfoReply): DeviceEntityFields {
  const text = (v: string | undefined) => (v ? v : undefined);
  const fields: Record<string, unknown> = {
    manufacturer: text(system.manufacturer),
    imei: text(system.imei),
    basebandVersion: text(system.basebandVersion),
    wlanMac: text(system.wlanMac),
    bluetoothMac: text(system.bluetoothMac),
    uptime: system.uptime,
    storageTotal: system.storage.total,
    storageFree: system.storage.free,
    supportFlags: SUPPORT_FLAGS.filter((f) => system.support[f]),
  };
  // No undefined values on the wire: a strict msgpack reader refuses them.
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as DeviceEntityFields;
}

/** What a device reports at login (command 1). */
export interface DeviceInfo extends DeviceEntityFields {
  readonly model: string;
  readonly systemType: 'android' | 'linux';
  readonly systemVersion: string;
  readonly imageVersion: string;
  readonly networkType: number;
}

/** Result codes that refuse a request: every such reply carries `data.message` (PROTOCOL.md, result codes). */
export type RefusalCode = typeof Result.Fail | typeof Result.MessageError;

/**
 * How a command handler answers: a result code and optional data. A refusal (1 or 2) must say why in
 * `data.message`, so the type asks for it: a handler cannot compile that refuses without a reason.
 */
export type CommandOutcome =
  | { readonly result: RefusalCode; readonly data: FailureReply & Readonly<Record<string, unknown>> }
  | { readonly result: Exclude<ResultCode, RefusalCode>; readonly data?: unknown };

/** The reason sent when a refusal arrives without one (a handler outside the types, an error with no text). */
export const NO_REASON = 'The device could not do this';

/** A refusal's data with a non-empty `message`, adding one where it is missing or empty. */
export function withReason(data: unknown): FailureReply & Readonly<Record<string, unknown>> {
  const d = isRecord(data) ? data : {};
  const message = d.message;
  return typeof message === 'string' && message !== '' ? { ...d, message } : { ...d, message: NO_REASON };
}

/** Handles one platform-to-device command. `afterReply` runs once the reply is on the wire (reboot uses it). */
export type CommandHandler = (request: Envelope, session: DeviceSession) => Promise<CommandOutcome & { afterReply?: () => void }>;

/** Handles command `K` with its request's data as the command map decodes it (WIRE-2). */
export type TypedHandler<K extends number> = (data: RequestOf<K>, request: Envelope, session: DeviceSession) => Promise<CommandOutcome & { afterReply?: () => void }>;

/**
 * The handler of `msgId` for a session's map: the request's data is decoded once, here at the device's
 * edge, and a request whose data the map refuses is answered with result 2 (WIRE-3) without the handler.
 */
export function typed<K extends number>(msgId: K, handler: TypedHandler<K>): [K, CommandHandler] {
  return [
    msgId,
    (request, session) => {
      const read = decodeRequest(msgId, request.data);
      return read === undefined ? Promise.resolve({ result: Result.MessageError, data: { message: MALFORMED_REQUEST } }) : handler(read.data, request, session);
    },
  ];
}

export interface DeviceSessionOptions {
  /** Device socket URL without query, e.g. ws://127.0.0.1:8080/device/websocket. */
  readonly gatewayUrl: string;
  readonly sn: string;
  /** Secret issued at enrolment; when absent the device enrols with `enrollKey`. */
  readonly secret?: string | undefined;
  readonly enrollKey?: string | undefined;
  readonly info: () => DeviceInfo;
  readonly handlers: ReadonlyMap<number, CommandHandler>;
  readonly transport: TransportFactory;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly tuning?: Partial<ConnectionTuning>;
  readonly subprotocols?: readonly SubprotocolName[];
  /** Called when the gateway issues a secret at enrolment, so the caller can keep it. */
  readonly onSecret?: (secret: string) => void;
  readonly onLoginFailed?: (reason: string) => void;
}

/**
 * One device's side of the protocol: connects, logs in (enrolling on first contact), answers heartbeats
 * through the engine, and dispatches commands to handlers. Used by the agent and by each simulated device.
 */
export class DeviceSession {
  readonly sn: string;
  readonly engine: ProtocolEngine;
  readonly #opts: DeviceSessionOptions;
  #secret: string | undefined;
  readonly #loggedIn$ = new BehaviorSubject(false);
  readonly #subs: Subscription[] = [];

  constructor(opts: DeviceSessionOptions) {
    this.#opts = opts;
    this.sn = opts.sn;
    this.#secret = opts.secret;
    this.engine = new ProtocolEngine({
      url: () => this.#url(),
      transport: opts.transport,
      clock: opts.clock,
      random: opts.random,
      tuning: opts.tuning,
      subprotocols: opts.subprotocols,
      idPrefix: 'd',
    });
  }

  get loggedIn(): boolean {
    return this.#loggedIn$.value;
  }

  /** Whether the gateway has accepted this device's login, replaying the current value. */
  get loggedIn$(): Observable<boolean> {
    return this.#loggedIn$.asObservable();
  }

  get secret(): string | undefined {
    return this.#secret;
  }

  start(): void {
    if (this.#subs.length === 0) {
      this.#subs.push(
        this.engine.connection$.subscribe((state) => this.#onState(state)),
        this.engine.messages$.subscribe((env) => void this.#dispatch(env)),
      );
    }
    this.engine.start();
  }

  /** Disconnects; `start()` connects again. */
  stop(): void {
    this.engine.stop();
  }

  /** Stops for good and releases subscriptions. */
  dispose(): void {
    this.engine.stop();
    for (const sub of this.#subs.splice(0)) sub.unsubscribe();
  }

  /** Resolves once the device is logged in. */
  async waitLoggedIn(): Promise<void> {
    await firstValueFrom(this.#loggedIn$.pipe(filter(Boolean)));
  }

  #url(): string {
    const q = new URLSearchParams({ sn: this.sn });
    if (this.#secret) q.set('secret', this.#secret);
    else if (this.#opts.enrollKey) q.set('enroll', this.#opts.enrollKey);
    return `${this.#opts.gatewayUrl}?${q.toString()}`;
  }

  #onState(state: ConnectionState): void {
    if (state.status !== 'open') {
      if (this.#loggedIn$.value) this.#loggedIn$.next(false);
      if (state.status === 'stopped' && state.reason === 'rejected') this.#opts.onLoginFailed?.(`rejected (${state.closeCode ?? ''})`);
      return;
    }
    this.engine.request(Command.DeviceLogin, { data: { ...this.#opts.info() } }).subscribe({
      next: (event) => {
        if (event.kind !== 'result') return;
        if (event.reply.result !== Result.Success) {
          this.#opts.onLoginFailed?.(`login result ${event.reply.result ?? ''}`);
          return;
        }
        const secret = event.reply.data.secret;
        if (secret !== undefined) {
          this.#secret = secret;
          this.#opts.onSecret?.(secret);
        }
        this.#loggedIn$.next(true);
      },
      error: () => undefined, // the connection dropped; the next open logs in again
    });
  }

  /** Sends a progress reply (result 6) to a request still being handled; it also restarts the gateway's timeout. */
  progress(request: Envelope, data?: unknown): void {
    this.#safeReply(request, Result.Pushing, data);
  }

  /** Sends a message on a flow (shell output, say) without expecting a reply; false when disconnected. */
  sendOnFlow(flowId: string, msgId: number, data?: unknown): boolean {
    try {
      this.engine.send({ msgId, flowId, data });
      return true;
    } catch {
      return false;
    }
  }

  async #dispatch(env: Envelope): Promise<void> {
    // Transfer control messages belong to the transfer code subscribed to the flow, not to a handler.
    if (env.msgId === Command.TransferBegin || env.msgId === Command.ChunkAck) return;
    const handler = this.#opts.handlers.get(env.msgId);
    if (!handler) {
      this.#safeReply(env, Result.UnknownMessageId);
      return;
    }
    try {
      const outcome = await handler(env, this);
      this.#safeReply(env, outcome.result, outcome.data);
      outcome.afterReply?.();
    } catch (err) {
      this.#safeReply(env, Result.Fail, { message: err instanceof Error ? err.message : String(err) });
    }
  }

  #safeReply(request: Envelope, result: ResultCode, data?: unknown): void {
    try {
      // The last word on "every refusal says why": whatever a handler returned, 1 and 2 go out with a message.
      this.engine.reply(request, result, result === Result.Fail || result === Result.MessageError ? withReason(data) : data);
    } catch {
      // Disconnected while handling: the gateway has already answered the console with result 5.
    }
  }
}
