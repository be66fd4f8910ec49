import type { Generated, Insertable, Selectable } from 'kysely';

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
  /** The organisation's own login account; null for the seeded root organisation. */
  login_account_id: number | null;
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
}

export interface Database {
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
}
