// Device operations over HTTP (/device-ops/*, ours): commanding a device now or holding the command for it
// while it is offline (issue 5), revoking it, and cancelling the whitelist across the caller's tree. The
// request schemas are TypeBox with their types derived; the answers' shapes are declared once here.
import { type Static, Type } from 'typebox';

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
