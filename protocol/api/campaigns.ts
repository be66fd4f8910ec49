// Shapes of the push campaign calls (/push/start and /push-log/stream) that both the server and the console
// hold: one definition, so they cannot drift.
import type { DeviceListFilter } from './devices.ts';

/**
 * Devices a push chooses by query: the filter fields of the device list and of remote management's
 * control by query, with the same meaning (text fields are case-insensitive substrings), always within
 * the caller's organisations. The server validates it with the device list's own schema.
 */
export type PushDeviceQuery = DeviceListFilter;

/** Body of POST /push/start: the devices by serial (`sns`) or by `query`, never both. */
export interface PushStartRequest {
  readonly kind: string;
  readonly contentId: number;
  readonly sns?: readonly string[];
  readonly query?: PushDeviceQuery;
  /** Older form of a query push: `byQuery: true` with no `query` means every device in scope. */
  readonly byQuery?: boolean;
  readonly confirmModelMismatch?: boolean;
  readonly maxRetries?: number;
  readonly offlineWindowMinutes?: number;
  readonly stageSize?: number;
  readonly successPercent?: number;
  readonly errorPercent?: number;
  readonly requireApproval?: boolean;
}

/** A campaign as the push calls answer it. */
export interface CampaignView {
  readonly id: number;
  readonly orgId: number;
  readonly operationType: string;
  readonly contentId: number;
  readonly contentName: string;
  readonly state: string;
  readonly total: number;
  readonly maxRetries: number;
  readonly stageSize: number;
  readonly currentStage: number;
  readonly message: string;
  readonly createdBy: number | null;
  readonly approvedBy: number | null;
  readonly queued: number;
  readonly pushing: number;
  readonly success: number;
  readonly failed: number;
  readonly cancelled: number;
  readonly createTime: number;
  readonly updateTime: number;
}

/** /push/start's answer when some devices have another model than the firmware: resend with `confirmModelMismatch`. */
export interface PushModelConfirm {
  readonly confirm: 'model';
  /** The first 100 of them. */
  readonly mismatched: readonly string[];
  readonly mismatchCount: number;
}

/** /push/start's answer when the campaign was created: it and the serials it targets, in stage order. */
export interface PushStarted {
  readonly campaign: CampaignView;
  readonly sns: readonly string[];
}

export type PushStartReply = PushModelConfirm | PushStarted;

/** Where one device's push stands: the columns the push log, the stream and the runner share. */
export interface PushState {
  readonly pushResult: number;
  readonly downloadState: number;
  readonly progress: number;
  readonly installResult: number;
  readonly message: string;
  /** When the server wrote this state (epoch ms): a list read older than an event does not undo it. */
  readonly updateTime: number;
}

/** One device's push changed (a line of /push-log/stream). */
export interface PushTargetEvent extends PushState {
  readonly type: 'target';
  readonly campaignId: number;
  readonly orgId: number;
  readonly sn: string;
}

/** A campaign changed state (a line of /push-log/stream). */
export interface PushCampaignEvent {
  readonly type: 'campaign';
  readonly id: number;
  readonly orgId: number;
  readonly state: string;
}
