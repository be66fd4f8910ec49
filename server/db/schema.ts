import type { Generated, Insertable, Selectable } from 'kysely';
import type { TelemetryTables } from '../telemetry/tables.ts';
import type { ContentTables } from '../content/tables.ts';
import type { DeviceOperationTables } from '../gateway/device-operation-tables.ts';
import type { ApiTokenTables } from '../api-tokens/tables.ts';
import type { WebhookTables } from '../webhooks/tables.ts';
import type { OidcTables } from '../auth/oidc/tables.ts';
import type { TotpTables } from '../totp/tables.ts';
import type { TimelineTables } from '../timeline/tables.ts';
import type { RecordingTables } from '../recordings/tables.ts';
import type { GroupTables } from '../groups/tables.ts';
import type { DeviceFieldTables } from '../device-fields/tables.ts';
import type { ApprovalTables } from '../approvals/tables.ts';

// Times are epoch milliseconds in bigint columns; booleans are 0/1 integers, so one schema fits SQLite and PostgreSQL.

export interface OrganisationTable {
  id: Generated<number>;
  parent_id: number | null;
  name: string;
  /** Devices enrolling with this key join this organisation. */
  enroll_key: string;
  /** 1 unfrozen, 2 frozen (platform-core section 4). */
  freeze_state: Generated<number>;
  created_at: number;
  alias: Generated<string>;
  email: Generated<string>;
  phone: Generated<string>;
  remark: Generated<string>;
  contact_person: Generated<string>;
  expire_time: number | null;
  /** PEM or OpenSSH public key text; '' when none. */
  public_key: Generated<string>;
  /** The organisation's own login account; null for the seeded root organisation. */
  login_account_id: number | null;
  /** 1 when the organisation's accounts must use a TOTP second factor (0019, issue 23). */
  require_totp: Generated<number>;
  /** Shell recording: off, on, required (0024, issue 22). */
  recording_policy: Generated<string>;
  /** Four-eyes policy (0025, issue 23): wipes need approval (1/0); bulk and campaign sizes over which they do (0: never); expiry. */
  approval_wipes: Generated<number>;
  approval_bulk_over: Generated<number>;
  approval_campaign_over: Generated<number>;
  approval_ttl_minutes: Generated<number>;
}

export interface RoleTable {
  id: Generated<number>;
  name: string;
  summary: string;
  created_by: number | null;
  /** The organisation that owns the role; null for platform roles (the seeded admin role). */
  org_id: number | null;
}

export interface RolePermissionTable {
  role_id: number;
  permission: string;
}

export interface AccountTable {
  id: Generated<number>;
  org_id: number;
  role_id: number;
  account: string;
  nickname: string;
  /** scrypt of the client-side SHA-256 of the password. */
  password_hash: string;
  update_password_last_time: number;
  expire_time: number | null;
  language: Generated<number>;
  customer_type: Generated<number>;
  created_at: number;
  email: Generated<string>;
  phone: Generated<string>;
}

export interface SessionTable {
  /** SHA-256 of the opaque token; the token itself is never stored. */
  token_hash: string;
  account_id: number;
  created_at: number;
  expires_at: number;
}

export interface DeviceTable {
  id: Generated<number>;
  sn: string;
  org_id: number;
  secret_hash: string;
  model: string;
  system_type: string;
  system_version: string;
  image_version: string;
  network_type: Generated<number>;
  online_state: Generated<number>;
  device_state: Generated<number>;
  latest_online_time: number | null;
  offline_time: number | null;
  created_at: number;
  // Added by 0008-fleet-operations: the rest of the device entity (devices-and-commerce section 3).
  remark: Generated<string>;
  country: Generated<string>;
  mcu_version: Generated<string>;
  install_date: number | null;
  uptime: number | null;
  location: Generated<string>;
  imei: Generated<string>;
  baseband_version: Generated<string>;
  bluetooth_mac: Generated<string>;
  wlan_mac: Generated<string>;
  battery: number | null;
  manufacturer: Generated<string>;
  gnss_model: Generated<string>;
  lte_model: Generated<string>;
  hardware_id: Generated<string>;
  terminal_version: Generated<string>;
  storage_total: number | null;
  storage_free: number | null;
  support_flags: Generated<string>;
  // Added by 0012-device-holder: the gateway node holding the device while it is online.
  node_id: string | null;
  // Added by 0030-device-secret-pending: 1 while the secret issued at enrolment has not been used to log in.
  secret_pending: Generated<number>;
}

export interface Database extends OidcTables, CardsAndCommerceTables, TelemetryTables, ContentTables, DeviceOperationTables, ApiTokenTables, WebhookTables, TotpTables, TimelineTables, RecordingTables, GroupTables, DeviceFieldTables, ApprovalTables {
  organisations: OrganisationTable;
  roles: RoleTable;
  role_permissions: RolePermissionTable;
  accounts: AccountTable;
  sessions: SessionTable;
  devices: DeviceTable;
  notices: NoticeTable;
  notice_deliveries: NoticeDeliveryTable;
  document_categories: DocumentCategoryTable;
  documents: DocumentTable;
  operation_log: OperationLogTable;
  notice_targets: NoticeTargetTable;
  notice_attachments: NoticeAttachmentTable;
  org_tree_version: OrgTreeVersionTable;
}

export type Organisation = Selectable<OrganisationTable>;
export type Account = Selectable<AccountTable>;
export type NewAccount = Insertable<AccountTable>;
export type Role = Selectable<RoleTable>;
export type DeviceRow = Selectable<DeviceTable>;
export type NewDevice = Insertable<DeviceTable>;

export interface NoticeTable {
  id: Generated<number>;
  title: string;
  /** Sanitised HTML. */
  content: string;
  send_time: number;
  /** Null once the sender's account is deleted; the names below stay. */
  sender_account_id: number | null;
  sender_name: Generated<string>;
  sender_org_name: Generated<string>;
  /** 0 scheduled (not yet delivered), 1 delivered. */
  state: Generated<number>;
  /** 1: every organisation in the sender's subtree; 0: the organisations in notice_targets. */
  to_all: Generated<number>;
  created_at: Generated<number>;
  sender_org_id: number | null;
}

/** The organisations a notice goes to when it is not sent to all. */
export interface NoticeTargetTable {
  notice_id: number;
  org_id: number;
}

/** An uploaded notice attachment; notice_id is null until the notice that carries it is published. */
export interface NoticeAttachmentTable {
  id: Generated<number>;
  notice_id: number | null;
  name: string;
  mime: string;
  size: number;
  bytes: Uint8Array;
  uploaded_by: number | null;
  created_at: number;
}

/** One row, bumped by database triggers on every change to the organisation tree. */
export interface OrgTreeVersionTable {
  id: number;
  version: number;
}

/** One notice delivered to one account; reading and deleting act here, not on the notice. */
export interface NoticeDeliveryTable {
  id: Generated<number>;
  notice_id: number;
  account_id: number;
  /** 0 unread, 1 read. */
  read_state: Generated<number>;
  read_time: number | null;
}


/** A document-library category; a null parent is a first-level category, and there are two levels at most. */
export interface DocumentCategoryTable {
  id: Generated<number>;
  parent_id: number | null;
  name_zh: Generated<string>;
  name_en: Generated<string>;
  update_time: number;
  /** The owning organisation (migration 0013); a subcategory has its parent's. Null only for a row nobody owns. */
  org_id: number | null;
}

/** A document of a second-level category, in Chinese and English; content is sanitised HTML. */
export interface DocumentTable {
  id: Generated<number>;
  category_id: number;
  title_zh: Generated<string>;
  title_en: Generated<string>;
  content_zh: Generated<string>;
  content_en: Generated<string>;
  update_time: number;
  /** What the author wrote: 'markdown' or 'html'; content_* hold the sanitised HTML made from it. */
  format: Generated<string>;
  source_zh: Generated<string>;
  source_en: Generated<string>;
  /** The owning organisation: always its category's (migration 0013). */
  org_id: number | null;
}

/** One state-changing API call: who, where, what, on which target, the envelope code answered, and when. */
export interface OperationLogTable {
  id: Generated<number>;
  /** Null when the caller is unknown (a failed login, a refused session). */
  account_id: number | null;
  account: Generated<string>;
  org_id: number | null;
  method: string;
  /** The route pattern, e.g. /org/del. */
  path: string;
  /** The :id path parameter or body.id, as text; '' when there is none. */
  target: Generated<string>;
  code: number;
  ip: Generated<string>;
  created_at: number;
  /** The API token the request was made with (0015); '' for a login session. */
  token_name: Generated<string>;
  /** The target's name when the call ran (0017); '' when it has none. */
  target_name: Generated<string>;
}

// Cards and commerce (devices-and-commerce: SIM cards, directional groups, bills, orders, licences).
export interface CardsAndCommerceTables {
  direction_groups: DirectionGroupTable;
  direction_addresses: DirectionAddressTable;
  sim_cards: SimCardTable;
  sim_card_events: SimCardEventTable;
  commerce_orders: CommerceOrderTable;
  licences: LicenceTable;
  order_demands: OrderDemandTable;
  truepoint_accounts: TruePointAccountTable;
  truepoint_equipment: TruePointEquipmentTable;
}

/** A true-point positioning service account; `service_state` 1 to be activated, 2 in service, 3 expired. */
export interface TruePointAccountTable {
  id: Generated<number>;
  org_id: number;
  account_no: string;
  password: string;
  instance_id: string;
  precision: string;
  charge_type: string;
  duration_days: number;
  service_state: number;
  activation_mode: number;
  account_state: number;
  times: Generated<number>;
  activated_at: number | null;
  expire_time: number | null;
  created_at: number;
}

export interface TruePointEquipmentTable {
  id: Generated<number>;
  account_id: number;
  equipment_id: string;
  disabled: Generated<number>;
  first_used_at: number | null;
  created_at: number;
}

/** An order demand form; `fittings` and `fields` are JSON texts. */
export interface OrderDemandTable {
  id: Generated<number>;
  number: string;
  org_id: number;
  name: string;
  customer: string;
  kind: string;
  model: string;
  template: Generated<string>;
  fittings: string;
  fields: string;
  quantity: number;
  additional_quantity: Generated<number>;
  special_needs: Generated<string>;
  state: number;
  reject_reason: Generated<string>;
  parent_number: string | null;
  share_token: string;
  created_by: Generated<string>;
  created_at: number;
  updated_at: number;
}

/** An ISOBUS activation code; `expire_time` is set when a device activates it. */
export interface LicenceTable {
  id: Generated<number>;
  org_id: number;
  code: string;
  label: Generated<string>;
  status: Generated<number>;
  validity_ms: number;
  device_sn: Generated<string>;
  order_no: string | null;
  operated_at: number;
  expire_time: number | null;
  created_at: number;
}

/** An order or bill; amounts in minor units (fen); `lines`, `logistics` and `invoice` are JSON texts. */
export interface CommerceOrderTable {
  id: Generated<number>;
  order_no: string;
  org_id: number;
  account: Generated<string>;
  type: string;
  trade_state: string;
  pay_method: string | null;
  offline_pending: Generated<number>;
  trade_no: string | null;
  amount: number;
  real_amount: Generated<number>;
  invoiced: Generated<number>;
  invoice: string | null;
  lines: string;
  logistics: string | null;
  bill_month: string | null;
  created_at: number;
  paid_at: number | null;
  closed_at: number | null;
  confirmed_by: Generated<string>;
}

export interface DirectionGroupTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  remark: Generated<string>;
  created_at: number;
}

/** A target address of a directional group; `state` 100 adding and 200 removing settle at `effective_at`. */
export interface DirectionAddressTable {
  id: Generated<number>;
  group_id: number;
  address: string;
  address_type: string;
  description: Generated<string>;
  source: string;
  import_type: string;
  state: number;
  effective_at: number;
  created_at: number;
}

/** A SIM or IoT card of any family; the other families' status columns are null. */
export interface SimCardTable {
  id: Generated<number>;
  org_id: number;
  family: string;
  iccid: string;
  msisdn: Generated<string>;
  imsi: Generated<string>;
  carrier: string;
  card_type: string;
  combo_type: string;
  spring_status: string | null;
  card_status: number | null;
  real_status: number | null;
  juxin_status: number | null;
  status_reason: string;
  status_changed_at: number;
  used_bytes: Generated<number>;
  usage_since: number;
  daily_rate_bytes: Generated<number>;
  quota_bytes: number;
  expire_time: number;
  apn: Generated<string>;
  certification: string;
  form_factor: string;
  group_id: number | null;
  model: Generated<string>;
  device_sn: Generated<string>;
  action_day: Generated<number>;
  action_count: Generated<number>;
  activated_at: number | null;
  created_at: number;
}

export interface SimCardEventTable {
  id: Generated<number>;
  card_id: number;
  at: number;
  from_status: string;
  to_status: string;
  reason: string;
  account: Generated<string>;
}
