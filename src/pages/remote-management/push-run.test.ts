import { describe, expect, it } from 'vitest';
import type { PushStartRequest, PushStarted } from '../../../protocol/api/campaigns.ts';
import { DownloadState, InstallResult, PushResult, Result } from '../../../protocol/index.ts';
import type { CampaignEvent, FollowPushesOptions, PushLogRow, TargetEvent } from '../../api/content.ts';
import { outcomeOfPush, PushRun, type PushRunPorts } from './push-run.ts';

const plan = { kind: 'firmware', contentId: 7, contentName: 'p10 241020.10' };

function started(id: number, sns: string[]): PushStarted {
  return { campaign: { id, total: sns.length } as PushStarted['campaign'], sns };
}

const state = (campaignId: number, sn: string, pushResult: number, updateTime: number, extra: Partial<TargetEvent> = {}): TargetEvent => ({
  type: 'target',
  campaignId,
  orgId: 1,
  sn,
  pushResult,
  downloadState: pushResult === PushResult.Success ? DownloadState.UpgradeSuccess : DownloadState.Waiting,
  progress: pushResult === PushResult.Success ? 100 : 0,
  installResult: pushResult === PushResult.Success ? InstallResult.Finished : InstallResult.Preparing,
  message: '',
  updateTime,
  ...extra,
});

const row = (e: TargetEvent): PushLogRow => ({ ...e, id: 0, operationType: 'firmware', contentName: plan.contentName, pushDate: 0, messageType: 'file' });

/** A server in memory: the push log per campaign, the stream's listener, and the campaigns started. */
function fakeServer() {
  const logs = new Map<number, TargetEvent[]>();
  const starts: PushStartRequest[] = [];
  let emit: ((e: TargetEvent | CampaignEvent) => void) | undefined;
  let status: FollowPushesOptions['onStatus'];
  let nextId = 2;
  const ports: PushRunPorts = {
    start: (body) => {
      starts.push(body);
      return Promise.resolve(started(nextId++, [...(body.sns ?? [])]));
    },
    readLog: (campaignId, pageNum, pageSize) => {
      const all = logs.get(campaignId) ?? [];
      return Promise.resolve({ total: all.length, list: all.slice((pageNum - 1) * pageSize, pageNum * pageSize).map(row) });
    },
    follow: (_campaignId, onEvent, _signal, options) => {
      emit = onEvent;
      status = options?.onStatus;
      return new Promise<void>(() => undefined);
    },
  };
  return {
    ports,
    logs,
    starts,
    event: (e: TargetEvent | CampaignEvent) => emit?.(e),
    connect: () => status?.('live'),
  };
}

/** Lets the run's list reads (promises) settle. */
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('push run in the remote management results panel', () => {
  it('maps push result and install states to outcomes', () => {
    expect(outcomeOfPush(undefined)).toEqual({ state: 'waiting' });
    expect(outcomeOfPush(state(1, 'A', PushResult.Success, 1))).toEqual({ state: 'done', result: Result.Success });
    expect(outcomeOfPush(state(1, 'A', PushResult.Fail, 1, { message: 'disk full' }))).toEqual({ state: 'done', result: Result.Fail, message: 'disk full' });
    expect(outcomeOfPush(state(1, 'A', PushResult.Pushing, 1))).toEqual({ state: 'waiting' });
    expect(outcomeOfPush(state(1, 'A', PushResult.Pushing, 1, { downloadState: DownloadState.Downloading, progress: 40 }))).toMatchObject({ state: 'pushing', downloadState: DownloadState.Downloading, progress: 40 });
    expect(outcomeOfPush(state(1, 'A', PushResult.Pushing, 1, { downloadState: DownloadState.DownloadSuccess, installResult: InstallResult.Installing }))).toMatchObject({ state: 'pushing', installResult: InstallResult.Installing });
  });

  it('catches up from the push log on every connection, and a list read older than an event does not undo it', async () => {
    const server = fakeServer();
    const run = new PushRun(plan, started(1, ['A', 'B', 'C']), server.ports);
    run.start();
    // A finished before the stream was open: only the list knows.
    server.logs.set(1, [state(1, 'A', PushResult.Success, 10), state(1, 'B', PushResult.Pushing, 10), state(1, 'C', PushResult.Pushing, 10)]);
    server.connect();
    await settle();
    expect(run.summary).toEqual({ total: 3, done: 1, ok: 1, failed: 0 });
    // B fails live; a later catch-up reads an older row of B and keeps the failure.
    server.event(state(1, 'B', PushResult.Fail, 20, { message: 'disk full' }));
    server.connect();
    await settle();
    expect(run.outcome('B')).toEqual({ state: 'done', result: Result.Fail, message: 'disk full' });
    // Another campaign's events are not this run's.
    server.event(state(99, 'C', PushResult.Success, 30));
    expect(run.outcome('C')).toEqual({ state: 'waiting' });
    expect(run.summary).toEqual({ total: 3, done: 2, ok: 1, failed: 1 });
    expect(run.failed).toEqual(['B']);
    run.dispose();
  });

  it('retries the failed devices as a new campaign; the old campaign no longer speaks for them', async () => {
    const server = fakeServer();
    const run = new PushRun(plan, started(1, ['A', 'B']), server.ports);
    run.start();
    server.connect();
    server.event(state(1, 'A', PushResult.Success, 10));
    server.event(state(1, 'B', PushResult.Fail, 10));
    await run.retryFailed();
    expect(server.starts).toEqual([{ kind: 'firmware', contentId: 7, sns: ['B'], confirmModelMismatch: true }]);
    expect(run.campaigns).toEqual([1, 2]);
    expect(run.outcome('B')).toEqual({ state: 'waiting' });
    expect(run.summary).toEqual({ total: 2, done: 1, ok: 1, failed: 0 });
    server.event(state(1, 'B', PushResult.Fail, 50));
    expect(run.outcome('B')).toEqual({ state: 'waiting' });
    server.event(state(2, 'B', PushResult.Success, 60));
    expect(run.summary).toEqual({ total: 2, done: 2, ok: 2, failed: 0 });
    run.dispose();
  });

  it('reads the log again when its campaign is cancelled, since a cancel sends no per-device events', async () => {
    const server = fakeServer();
    const run = new PushRun(plan, started(1, ['A']), server.ports);
    run.start();
    server.connect();
    await settle();
    server.logs.set(1, [state(1, 'A', PushResult.Fail, 40, { message: 'cancelled' })]);
    server.event({ type: 'campaign', id: 1, orgId: 1, state: 'cancelled' });
    await settle();
    expect(run.outcome('A')).toEqual({ state: 'done', result: Result.Fail, message: 'cancelled' });
    run.dispose();
  });
});
