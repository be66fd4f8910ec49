import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command, DownloadState, type Envelope, InstallResult, type PendingHandlers, Result } from '../../protocol/index.ts';
import type { DeviceSession } from '../device-session.ts';
import { type PushReport, pushFileHandler } from './push-file.ts';

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
