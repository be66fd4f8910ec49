// Shapes of the push campaign calls (/push/start and /push-log/stream) that both the server and the console
// hold: one definition, so they cannot drift.
import { type Static, Type } from 'typebox';
import type { ApprovalView } from './approvals.ts';
import type { CampaignWait, MaintenanceWindow } from '../rules/maintenance-window.ts';
import { Among, Id, PagingProperties } from './common.ts';
import { type DeviceListFilter, DeviceSelectBody } from './devices.ts';

/**
 * Devices a push chooses by query: the filter fields of the device list and of remote management's
 * control by query, with the same meaning (text fields are case-insensitive substrings), always within
 * the caller's organisations. The server validates it with the device list's own schema.
 */
export type PushDeviceQuery = DeviceListFilter;

/** Most devices one campaign takes (ours). */
export const MAX_CAMPAIGN_DEVICES = 10_000;

/** The content kinds a campaign pushes (the content areas' stored kinds). */
export const PUSH_KINDS = ['firmware', 'app', 'file', 'logo', 'wallpaper'] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/**
 * A maintenance window as /push/start takes it: days of the week (0 Sunday .. 6 Saturday), a time of day
 * from and to ('HH:mm', 24 h; to before from runs overnight), in an IANA time zone. The server checks the
 * zone and that the times differ (protocol/rules/maintenance-window.ts).
 */
export const MaintenanceWindowSchema = Type.Object(
  {
    days: Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { minItems: 1, maxItems: 7, uniqueItems: true }),
    from: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
    to: Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
    timeZone: Type.String({ minLength: 1, maxLength: 64 }),
  },
  { additionalProperties: false },
);
// The schema accepts exactly the rules' shape: the compiler refuses this line if they drift.
const _windowSchemaIsTheRulesShape: Static<typeof MaintenanceWindowSchema> extends MaintenanceWindow ? true : never = true;

const PushSns = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: MAX_CAMPAIGN_DEVICES });

/** Body of POST /push/start: the devices by serial (`sns`), by `query` or by `deviceGroupId`, one of them. */
export const PushStartBody = Type.Object(
  {
    kind: Among<string>(PUSH_KINDS),
    contentId: Id,
    sns: Type.Optional(PushSns),
    /** Older form of a query push: `byQuery: true` with no `query` means every device in scope. */
    byQuery: Type.Optional(Type.Boolean()),
    // The device list's filter, validated as /device/select validates it, so a query means the same there and here.
    query: Type.Optional(DeviceSelectBody),
    /**
     * A dynamic group (protocol/api/groups.ts): its members now, and the devices that join it while the
     * campaign runs (until its offline window ends). Instead of `sns` or `query`.
     */
    deviceGroupId: Type.Optional(Id),
    confirmModelMismatch: Type.Optional(Type.Boolean()),
    /**
     * The target picker's "mismatch asks confirmation to continue": false answers a report of the devices
     * the content cannot go to (PushSkipReport) when there are any; true skips them and pushes to the rest.
     * Absent: the older refusals (another system type) and model confirmation.
     */
    skipMismatched: Type.Optional(Type.Boolean()),
    maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    offlineWindowMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 * 24 * 30 })),
    stageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CAMPAIGN_DEVICES })),
    successPercent: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    errorPercent: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    requireApproval: Type.Optional(Type.Boolean()),
    /** Epoch ms: nothing is sent before it (a scheduled campaign). */
    startAt: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Dispatch only inside this recurring window; outside it the campaign waits. */
    window: Type.Optional(MaintenanceWindowSchema),
  },
  { additionalProperties: false },
);
export type PushStartRequest = Static<typeof PushStartBody>;

/** POST /push/pause, /push/resume, /push/cancel, /push/approve: the campaign. */
export const CampaignIdBody = Type.Object({ id: Id }, { additionalProperties: false });
export type CampaignIdBody = Static<typeof CampaignIdBody>;

/** POST /push/add-devices: more serials for a campaign. */
export const AddDevicesBody = Type.Object({ id: Id, sns: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_CAMPAIGN_DEVICES }) }, { additionalProperties: false });
export type AddDevicesBody = Static<typeof AddDevicesBody>;

/** POST /push/campaign/list and /push-coupon/ledger: a page. */
export { PagingBody } from './common.ts';

/** POST /push-log/list: one device's or one campaign's pushes, or one kind's (at least one of the three). */
export const PushLogListBody = Type.Object(
  {
    ...PagingProperties,
    operationType: Type.Optional(Among<string>([...PUSH_KINDS, ''])),
    sn: Type.Optional(Type.String({ maxLength: 64 })),
    campaignId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type PushLogListBody = Static<typeof PushLogListBody>;

/** GET /push-log/stream: optionally one campaign's changes only. */
export const PushStreamQuery = Type.Object({ campaignId: Type.Optional(Type.String({ pattern: '^[0-9]{1,10}$' })) });
export type PushStreamQuery = Static<typeof PushStreamQuery>;

/** GET /content/blob/:sha256, a device's download of a pushed file (with its own credentials in headers). */
export const BlobPath = Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
export type BlobPath = Static<typeof BlobPath>;

/** POST /push-coupon/recharge: how many push coupons to buy. */
export const CouponRechargeBody = Type.Object({ count: Type.Integer({ maximum: 1_000_000 }) }, { additionalProperties: false });
export type CouponRechargeBody = Static<typeof CouponRechargeBody>;

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
  /** Scheduled start (epoch ms), or null. */
  readonly startAt: number | null;
  readonly window: MaintenanceWindow | null;
  /** What a running campaign waits for now, or null when it dispatches. */
  readonly waiting: CampaignWait | null;
  /** When it dispatches next, while it waits (epoch ms). */
  readonly nextOpen: number | null;
  /** The dynamic group it follows, or null. */
  readonly deviceGroupId: number | null;
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
  /** Set when the campaign is over its organisation's size for four-eyes approval: it waits (awaiting_approval) for it (issue 23). */
  readonly approval?: ApprovalView;
}

/** Why a device is skipped: another system type than the content's, another model than the firmware's, MCU firmware on an Apollo model. */
export type PushSkipReason = 'systemType' | 'model' | 'apollo';

/** /push/start's answer with `skipMismatched: false` when some devices cannot take the content: resend with `skipMismatched: true`. */
export interface PushSkipReport {
  readonly confirm: 'skip';
  /** The first 100 of them, with why. */
  readonly skipped: readonly { readonly sn: string; readonly model: string; readonly systemType: string; readonly reason: PushSkipReason }[];
  readonly skippedCount: number;
  /** How many devices the push would reach. */
  readonly pushable: number;
}

export type PushStartReply = PushModelConfirm | PushSkipReport | PushStarted;

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

/** A row of the push log (/push-log/list): one device's push of one campaign. */
export interface PushLogEntry extends PushState {
  readonly id: number;
  readonly campaignId: number;
  readonly sn: string;
  readonly operationType: string;
  readonly contentName: string;
  readonly pushDate: number;
  readonly messageType: string;
}

/** A push-coupon order still to pay (amount in fen). */
export interface UnpaidCouponOrder {
  readonly orderNo: string;
  readonly amount: number;
  readonly count: number;
  readonly offlinePending: boolean;
  readonly createTime: number;
}

/** Answer of /push-coupon/info: the organisation's coupons, with the coupon orders still to pay. */
export interface CouponInfo {
  readonly balance: number;
  readonly unitPrice: number;
  readonly orderTotal: number;
  readonly unpaid: readonly UnpaidCouponOrder[];
}

/** Answer of /push-coupon/recharge: the order to pay, in the shape /pay-data/createOrder answers. */
export interface RechargeOrder {
  readonly orderNo: string;
  /** Minor units (fen), as every order amount. */
  readonly amount: number;
  readonly amountText: string;
  readonly lines: readonly { readonly item: string; readonly quantity: number; readonly unit: string; readonly unitPrice: number; readonly total: number }[];
}

/** A row of /push-coupon/ledger: coupons credited (a paid order) or spent (a push). */
export interface CouponLedgerEntry {
  readonly id: number;
  readonly delta: number;
  readonly reason: string;
  readonly orderNo: string | null;
  readonly amount: number;
  readonly campaignId: number | null;
  readonly sn: string | null;
  readonly createTime: number;
}
