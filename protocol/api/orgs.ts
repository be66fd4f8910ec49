// Organisations (/org/*, platform-core sections 4 and 7): request schemas written with TypeBox, their types
// derived, and the answers' shapes: one definition for the server and the console.
import { type Static, Type } from 'typebox';
import { FreezeState } from '../catalogue/enums.ts';
import { Among, Email, EpochMs, HashedPassword, Id, IdParams, IdPath, LongText, OneOf, PagingProperties, Phone, Text } from './common.ts';

/** Sort columns of /org/list (default id, newest first: platform-core section 9). */
export const ORG_SORT_KEYS = ['id', 'name', 'createdAt', 'expireTime'] as const;
export type OrgSortKey = (typeof ORG_SORT_KEYS)[number];

/** POST /org/list. */
export const OrgListBody = Type.Object(
  { ...PagingProperties, name: Type.Optional(Text), orderBy: Type.Optional(OneOf(ORG_SORT_KEYS)), order: Type.Optional(OneOf(['asc', 'desc'])) },
  { additionalProperties: false },
);
export type OrgListBody = Static<typeof OrgListBody>;

/** The descriptive fields of an organisation, each optional. */
const Descriptive = {
  alias: Type.Optional(Text),
  email: Type.Optional(Email),
  phone: Type.Optional(Phone),
  remark: Type.Optional(LongText),
  contactPerson: Type.Optional(Text),
  expireTime: Type.Optional(EpochMs),
  /** PEM or OpenSSH text, ASCII only. */
  publicKey: Type.Optional(Type.String({ maxLength: 4096, pattern: '^[\\x20-\\x7E\\r\\n]*$' })),
  /** The login account's customer type (platform-core section 6). */
  customerType: Type.Optional(Among<number>([1, 2])),
};

/** POST /org/add: the organisation, its login account and that account's role (chosen explicitly). */
export const AddOrgBody = Type.Object(
  {
    parentId: Type.Optional(Id),
    name: Text,
    ...Descriptive,
    account: Type.String({ maxLength: 64 }),
    /** SHA-256 hex of the typed password. */
    password: HashedPassword,
    roleId: Id,
  },
  { additionalProperties: false },
);
export type AddOrgBody = Static<typeof AddOrgBody>;

/** POST /org/update: the fields to change. */
export const UpdateOrgBody = Type.Object({ id: Id, name: Type.Optional(Text), ...Descriptive, roleId: Type.Optional(Id) }, { additionalProperties: false });
export type UpdateOrgBody = Static<typeof UpdateOrgBody>;
/** The fields /org/update changes, without the organisation's id. */
export type OrgChanges = Omit<UpdateOrgBody, 'id'>;

/** DELETE /org/del. */
export const OrgIdBody = Type.Object({ id: Id }, { additionalProperties: false });
export type OrgIdBody = Static<typeof OrgIdBody>;

/** POST /org/freeze. */
export const FreezeOrgBody = Type.Object({ id: Id, freezeState: OneOf([FreezeState.Unfrozen, FreezeState.Frozen]) }, { additionalProperties: false });
export type FreezeOrgBody = Static<typeof FreezeOrgBody>;

/** POST /org/restpassword: the login account's new password (SHA-256 hex). */
export const OrgPasswordBody = Type.Object({ id: Id, password: HashedPassword }, { additionalProperties: false });
export type OrgPasswordBody = Static<typeof OrgPasswordBody>;

/** GET /org/getOrg/:orgId. */
export const OrgPath = IdParams('orgId');
/** GET /org/report/:id. */
export const OrgReportPath = IdPath;
/** GET /org/kitoutUser/:accountId. */
export const AccountPath = IdParams('accountId');

/** GET /org/authorizationPassword/:password: the SHA-256 hex of the caller's password (the spec's call). */
export const AuthorizationPasswordPath = Type.Object({ password: Type.String({ maxLength: 128 }) });
export type AuthorizationPasswordPath = Static<typeof AuthorizationPasswordPath>;

/** POST /org/authorizationPassword: the same check with the hash in the body (the console's call). */
export const AuthorizationPasswordBody = Type.Object({ password: Type.String({ maxLength: 128 }) });
export type AuthorizationPasswordBody = Static<typeof AuthorizationPasswordBody>;

/** Device counts of an organisation's whole subtree (/org/report/:id). */
export interface DeviceTotals {
  readonly total: number;
  readonly online: number;
  readonly offline: number;
}

/** An organisation as the console lists it. Device counts are of its whole subtree (its own devices and those below). */
export interface OrgView extends DeviceTotals {
  readonly id: number;
  readonly parentId: number | null;
  readonly name: string;
  readonly alias: string;
  /** Its login account's name; empty for the root organisation, which has none. */
  readonly account: string;
  readonly accountId: number | null;
  readonly roleId: number | null;
  readonly role: string;
  readonly email: string;
  readonly phone: string;
  readonly remark: string;
  readonly contactPerson: string;
  readonly publicKey: string;
  /** Its login account's customer type (platform-core section 6; default 1). */
  readonly customerType: number;
  readonly freezeState: number;
  readonly expireTime: number | null;
  readonly createdAt: number;
}

/** The detail view adds the enrolment key its devices join with. */
export interface OrgDetail extends OrgView {
  readonly enrollKey: string;
}

/** A role the caller may give a new organisation's login account (/org/loginRoles). */
export interface LoginRole {
  readonly id: number;
  readonly name: string;
  readonly summary: string;
}

/** Answer of /org/kitoutUser/:accountId: how many sessions were ended. */
export interface KickedOut {
  readonly sessions: number;
}
