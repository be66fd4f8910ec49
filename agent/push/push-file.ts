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
  return r.downloadState === DownloadState.Failed || r.downloadState === DownloadState.UpgradeFailed || r.downloadState === DownloadState.UpgradeSuccess || r.downloadState === DownloadState.DuplicatedDownload || r.installResult === InstallResult.Finished || r.installResult === InstallResult.Failure;
}

/** Sends a report; calls `settled(true)` once the platform has stored it, `settled(false)` when it did not answer so. */
export function sendPushReport(session: DeviceSession, campaignId: number, r: PushReport, settled: (stored: boolean) => void = () => {}): void {
  session.engine.call(Command.PushProgress, { data: { campaignId, ...r }, timeoutMs: 60_000 }, { progress: () => {}, result: (reply) => settled(reply.result === Result.Success), error: () => settled(false) });
}

/**
 * The PushFile handler: accepts at once (result 0), then runs the job after the reply. A push the device
 * already has under way or finished is accepted again without a second download, and its last report is
 * sent again, so the platform's resend after a restart or a lost report is harmless. Content the device
 * has already installed (same SHA-256) pushed by another campaign is not downloaded again: the push is
 * reported as duplicated download (state 7) at once.
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
  /** SHA-256 of every content this device installed, so another campaign with it is a duplicated download. */
  const installed = new Set<string>();
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
    if (installed.has(req.sha256)) {
      state.last = { downloadState: DownloadState.DuplicatedDownload, progress: 100, installResult: InstallResult.Finished, message: 'already installed' };
      return { result: Result.Success, afterReply: () => send(session, req.campaignId, true) };
    }
    const report = (r: PushReport) => {
      if (r.downloadState === DownloadState.UpgradeSuccess) installed.add(req.sha256);
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
  /** Time between progress steps; 0 reports everything at once (and downloads nothing). */
  readonly stepMs: number;
  readonly steps?: number;
  /**
   * Download the content for real from this gateway's HTTP origin (bytes counted, size and SHA-256
   * checked, nothing kept on disk). Absent, or with download time off, the download is only simulated.
   */
  readonly download?: { readonly gatewayUrl: string; readonly sn: string };
  /** Share of pushes that fail (0-1): at download (state 3), at the hash check (3) or at install (5). */
  readonly failRate?: number;
  /** Random source for the failures (the fleet's seeded one, so a demo run is repeatable). */
  readonly random?: () => number;
}

/** Where a simulated push fails, when it does. */
const SIMULATED_FAILURES = [
  { at: 'download', report: { downloadState: DownloadState.Failed, installResult: InstallResult.Preparing, message: 'simulated: network lost during download' } },
  { at: 'download', report: { downloadState: DownloadState.Failed, installResult: InstallResult.Preparing, message: 'simulated: downloaded file does not match its SHA-256' } },
  { at: 'install', report: { downloadState: DownloadState.UpgradeFailed, installResult: InstallResult.Failure, message: 'simulated: installation failed' } },
] as const;

/**
 * A simulated device's push: waiting, downloading in steps (over HTTP for real when `download` is set),
 * download success, upgrading, then upgrade success; or, at `failRate`, one of the failures a terminal
 * meets. Every download state but 7 (which `pushFileHandler` reports) and every install result occur.
 */
export function simulatedPushJob(opts: SimulatedPushOptions): PushJob {
  const steps = opts.steps ?? 4;
  // SIM_PUSH_STEP_MS=0 turns simulated download time off for a whole simulator process (`npm run bench -- push`).
  const stepMs = process.env.SIM_PUSH_STEP_MS ? Number(process.env.SIM_PUSH_STEP_MS) : opts.stepMs;
  const failRate = opts.failRate ?? 0;
  const random = opts.random ?? Math.random;
  const wait = () => new Promise<void>((resolve) => (stepMs > 0 ? opts.clock.setTimeout(resolve, stepMs) : resolve()));
  return async (req, report, session) => {
    const failure = failRate > 0 && random() < failRate ? SIMULATED_FAILURES[Math.floor(random() * SIMULATED_FAILURES.length)] : undefined;
    report({ downloadState: DownloadState.Waiting, progress: 0, installResult: InstallResult.Preparing });
    await wait();
    const download = opts.download && stepMs > 0 ? opts.download : undefined;
    if (download) {
      let reported = 0;
      await downloadVerified(req, download.gatewayUrl, download.sn, session, (received) => {
        const pct = req.size ? Math.floor((100 * received) / req.size) : 100;
        if (pct >= reported + 100 / steps) {
          reported = pct;
          report({ downloadState: DownloadState.Downloading, progress: pct, installResult: InstallResult.Preparing });
        }
      });
      if (failure?.at === 'download') {
        report({ ...failure.report, progress: reported });
        return;
      }
    } else {
      for (let i = 1; i <= steps; i++) {
        if (failure?.at === 'download' && i === steps) {
          report({ ...failure.report, progress: Math.round((100 * (i - 1)) / steps) });
          return;
        }
        report({ downloadState: DownloadState.Downloading, progress: Math.round((100 * i) / steps), installResult: InstallResult.Preparing });
        await wait();
      }
    }
    report({ downloadState: DownloadState.DownloadSuccess, progress: 100, installResult: InstallResult.Preparing });
    await wait();
    report({ downloadState: DownloadState.Upgrading, progress: 100, installResult: InstallResult.Installing });
    await wait();
    if (failure?.at === 'install') {
      report({ ...failure.report, progress: 100 });
      return;
    }
    report({ downloadState: DownloadState.UpgradeSuccess, progress: 100, installResult: InstallResult.Finished });
  };
}

/**
 * Downloads a push's content from the platform with the device's credentials, counting bytes and checking
 * size and SHA-256. `sink` receives each chunk (the agent writes it to a file; the simulator keeps nothing).
 * Throws with a reason a person can read when the download fails or does not match.
 */
export async function downloadVerified(
  req: PushFileRequest,
  gatewayUrl: string,
  sn: string,
  session: DeviceSession,
  onBytes: (received: number) => void,
  sink?: (chunk: Uint8Array) => Promise<void>,
): Promise<void> {
  const origin = new URL(gatewayUrl.replace(/^ws/, 'http')).origin;
  const url = new URL(req.url, origin);
  if (url.origin !== origin) throw new Error('download URL is not on the platform');
  const res = await fetch(url, { headers: { 'X-Device-Sn': sn, 'X-Device-Secret': session.secret ?? '' } });
  if (!res.ok || !res.body) throw new Error(`download failed: HTTP ${res.status}`);
  const hash = createHash('sha256');
  let received = 0;
  // Node's web streams are async iterable; the repository-wide typecheck (DOM lib) does not say so. An
  // HTTP body, not message data: the bytes are checked against the announced size and SHA-256 below.
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    received += chunk.length;
    if (received > req.size) throw new Error('download is larger than announced');
    if (sink) await sink(chunk);
    onBytes(received);
  }
  if (received !== req.size || hash.digest('hex') !== req.sha256) throw new Error('downloaded file does not match its SHA-256');
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
  return async (req, report, session) => {
    fs.mkdirSync(opts.dir, { recursive: true });
    // The file is named by its hash: nothing from the platform's text reaches the path.
    const file = path.join(opts.dir, req.sha256);
    const out = fs.createWriteStream(file);
    let reported = -1;
    try {
      await downloadVerified(
        req,
        opts.gatewayUrl,
        opts.sn,
        session,
        (received) => {
          const pct = req.size ? Math.floor((100 * received) / req.size) : 100;
          if (pct >= reported + 10) {
            reported = pct;
            report({ downloadState: DownloadState.Downloading, progress: pct, installResult: InstallResult.Preparing });
          }
        },
        async (chunk) => {
          if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
        },
      );
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    } catch (err) {
      out.destroy();
      fs.rmSync(file, { force: true });
      throw err;
    }
    report({ downloadState: DownloadState.DownloadSuccess, progress: 100, installResult: InstallResult.Installing });
    report({ downloadState: DownloadState.Upgrading, progress: 100, installResult: InstallResult.Installing });
    const install = opts.install ?? (async (f, r) => opts.log(`push ${r.campaignId}: ${r.kind} ${r.fileName} verified at ${f}; install hook not set, logged only`));
    await install(file, req);
    report({ downloadState: DownloadState.UpgradeSuccess, progress: 100, installResult: InstallResult.Finished });
  };
}
