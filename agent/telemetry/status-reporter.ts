import type { Observable, Subscription } from 'rxjs';
import {
  type Clock,
  Command,
  decodeReply,
  type Envelope,
  type LocationUpload,
  MAX_PROCESS_NAME,
  Result,
  type RuntimeInfo,
  type RuntimeInfoReply,
  type StatusUpload,
  type TimerHandle,
} from '../../protocol/index.ts';
import type { CommandHandler } from '../device-session.ts';

/** The part of a DeviceSession the reporter uses: login state and fire-and-forget sends. */
export interface TelemetryPort {
  readonly loggedIn$: Observable<boolean>;
  readonly engine: { send(env: Envelope): void };
}

export interface StatusReportOptions {
  /** Period of status uploads; the first goes right after each login (as the simulator's). */
  readonly everyMs: number;
  /** Takes one status reading of the device. */
  readonly read: () => Promise<StatusUpload>;
  /** Sent once after each login, before the first status; absent: the device sends no location. */
  readonly location?: LocationUpload | undefined;
  readonly log?: (line: string) => void;
}

/** Sends one message without a reply; a dropped connection only loses this one (the next login reports again). */
function sendQuietly(port: TelemetryPort, msgId: number, data: unknown): void {
  try {
    port.engine.send({ msgId, data });
  } catch {
    // disconnected between the reading and the send
  }
}

/**
 * Makes a device report its real state while logged in: its configured location and a status upload
 * at each login, then a status every `everyMs` on the injected clock. A reading that fails is logged and
 * skipped, and the next is still scheduled. Returns a function that stops the reporting.
 */
export function reportStatus(port: TelemetryPort, clock: Clock, opts: StatusReportOptions): () => void {
  let timer: TimerHandle | undefined;
  // Each login starts a new round; a reading still under way from an earlier one is dropped when it ends.
  let round = 0;
  const stopTimer = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
  const tick = async (mine: number): Promise<void> => {
    try {
      const status = await opts.read();
      if (mine !== round) return;
      sendQuietly(port, Command.StatusUpload, status);
    } catch (err) {
      opts.log?.(`status reading failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (mine === round) timer = clock.setTimeout(() => void tick(mine), opts.everyMs);
  };
  const sub: Subscription = port.loggedIn$.subscribe((loggedIn) => {
    stopTimer();
    const mine = ++round;
    if (!loggedIn) return;
    if (opts.location) sendQuietly(port, Command.LocationUpload, opts.location);
    void tick(mine);
  });
  return () => {
    sub.unsubscribe();
    round++;
    stopTimer();
  };
}

/** How many processes a runtime upload carries: the platform keeps only the load figures, a person reads the top. */
export const RUNTIME_UPLOAD_PROCESSES = 20;

const percent = (v: number) => (Number.isFinite(v) ? Math.min(100, Math.max(0, v)) : 0);

/**
 * The runtime info upload (command 4) for a runtime sample the device took when asked (65614). A
 * sample's process CPU is a share of one core (0-100 x cores); the upload's is a share of the whole
 * device (0-100, PROTOCOL.md Telemetry), so it is divided by the device's `cores`.
 */
export function runtimeUploadOf(sample: RuntimeInfoReply, cores: number, maxProcesses = RUNTIME_UPLOAD_PROCESSES): RuntimeInfo {
  const memTotal = Math.max(0, sample.memory.total);
  const perCore = Math.max(1, Math.floor(cores) || 1);
  return {
    cpu: percent(sample.cpu),
    memUsed: Math.min(memTotal, Math.max(0, memTotal - sample.memory.free)),
    memTotal,
    processes: sample.processes
      .slice(0, maxProcesses)
      .map((p) => ({ pid: p.pid, name: p.name.slice(0, MAX_PROCESS_NAME) || String(p.pid), state: p.state, cpu: Math.round(percent(p.cpu / perCore) * 10) / 10, memUsed: Math.max(0, p.rss) })),
  };
}

/**
 * Wraps the runtime query handler (65614) so that every sample a console asks for also goes to the
 * platform as a runtime info upload (command 4), once the reply is on the wire: the platform stores it
 * as a status sample, so what a person looked at is in the device's history too.
 */
export function withRuntimeUpload(handler: CommandHandler, cores: number): CommandHandler {
  return async (req, session) => {
    const outcome = await handler(req, session);
    // The handler's own answer, read as a console would read it: only a sample the map accepts is uploaded.
    const sample = outcome.result === Result.Success ? decodeReply(Command.RuntimeQuery, outcome.data)?.data : undefined;
    if (sample === undefined) return outcome;
    return {
      ...outcome,
      afterReply: () => {
        outcome.afterReply?.();
        sendQuietly(session, Command.RuntimeInfo, runtimeUploadOf(sample, cores));
      },
    };
  };
}
