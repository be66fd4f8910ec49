// Four-eyes approval (issue 23): dangerous actions (factory reset, clear data, bulk commands and push
// campaigns over an organisation's thresholds) wait as requests until a second account holding
// `approve_dangerous`, with every target device's organisation in its scope, approves or rejects them.
// Request and answer schemas are TypeBox with their types derived; the answers are response schemas.
import { type Static, Type } from 'typebox';
import { IdParams, NullReply, PageOf, PagingProperties, Reply } from './common.ts';

/** The permission key of approvers (the requester never approves its own request). */
export const APPROVE_PERMISSION = 'approve_dangerous';

export const APPROVAL_STATES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** One device's command, one command to many devices, or a push campaign. */
export const APPROVAL_KINDS = ['command', 'bulk', 'campaign'] as const;
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

const StateSchema = Type.Unsafe<ApprovalState>({ type: 'string', enum: [...APPROVAL_STATES] });

/** POST /approval/list: requests the caller may decide (its organisations' requests) and its own, newest first. */
export const ApprovalListBody = Type.Object(
  {
    state: Type.Optional(StateSchema),
    /** Only the caller's own requests. */
    mine: Type.Optional(Type.Boolean()),
    ...PagingProperties,
  },
  { additionalProperties: false },
);
export type ApprovalListBody = Static<typeof ApprovalListBody>;

/** POST /approval/{id}/approve and /approval/{id}/reject: the request's id. */
export const ApprovalIdPath = IdParams('id');
export type ApprovalIdPath = Static<typeof ApprovalIdPath>;

/** POST /approval/{id}/reject: an optional reason the requester is shown. */
export const ApprovalRejectBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });
export type ApprovalRejectBody = Static<typeof ApprovalRejectBody>;

/** Thresholds of an organisation: its four-eyes policy. */
export const ApprovalPolicy = Type.Object({
  /** Factory reset and clear data wait for approval. */
  wipes: Type.Boolean(),
  /** A bulk command to more devices than this waits for approval; 0: never. */
  bulkOver: Type.Integer(),
  /** A push campaign to more devices than this waits for approval; 0: never. */
  campaignOver: Type.Integer(),
  /** A request not decided within this many minutes expires. */
  ttlMinutes: Type.Integer(),
});
export type ApprovalPolicy = Static<typeof ApprovalPolicy>;

/** The bounds of each threshold, as the server checks them and the console's policy form says them. */
export const APPROVAL_POLICY_LIMITS = {
  bulkOver: { min: 0, max: 100_000 },
  campaignOver: { min: 0, max: 1_000_000 },
  /** Five minutes to thirty days. */
  ttlMinutes: { min: 5, max: 30 * 1440 },
} as const;
const within = (l: { readonly min: number; readonly max: number }) => Type.Integer({ minimum: l.min, maximum: l.max });

/** POST /approval/policy: set an organisation's thresholds (the organisation key, an organisation in scope). */
export const ApprovalPolicyBody = Type.Object(
  {
    orgId: Type.Integer({ minimum: 1 }),
    wipes: Type.Boolean(),
    bulkOver: within(APPROVAL_POLICY_LIMITS.bulkOver),
    campaignOver: within(APPROVAL_POLICY_LIMITS.campaignOver),
    ttlMinutes: within(APPROVAL_POLICY_LIMITS.ttlMinutes),
  },
  { additionalProperties: false },
);
export type ApprovalPolicyBody = Static<typeof ApprovalPolicyBody>;

/** GET /approval/policy/{orgId}: one organisation's thresholds. */
export const ApprovalPolicyPath = IdParams('orgId');
export type ApprovalPolicyPath = Static<typeof ApprovalPolicyPath>;

/** A request as listed. */
export const ApprovalView = Type.Object({
  id: Type.Integer(),
  orgId: Type.Integer(),
  requesterId: Type.Integer(),
  requester: Type.String(),
  kind: Type.Unsafe<ApprovalKind>({ type: 'string', enum: [...APPROVAL_KINDS] }),
  msgId: Type.Integer(),
  /** The command's data (for a campaign: its content and size). */
  params: Type.Unknown(),
  /** The target serials (at most the first 100; targetCount says how many). */
  targets: Type.Immutable(Type.Array(Type.String())),
  targetCount: Type.Integer(),
  source: Type.String(),
  campaignId: Type.Union([Type.Integer(), Type.Null()]),
  state: StateSchema,
  createdAt: Type.Integer(),
  expiresAt: Type.Integer(),
  decidedBy: Type.Union([Type.String(), Type.Null()]),
  decidedAt: Type.Union([Type.Integer(), Type.Null()]),
  reason: Type.String(),
  /** What the execution answered after approval. */
  outcome: Type.Unknown(),
  /** The caller may approve or reject it now (pending, not its own, key held, every target in scope). */
  canDecide: Type.Boolean(),
});
export type ApprovalView = Static<typeof ApprovalView>;

/** Answer of /approval/count: pending requests the caller may decide, and its own pending ones. */
export const ApprovalCount = Type.Object({ toDecide: Type.Integer(), mine: Type.Integer() });
export type ApprovalCount = Static<typeof ApprovalCount>;

/** Answers (response schemas, the envelope around the data) of /approval/*. */
export const ApprovalPageReply = Reply(PageOf(ApprovalView));
export const ApprovalCountReply = Reply(ApprovalCount);
export const ApprovalReply = Reply(ApprovalView);
export const ApprovalPolicyReply = Reply(ApprovalPolicy);
export const ApprovalPolicySetReply = NullReply;

/** What a REST command answers instead of executing when it waits for approval. */
export interface ApprovalWaiting {
  readonly approval: ApprovalView;
}
