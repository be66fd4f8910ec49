import type { PushTargetEvent } from '../../protocol/api/campaigns.ts';
import type { BusMessage } from '../bus/bus.ts';

/**
 * One device's row as consoles see it, live: a /push-log/stream target line without its type. Here, beside
 * the message that carries it between nodes, so that the runner imports the bus and not the other way round.
 */
export type TargetUpdate = Omit<PushTargetEvent, 'type'>;

/**
 * The campaigns area's own bus subject: per-device progress and campaign state changes written on one node,
 * for the /push-log/stream consumers on the others. One message per committed batch (not per device), so a
 * 10,000-device campaign costs the bus a few hundred messages.
 */
export const CampaignSubject = {
  progress: 'campaigns.progress',
} as const;

export interface CampaignChange {
  readonly id: number;
  readonly orgId: number;
  readonly state: string;
}

export interface ProgressMessage {
  /** The publishing runner, which ignores its own messages (NATS echoes them). */
  readonly node: string;
  readonly targets: readonly TargetUpdate[];
  readonly campaigns: readonly CampaignChange[];
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function targetOf(v: unknown): TargetUpdate | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const t = v as Record<string, unknown>;
  if (!isNumber(t.campaignId) || !isNumber(t.orgId) || typeof t.sn !== 'string' || !isNumber(t.pushResult) || !isNumber(t.downloadState) || !isNumber(t.progress) || !isNumber(t.installResult) || !isNumber(t.updateTime)) return undefined;
  return { campaignId: t.campaignId, orgId: t.orgId, sn: t.sn, pushResult: t.pushResult, downloadState: t.downloadState, progress: t.progress, installResult: t.installResult, message: typeof t.message === 'string' ? t.message : '', updateTime: t.updateTime };
}

function campaignOf(v: unknown): CampaignChange | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const c = v as Record<string, unknown>;
  return isNumber(c.id) && isNumber(c.orgId) && typeof c.state === 'string' ? { id: c.id, orgId: c.orgId, state: c.state } : undefined;
}

/**
 * Reads a progress message from the bus. Other nodes are trusted peers, but the consoles' organisation
 * filter runs on orgId, so a malformed entry is dropped rather than passed on.
 */
export function parseProgressMessage(m: BusMessage): ProgressMessage | undefined {
  if (typeof m.node !== 'string' || !Array.isArray(m.targets) || !Array.isArray(m.campaigns)) return undefined;
  return {
    node: m.node,
    targets: m.targets.flatMap((t) => targetOf(t) ?? []),
    campaigns: m.campaigns.flatMap((c) => campaignOf(c) ?? []),
  };
}
