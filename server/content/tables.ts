import type { Generated } from 'kysely';

// Table types of the content area (migration 0011-content); joined into the Database interface in server/db/schema.ts.

/** A firmware image, app version, file or folder, logo or animation, or wallpaper (`kind`). */
export interface ContentItemTable {
  id: Generated<number>;
  kind: string;
  org_id: number;
  account_id: number | null;
  /** Folder of a file-library entry; null at the top. */
  parent_id: number | null;
  name: string;
  file_name: Generated<string>;
  remark: Generated<string>;
  size: Generated<number>;
  /** Lowercase hex SHA-256 of the stored bytes; '' for a folder. */
  sha256: Generated<string>;
  /** Firmware type, app type, file type or logo type, by kind. */
  item_type: Generated<string>;
  model: Generated<string>;
  model_name: Generated<string>;
  gnss_model: Generated<string>;
  source: Generated<string>;
  version: Generated<string>;
  system_type: Generated<string>;
  offline_install: Generated<number>;
  auto_install: Generated<number>;
  package_name: Generated<string>;
  version_name: Generated<string>;
  version_code: Generated<number>;
  /** Logo state (0 in production, 1 complete, 2 failed); 1 for the other kinds. */
  state: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface PushCouponTable {
  org_id: number;
  balance: Generated<number>;
  unit_price_cents: Generated<number>;
  updated_at: number;
}

export interface PushCouponLedgerTable {
  id: Generated<number>;
  org_id: number;
  delta: number;
  /** 'recharge' or 'push'. */
  reason: string;
  order_no: string | null;
  amount_cents: Generated<number>;
  campaign_id: number | null;
  sn: string | null;
  created_at: number;
}

export interface PushCampaignTable {
  id: Generated<number>;
  org_id: number;
  account_id: number | null;
  content_id: number;
  kind: string;
  content_name: Generated<string>;
  /** awaiting_approval, running, paused, cancelled or finished. */
  state: string;
  total: Generated<number>;
  max_retries: number;
  offline_window_ms: number;
  stage_size: Generated<number>;
  current_stage: Generated<number>;
  success_percent: Generated<number>;
  error_percent: Generated<number>;
  approved_by: number | null;
  /** Why the runner paused the campaign (an error threshold), '' otherwise. */
  message: Generated<string>;
  created_at: number;
  updated_at: number;
  /** Added by 0022-campaign-schedule: no dispatch before this time (null: at once). */
  start_at: number | null;
  /** Added by 0022-campaign-schedule: the maintenance window as JSON, '' for none. */
  window_json: Generated<string>;
  /** Added by 0026-dynamic-groups-and-views: the dynamic group the campaign follows (devices joining it are added), or null. */
  group_id: Generated<number | null>;
}

export interface PushTargetTable {
  id: Generated<number>;
  campaign_id: number;
  sn: string;
  /** Rollout stage, from 0; only stages up to the campaign's current one are sent. */
  stage: Generated<number>;
  /** queued (to send), sent (accepted, reporting), done, failed or cancelled. */
  phase: string;
  push_result: number;
  download_state: number;
  progress: Generated<number>;
  install_result: number;
  attempts: Generated<number>;
  next_attempt_at: number;
  message: Generated<string>;
  updated_at: number;
}

export interface CustomFirmwareOrderTable {
  id: Generated<number>;
  order_no: string;
  org_id: number;
  account_id: number | null;
  title: string;
  description: Generated<string>;
  state: number;
  amount_cents: Generated<number>;
  actual_amount_cents: Generated<number>;
  deadline: number | null;
  attachment_id: number | null;
  attachment_description: Generated<string>;
  assessment: Generated<string>;
  refuse_reason: Generated<string>;
  created_at: number;
  updated_at: number;
}

export interface ContentTables {
  content_items: ContentItemTable;
  push_coupons: PushCouponTable;
  push_coupon_ledger: PushCouponLedgerTable;
  push_campaigns: PushCampaignTable;
  push_targets: PushTargetTable;
  custom_firmware_orders: CustomFirmwareOrderTable;
}
