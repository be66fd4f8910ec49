import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command, DownloadState, type Envelope, InstallResult, type PendingHandlers, type PushFileRequest, Result, systemClock } from '../../protocol/index.ts';
import type { DeviceSession } from '../device-session.ts';
import { type PushReport, pushFileHandler, simulatedPushJob } from './push-file.ts';

/** A session whose engine records each PushProgress call and lets the test answer it. */
function fakeSession() {
  const calls: { report: PushReport; handlers: PendingHandlers }[] = [];
  const loggedIn$ = new BehaviorSubject(true);
  const engine = {
    call: (msgId: number, options: { data?: unknown }, handlers: PendingHandlers) => {
      expect(msgId).toBe(Command.PushProgress);
      calls.push({ report: options.data as PushReport, handlers });
      return String(calls.length);
    },
  };
  const session = { sn: 'SN1', engine, loggedIn$, secret: 's' } as unknown as DeviceSession;
  const answer = (i: number, result: number = Result.Success) => calls[i]?.handlers.result({ msgId: Command.PushProgress, result } as Envelope);
  return { session, calls, loggedIn$, answer };
}

const request: Envelope = { msgId: Command.PushFile, data: { campaignId: 9, kind: 'firmware', url: '/content/blob/x', sha256: 'a'.repeat(64), size: 1, fileName: 'f', version: '', packageName: '', autoInstall: false } };
const turn = () => new Promise((r) => setImmediate(r));
const progress = (p: number): PushReport => ({ downloadState: DownloadState.Downloading, progress: p, installResult: InstallResult.Preparing });
const success: PushReport = { downloadState: DownloadState.UpgradeSuccess, progress: 100, installResult: InstallResult.Finished };

/** Starts a push whose job hands its `report` function to the test. */
async function startPush(session: DeviceSession) {
  let report: (r: PushReport) => void = () => {};
  const handler = pushFileHandler(async (_req, r) => {
    report = r;
    await new Promise(() => {}); // the test drives the job
  });
  const outcome = await handler(request, session);
  expect(outcome.result).toBe(Result.Success);
  outcome.afterReply?.();
  return { report: (r: PushReport) => report(r), handler };
}

describe('PushFile progress reports (device side)', () => {
  it('sends reports made in one event-loop turn as one: the newest', async () => {
    const s = fakeSession();
    const push = await startPush(s.session);
    for (const p of [25, 50, 75, 100]) push.report(progress(p));
    push.report(success);
    await turn();
    expect(s.calls.map((c) => c.report)).toEqual([{ campaignId: 9, ...success }]);
  });

  it('keeps one progress report in flight; the newest waiting one goes when it is answered', async () => {
    const s = fakeSession();
    const push = await startPush(s.session);
    push.report(progress(25));
    await turn();
    push.report(progress(50));
    await turn();
    push.report(progress(75));
    await turn();
    expect(s.calls).toHaveLength(1);
    s.answer(0);
    expect(s.calls.map((c) => c.report.progress)).toEqual([25, 75]);
  });

  it('sends a final state without waiting, and again after the next login until it is stored', async () => {
    const s = fakeSession();
    const push = await startPush(s.session);
    push.report(progress(25));
    await turn();
    push.report(success);
    await turn();
    expect(s.calls.map((c) => c.report.downloadState)).toEqual([DownloadState.Downloading, DownloadState.UpgradeSuccess]);
    s.answer(0);
    expect(s.calls).toHaveLength(2); // the final is already on its way
    s.calls[1]?.handlers.error(new Error('connection lost'));
    s.loggedIn$.next(false);
    s.loggedIn$.next(true);
    expect(s.calls.map((c) => c.report.downloadState)).toEqual([DownloadState.Downloading, DownloadState.UpgradeSuccess, DownloadState.UpgradeSuccess]);
    s.answer(2);
    s.loggedIn$.next(false);
    s.loggedIn$.next(true);
    expect(s.calls).toHaveLength(3); // stored: nothing to resend
  });

  it('answers a repeated PushFile for a push under way without a second job, sending its newest report again', async () => {
    const s = fakeSession();
    const push = await startPush(s.session);
    push.report(success);
    await turn();
    s.answer(0);
    const again = await push.handler(request, s.session);
    expect(again.result).toBe(Result.Success);
    again.afterReply?.();
    expect(s.calls.map((c) => c.report.downloadState)).toEqual([DownloadState.UpgradeSuccess, DownloadState.UpgradeSuccess]);
  });
});

describe('PushFile duplicated download (state 7)', () => {
  it('reports content installed by an earlier campaign as duplicated download, without running the job', async () => {
    const s = fakeSession();
    let jobs = 0;
    let finish: (r: PushReport) => void = () => {};
    const handler = pushFileHandler(async (_req, r) => {
      jobs++;
      finish = r;
    });
    const first = await handler(request, s.session);
    first.afterReply?.();
    await turn();
    finish(success);
    await turn();
    s.answer(0);
    const other: Envelope = { ...request, data: { ...(request.data as object), campaignId: 10 } };
    const again = await handler(other, s.session);
    expect(again.result).toBe(Result.Success);
    again.afterReply?.();
    expect(jobs).toBe(1);
    expect(s.calls.at(-1)?.report).toMatchObject({ campaignId: 10, downloadState: DownloadState.DuplicatedDownload, progress: 100, installResult: InstallResult.Finished });
  });

  it('downloads again when the earlier push of the same content failed', async () => {
    const s = fakeSession();
    let jobs = 0;
    let finish: (r: PushReport) => void = () => {};
    const handler = pushFileHandler(async (_req, r) => {
      jobs++;
      finish = r;
    });
    (await handler(request, s.session)).afterReply?.();
    await turn();
    finish({ downloadState: DownloadState.Failed, progress: 0, installResult: InstallResult.Preparing, message: 'x' });
    await turn();
    (await handler({ ...request, data: { ...(request.data as object), campaignId: 10 } }, s.session)).afterReply?.();
    expect(jobs).toBe(2);
  });
});

describe('simulated push job', () => {
  const job = (failRate: number, random: () => number) => simulatedPushJob({ clock: systemClock, stepMs: 0, failRate, random });
  const run = async (failRate: number, random: () => number) => {
    const reports: PushReport[] = [];
    await job(failRate, random)(request.data as PushFileRequest, (r) => reports.push(r), fakeSession().session);
    return reports;
  };

  it('goes through waiting, downloading, download success, upgrading and upgrade success', async () => {
    const states = (await run(0, Math.random)).map((r) => r.downloadState);
    expect(new Set(states)).toEqual(new Set([DownloadState.Waiting, DownloadState.Downloading, DownloadState.DownloadSuccess, DownloadState.Upgrading, DownloadState.UpgradeSuccess]));
    expect(states.at(-1)).toBe(DownloadState.UpgradeSuccess);
  });

  it('fails at the configured rate, at download (3) or at install (5 with install failure)', async () => {
    const atDownload = await run(1, () => 0);
    expect(atDownload.at(-1)).toMatchObject({ downloadState: DownloadState.Failed });
    const atInstall = await run(1, () => 0.99);
    expect(atInstall.at(-1)).toMatchObject({ downloadState: DownloadState.UpgradeFailed, installResult: InstallResult.Failure });
    expect((await run(0.5, () => 0.6)).at(-1)?.downloadState).toBe(DownloadState.UpgradeSuccess);
  });
});

describe('simulated push job downloading for real', () => {
  it('counts the bytes from the platform and fails when they do not match the announced SHA-256', async () => {
    const body = Buffer.from('firmware bytes '.repeat(1000));
    const sha = createHash('sha256').update(body).digest('hex');
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(`${req.url} ${req.headers['x-device-sn']}`);
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const download = { gatewayUrl: `ws://127.0.0.1:${port}/device`, sn: 'SN1' };
      const good = { ...(request.data as PushFileRequest), url: `/content/blob/${sha}`, sha256: sha, size: body.length };
      const reports: PushReport[] = [];
      await simulatedPushJob({ clock: systemClock, stepMs: 1, download })(good, (r) => reports.push(r), fakeSession().session);
      expect(reports.at(-1)?.downloadState).toBe(DownloadState.UpgradeSuccess);
      expect(reports.some((r) => r.downloadState === DownloadState.Downloading && r.progress === 100)).toBe(true);
      expect(seen).toEqual([`/content/blob/${sha} SN1`]);
      const bad = { ...good, sha256: 'b'.repeat(64) };
      await expect(simulatedPushJob({ clock: systemClock, stepMs: 1, download })(bad, () => {}, fakeSession().session)).rejects.toThrow('does not match its SHA-256');
    } finally {
      server.close();
    }
  });
});
