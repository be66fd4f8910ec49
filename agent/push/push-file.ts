import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type Clock, Command, decodePushFile, DownloadState, InstallResult, type PushFileRequest, Result } from '../../protocol/index.ts';
import type { CommandHandler, DeviceSession } from '../device-session.ts';

/** One progress report, sent as PushProgress (5). */
export interface PushReport {
  readonly downloadState: number;
  readonly progress: number;
  readonly installResult?: number;
  readonly message?: string;
}

/** Does one push: downloads, verifies, installs, reporting as it goes. Resolves when finished either way. */
export type PushJob = (req: PushFileRequest, report: (r: PushReport) => void, session: DeviceSession) => Promise<void>;

/** A report after which the push does not change any more (the device stops reporting on it). */
function isFinal(r: PushReport): boolean {
  return r.downloadState === DownloadState.Failed || r.downloadState === DownloadState.UpgradeFailed || r.downloadState === DownloadState.UpgradeSuccess || r.installResult === InstallResult.Finished || r.installResult === InstallResult.Failure;
}

/** Sends a report; calls `settled(true)` once the platform has stored it, `settled(false)` when it did not answer so. */
export function sendPushReport(session: DeviceSession, campaignId: number, r: PushReport, settled: (stored: boolean) => void = () => {}): void {
  session.engine.call(Command.PushProgress, { data: { campaignId, ...r }, timeoutMs: 60_000 }, { progress: () => {}, result: (reply) => settled(reply.result === Result.Success), error: () => settled(false) });
}

/**
 * The PushFile handler: accepts at once (result 0), then runs the job after the reply. A push the device
 * already has under way or finished is accepted again without a second download, and its last report is
 * sent again, so the platform's resend after a restart or a lost report is harmless.
 *
 * At most one progress report per push is in flight: a newer one made while a report awaits the platform's
 * answer replaces any report still waiting, and goes when that answer comes. Progress is a state, not a
 * log, so only the newest matters, and a device never floods a busy platform. Reports made in one turn of
 * the event loop go as one (the newest), so a push that finishes at once (SIM_PUSH_STEP_MS=0) reports only
 * its end. A final state (success or failure) does not wait for the report in flight, so the platform can
 * write it together with that one, and it is sent again until it is stored.
 */
export function pushFileHandler(job: PushJob): CommandHandler {
  const jobs = new Map<number, { last: PushReport | undefined; onWire: PushReport | undefined; acked: boolean; inFlight: number; soon: boolean }>();
  const watched = new WeakSet<DeviceSession>();
  /** Sends the newest report; `again` sends it even if it already went (resend after a login or a repeated PushFile). */
  const send = (session: DeviceSession, campaignId: number, again = false) => {
    const state = jobs.get(campaignId);
    if (!state?.last) return;
    state.acked = false;
    if (!again && (state.onWire === state.last || (state.inFlight > 0 && !isFinal(state.last)))) return;
    const sent = state.last;
    state.onWire = sent;
    state.inFlight++;
    sendPushReport(session, campaignId, sent, (stored) => {
      state.inFlight--;
      if (state.last !== sent) send(session, campaignId);
      else if (stored) state.acked = true;
    });
  };
  return async (request, session) => {
    if (!watched.has(session)) {
      watched.add(session);
      // A report lost to a disconnect (or a platform restart) is sent again after the next login.
      session.loggedIn$.subscribe((up) => {
        if (up) for (const [campaignId, state] of jobs) if (!state.acked) send(session, campaignId, true);
      });
    }
    const req = decodePushFile(request.data);
    if (!req) return { result: Result.MessageError, data: { message: 'campaignId, url, sha256 and size are required' } };
    const known = jobs.get(req.campaignId);
    const failed = known?.last && (known.last.downloadState === DownloadState.Failed || known.last.downloadState === DownloadState.UpgradeFailed || known.last.installResult === InstallResult.Failure);
    // A push under way or done is not downloaded twice; a failed one sent again is a retry and starts anew.
    if (known && !failed) return { result: Result.Success, afterReply: () => send(session, req.campaignId, true) };
    const state = { last: undefined as PushReport | undefined, onWire: undefined as PushReport | undefined, acked: true, inFlight: 0, soon: false };
    jobs.set(req.campaignId, state);
    const report = (r: PushReport) => {
      state.last = r;
      state.acked = false;
      if (state.soon) return;
      state.soon = true;
      setImmediate(() => {
        state.soon = false;
        send(session, req.campaignId);
      });
    };
    return {
      result: Result.Success,
      afterReply: () => {
        job(req, report, session).catch((err: unknown) =>
          report({ downloadState: DownloadState.Failed, progress: 0, installResult: InstallResult.Failure, message: err instanceof Error ? err.message : String(err) }),
        );
      },
    };
  };
}

export interface SimulatedPushOptions {
  readonly clock: Clock;
  /** Time between progress steps; 0 reports everything at once. */
  readonly stepMs: number;
  readonly steps?: number;
}

/** A simulated device's push: progress in steps on the injected clock, then install success. */
export function simulatedPushJob(opts: SimulatedPushOptions): PushJob {
  const steps = opts.steps ?? 4;
  // SIM_PUSH_STEP_MS=0 turns simulated download time off for a whole simulator process (`npm run bench -- push`).
  const stepMs = process.env.SIM_PUSH_STEP_MS ? Number(process.env.SIM_PUSH_STEP_MS) : opts.stepMs;
  const wait = () => new Promise<void>((resolve) => (stepMs > 0 ? opts.clock.setTimeout(resolve, stepMs) : resolve()));
  return async (_req, report) => {
    for (let i = 1; i <= steps; i++) {
      await wait();
      report({ downloadState: DownloadState.Downloading, progress: Math.round((100 * i) / steps), installResult: InstallResult.Preparing });
    }
    report({ downloadState: DownloadState.Upgrading, progress: 100, installResult: InstallResult.Installing });
    await wait();
    report({ downloadState: DownloadState.UpgradeSuccess, progress: 100, installResult: InstallResult.Finished });
  };
}

export interface HttpPushOptions {
  /** The gateway's device socket URL; the download URL is resolved against its HTTP origin. */
  readonly gatewayUrl: string;
  readonly sn: string;
  /** Where downloaded files are kept. */
  readonly dir: string;
  /** Installs a verified file; the default only logs it. */
  readonly install?: (file: string, req: PushFileRequest) => Promise<void>;
  readonly log: (msg: string) => void;
}

/** A real terminal's push: HTTP download with the device's credentials, SHA-256 and size check, install hook. */
export function httpPushJob(opts: HttpPushOptions): PushJob {
  const origin = new URL(opts.gatewayUrl.replace(/^ws/, 'http')).origin;
  return async (req, report, session) => {
    const url = new URL(req.url, origin);
    if (url.origin !== origin) throw new Error('download URL is not on the platform');
    const res = await fetch(url, { headers: { 'X-Device-Sn': opts.sn, 'X-Device-Secret': session.secret ?? '' } });
    if (!res.ok || !res.body) throw new Error(`download failed: HTTP ${res.status}`);
    fs.mkdirSync(opts.dir, { recursive: true });
    // The file is named by its hash: nothing from the platform's text reaches the path.
    const file = path.join(opts.dir, req.sha256);
    const out = fs.createWriteStream(file);
    const hash = createHash('sha256');
    let received = 0;
    let reported = -1;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      received += chunk.length;
      if (received > req.size) throw new Error('download is larger than announced');
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      const pct = req.size ? Math.floor((100 * received) / req.size) : 100;
      if (pct >= reported + 10) {
        reported = pct;
        report({ downloadState: DownloadState.Downloading, progress: pct, installResult: InstallResult.Preparing });
      }
    }
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (received !== req.size || hash.digest('hex') !== req.sha256) {
      fs.rmSync(file, { force: true });
      throw new Error('downloaded file does not match its SHA-256');
    }
    report({ downloadState: DownloadState.DownloadSuccess, progress: 100, installResult: InstallResult.Installing });
    report({ downloadState: DownloadState.Upgrading, progress: 100, installResult: InstallResult.Installing });
    const install = opts.install ?? (async (f, r) => opts.log(`push ${r.campaignId}: ${r.kind} ${r.fileName} verified at ${f}; install hook not set, logged only`));
    await install(file, req);
    report({ downloadState: DownloadState.UpgradeSuccess, progress: 100, installResult: InstallResult.Finished });
  };
}
