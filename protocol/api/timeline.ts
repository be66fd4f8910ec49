// The per-device action timeline (issue 22): every command that reaches a device, whoever sent it and by
// whichever route, is one entry for that device. The request schema is TypeBox with its type derived; the
// answer's shapes are declared once here for the server and the console.
import { type Static, Type } from 'typebox';
import { PagingProperties } from './common.ts';

/**
 * The route a command came by: a console socket, a REST call of one device, a REST call of many (one
 * entry per device), a push campaign, a command held for an offline device and delivered at its login, a
 * client with an API token (socket or REST), or group control from the monitor centre's wall (one input
 * mirrored to several devices, one entry per device); 'approval' is a four-eyes request's life (requested,
 * approved, rejected, expired: issue 23), the command's own entry follows under its route once approved.
 */
export const TIMELINE_SOURCES = ['console', 'rest', 'bulk', 'campaign', 'held', 'api', 'group', 'approval'] as const;
export type TimelineSource = (typeof TIMELINE_SOURCES)[number];

const Sn = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });
const Epoch = Type.Integer({ minimum: 0 });

/** POST /device/timeline: one device's entries, newest first, optionally within [from, to] (epoch ms). */
export const TimelineBody = Type.Object(
  { sn: Sn, from: Type.Optional(Epoch), to: Type.Optional(Epoch), ...PagingProperties },
  { additionalProperties: false },
);
export type TimelineBody = Static<typeof TimelineBody>;

/** One command to one device as the timeline shows it. */
export interface TimelineEntry {
  readonly id: number;
  readonly sn: string;
  /** When the command was sent (epoch ms). */
  readonly time: number;
  /** The account that sent it, or 'platform' for the server's own work (campaigns). */
  readonly account: string;
  readonly source: TimelineSource;
  readonly msgId: number;
  /** A short summary of the command's parameters (secrets left out). */
  readonly params: string;
  /** The result code (0 success; 1 fail; 5 offline ...). */
  readonly result: number;
  /** The device's or the gateway's message, when there is one. */
  readonly message: string;
  readonly durationMs: number;
  /** The session's recording, when one was made. */
  readonly recordingId: string | null;
}

/** POST /recording/list: recorded sessions of the caller's organisations, newest first (issue 22). */
export const RecordingListBody = Type.Object(
  { sn: Type.Optional(Sn), kind: Type.Optional(Type.Unsafe<'shell' | 'live'>({ type: 'string', enum: ['shell', 'live'] })), from: Type.Optional(Epoch), to: Type.Optional(Epoch), ...PagingProperties },
  { additionalProperties: false },
);
export type RecordingListBody = Static<typeof RecordingListBody>;

/** GET /recording/:id/download: a recording's id. */
export const RecordingIdPath = Type.Object({ id: Type.String({ pattern: '^[0-9a-f-]{36}$' }) }, { additionalProperties: false });
export type RecordingIdPath = Static<typeof RecordingIdPath>;

/** GET /recording/:id/download query: why it is fetched; each fetch is a view of the recording (who watched and when). */
export const RECORDING_PURPOSES = ['replay', 'download'] as const;
export type RecordingPurpose = (typeof RECORDING_PURPOSES)[number];
export const RecordingDownloadQuery = Type.Object(
  { purpose: Type.Optional(Type.Unsafe<RecordingPurpose>({ type: 'string', enum: [...RECORDING_PURPOSES] })) },
  { additionalProperties: false },
);
export type RecordingDownloadQuery = Static<typeof RecordingDownloadQuery>;

/** POST /recording/detail: one recording and who watched it. */
export const RecordingDetailBody = Type.Object({ id: Type.String({ pattern: '^[0-9a-f-]{36}$' }) }, { additionalProperties: false });
export type RecordingDetailBody = Static<typeof RecordingDetailBody>;

/** POST /recording/policy-of: an organisation's recording policy, read. */
export const RecordingPolicyOfBody = Type.Object({ orgId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export type RecordingPolicyOfBody = Static<typeof RecordingPolicyOfBody>;

/** POST /recording/policy: an organisation's recording policy (shell and live view). */
export const RecordingPolicyBody = Type.Object(
  { orgId: Type.Integer({ minimum: 1 }), policy: Type.Unsafe<'off' | 'on' | 'required'>({ type: 'string', enum: ['off', 'on', 'required'] }) },
  { additionalProperties: false },
);
export type RecordingPolicyBody = Static<typeof RecordingPolicyBody>;

/** A recorded session as listed. */
export interface RecordingView {
  readonly id: string;
  readonly orgId: number;
  readonly sn: string;
  readonly account: string;
  readonly kind: string;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly bytes: number;
}

/** One replay or download of a recording. */
export interface RecordingWatch {
  readonly account: string;
  readonly purpose: RecordingPurpose;
  readonly at: number;
}

/** POST /recording/detail's answer: the recording and its views, newest first (at most 200). */
export interface RecordingDetail {
  readonly recording: RecordingView;
  readonly views: readonly RecordingWatch[];
}

/** POST /recording/policy-of's answer: the same fields as the policy a caller sets. */
export type RecordingPolicyView = RecordingPolicyBody;
