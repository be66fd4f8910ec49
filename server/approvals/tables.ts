import type { Generated, Selectable } from 'kysely';

/** A dangerous action waiting for a second account (migration 0025, issue 23). */
export interface ApprovalRequestTable {
  id: Generated<number>;
  org_id: number;
  requester_id: number;
  requester: string;
  /** command | bulk | campaign (protocol/api/approvals.ts). */
  kind: string;
  msg_id: number;
  /** JSON: the command's data and options. */
  params: Generated<string>;
  /** JSON array of serials. */
  targets: string;
  target_count: number;
  /** JSON array of the targets' organisations when requested. */
  target_orgs: Generated<string>;
  source: string;
  campaign_id: number | null;
  /** pending | approved | rejected | expired. */
  state: string;
  created_at: number;
  expires_at: number;
  decided_by_id: number | null;
  decided_by: string | null;
  decided_at: number | null;
  reason: Generated<string>;
  /** JSON: what the execution answered. */
  outcome: string | null;
}

export interface ApprovalTables {
  approval_requests: ApprovalRequestTable;
}

export type ApprovalRow = Selectable<ApprovalRequestTable>;
