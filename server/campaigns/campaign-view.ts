import { campaignWait, nextOpening, parseWindow } from '../../protocol/index.ts';
import type { CampaignRepository, CampaignRow } from './repository.ts';
import { CampaignState, Phase } from './runner.ts';

/** A campaign as the push calls answer it: its row, its targets counted by phase, and when it waits, until when. */
export async function campaignView(
  campaigns: CampaignRepository,
  c: CampaignRow,
  now: number,
) {
  const window = parseWindow(c.window_json);
  const startAt = c.start_at === null ? null : Number(c.start_at);
  const waiting = c.state === CampaignState.Running ? (campaignWait(startAt, window, now) ?? null) : null;
  const nextOpen = waiting === 'scheduled' ? startAt : waiting === 'outsideWindow' && window ? (nextOpening(window, now) ?? null) : null;
  const by = await campaigns.phaseCounts(c.id);
  return {
    id: c.id,
    orgId: c.org_id,
    operationType: c.kind,
    contentId: c.content_id,
    contentName: c.content_name,
    state: c.state,
    total: Number(c.total),
    maxRetries: c.max_retries,
    stageSize: c.stage_size,
    currentStage: c.current_stage,
    message: c.message,
    createdBy: c.account_id,
    approvedBy: c.approved_by,
    queued: by[Phase.Queued] ?? 0,
    pushing: by[Phase.Sent] ?? 0,
    success: by[Phase.Done] ?? 0,
    failed: by[Phase.Failed] ?? 0,
    cancelled: by[Phase.Cancelled] ?? 0,
    createTime: Number(c.created_at),
    updateTime: Number(c.updated_at),
    startAt,
    window,
    waiting,
    nextOpen,
    deviceGroupId: c.group_id,
  };
}
