// Device operations over HTTP (/device-ops/*, ours): commanding a device now or holding the command for it
// while it is offline (issue 5), revoking it, and cancelling the whitelist across the caller's tree. The
// request schemas are TypeBox with their types derived; the answers' shapes are declared once here.
import { type Static, Type } from 'typebox';
import type { RemoteControlRequest, ScreenPoint } from '../catalogue/stream.ts';
import type { ApprovalView } from './approvals.ts';

/** Longest a held command waits for its device (30 days). */
export const MAX_HOLD_SECONDS = 30 * 86_400;

const Sn = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });

/** POST /device-ops/command: a command now, or held for `ttlSeconds` while the device is offline. */
export const DeviceCommandBody = Type.Object(
  {
    sn: Sn,
    msgId: Type.Integer({ minimum: 65536, maximum: 196607 }),
    /** The command's payload (protocol/catalogue); checked by the gateway as a socket command's is. */
    data: Type.Optional(Type.Unknown()),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_HOLD_SECONDS })),
  },
  { additionalProperties: false },
);
export type DeviceCommandBody = Static<typeof DeviceCommandBody>;

/** Most devices one bulk command reaches (the device list's selection limit). */
export const MAX_BULK_SNS = 500;

/**
 * POST /device-ops/bulk: one command to many devices now (one timeline entry per device; issue 22): the
 * devices by serial (`sns`), or a dynamic group's members at the time of the call (`deviceGroupId`).
 */
export const DeviceBulkCommandBody = Type.Object(
  {
    sns: Type.Optional(Type.Array(Sn, { minItems: 1, maxItems: MAX_BULK_SNS, uniqueItems: true })),
    deviceGroupId: Type.Optional(Type.Integer({ minimum: 1 })),
    msgId: Type.Integer({ minimum: 65536, maximum: 196607 }),
    data: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);
export type DeviceBulkCommandBody = Static<typeof DeviceBulkCommandBody>;

/** Answer of /device-ops/bulk: each device's result code and message, in the order asked. */
export interface DeviceBulkCommandReply {
  readonly list: readonly { readonly sn: string; readonly result: number | null; readonly message: string }[];
  /** Set, with an empty list, when the command waits for a second account's approval (issue 23). */
  readonly approval?: ApprovalView;
}

/** Most devices under group control at once (the wall's selection; each input reaches every one of them). */
export const MAX_GROUP_SNS = 50;

/** Inputs group control mirrors: pointer, keys and text (not the clipboard, whose read answers differ per device). */
export const GROUP_CONTROL_ACTIONS: readonly RemoteControlRequest['action'][] = ['tap', 'swipe', 'key', 'text', 'scroll', 'longPress'];

/**
 * POST /device-ops/group-control: one live-control input mirrored to every device of the group. `input` is
 * a 65568 RemoteControl request (protocol/catalogue/stream.ts, checked with parseRemoteControl): its
 * coordinates are fractions of the picture, so each device scales them to its own screen.
 */
export const GroupControlBody = Type.Object(
  {
    sns: Type.Array(Sn, { minItems: 1, maxItems: MAX_GROUP_SNS, uniqueItems: true }),
    input: Type.Unknown(),
  },
  { additionalProperties: false },
);
export type GroupControlBody = Static<typeof GroupControlBody>;

/** One device's outcome of a group-control input. */
export interface GroupControlOutcome {
  readonly sn: string;
  /** The device's result code (0 applied), or 1 with message common.permissionDenied when refused for it. */
  readonly result: number | null;
  /** The device's or the gateway's message (a message key when the server refused). */
  readonly message: string;
  /** Where a pointer input landed on this device, in its own screen pixels, as the device reports it. */
  readonly at: ScreenPoint | null;
}

/** Answer of /device-ops/group-control: each device's outcome, in the order asked. */
export interface GroupControlReply {
  readonly list: readonly GroupControlOutcome[];
}

/** POST /device-ops/revoke and GET /device-ops/pending: one device. */
export const DeviceSnInput = Type.Object({ sn: Sn }, { additionalProperties: false });
export type DeviceSnInput = Static<typeof DeviceSnInput>;

/** POST /device-ops/whitelist-cancel: the packages to take off (none: the whole whitelist). */
export const WhitelistCancelBody = Type.Object(
  { packages: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.]{1,128}$' }), { maxItems: 200 })) },
  { additionalProperties: false },
);
export type WhitelistCancelBody = Static<typeof WhitelistCancelBody>;

export type HeldCommandState = 'waiting' | 'delivering' | 'done' | 'expired' | 'cancelled';

/** A command held for an offline device until it returns (issue 5). */
export interface PendingCommand {
  readonly id: number;
  readonly sn: string;
  readonly msgId: number;
  readonly state: HeldCommandState;
  readonly result: number | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly deliveredAt: number | null;
  readonly finishedAt: number | null;
  readonly reply: unknown;
}

/** Answer of /device-ops/command: the device's reply, or the held command when it is offline. */
export interface DeviceCommandReply {
  readonly delivered: boolean;
  readonly result: number | null;
  readonly data?: unknown;
  readonly pending?: PendingCommand;
  /** Set (result 7) when the command waits for a second account's approval (issue 23). */
  readonly approval?: ApprovalView;
}

/** Answer of /device-ops/pending. */
export interface PendingCommands {
  readonly list: readonly PendingCommand[];
}

/** Answer of /device-ops/whitelist-cancel: devices reached now and held for later. */
export interface WhitelistCancelReply {
  readonly devices: number;
  readonly delivered: number;
  readonly held: number;
}
