// Roles and admin accounts (/permit/*, platform-core section 7): request schemas written with TypeBox,
// their types derived, and the answers' shapes: one definition for the server and the console.
import { type Static, Type } from 'typebox';
import { permissionCatalogue } from '../catalogue/permissions.ts';
import { Email, HashedPassword, Id, LongText, PagingProperties, Phone, Text } from './common.ts';

const PermissionList = Type.Array(Type.String({ maxLength: 64 }), { maxItems: permissionCatalogue.length });
const AccountName = Type.String({ maxLength: 64 });

/** POST /permit/getRoleList: a page of roles, optionally by name. */
export const RoleListBody = Type.Object({ ...PagingProperties, name: Type.Optional(Text) }, { additionalProperties: false });
export type RoleListBody = Static<typeof RoleListBody>;

const RoleProperties = { name: Text, summary: Type.Optional(LongText), permissionList: PermissionList };

/** POST /permit/addRole. */
export const AddRoleBody = Type.Object(RoleProperties, { additionalProperties: false });
export type AddRoleBody = Static<typeof AddRoleBody>;

/** POST /permit/updateRole. */
export const UpdateRoleBody = Type.Object({ id: Id, ...RoleProperties }, { additionalProperties: false });
export type UpdateRoleBody = Static<typeof UpdateRoleBody>;

/** POST /permit/getAdminList: a page of the organisation's admin accounts, optionally by account name. */
export const AdminListBody = Type.Object({ ...PagingProperties, account: Type.Optional(AccountName) }, { additionalProperties: false });
export type AdminListBody = Static<typeof AdminListBody>;

const ContactProperties = { nickname: Type.Optional(Text), email: Type.Optional(Email), phone: Type.Optional(Phone) };

/** POST /permit/addAccount; `password` is the SHA-256 hex of the typed password. */
export const AddAccountBody = Type.Object({ account: AccountName, password: HashedPassword, roleId: Id, ...ContactProperties }, { additionalProperties: false });
export type AddAccountBody = Static<typeof AddAccountBody>;

/** POST /permit/updateAccount: the fields to change. */
export const UpdateAccountBody = Type.Object(
  { id: Id, password: Type.Optional(HashedPassword), roleId: Type.Optional(Id), ...ContactProperties },
  { additionalProperties: false },
);
export type UpdateAccountBody = Static<typeof UpdateAccountBody>;

/**
 * POST /permit/update-self-password. oldPassword is ours (the spec's call takes id and the new password):
 * the console sends it so that the old password is checked here, for every account, not through an
 * org_list-gated call.
 */
export const SelfPasswordBody = Type.Object(
  {
    id: Id,
    password: HashedPassword,
    /** SHA-256 hex of the current password; when given, a wrong one refuses the change. */
    oldPassword: Type.Optional(HashedPassword),
  },
  { additionalProperties: false },
);
export type SelfPasswordBody = Static<typeof SelfPasswordBody>;

/** One catalogued permission as /permit/getAllPermits returns it (label in the caller's language). */
export interface PermitEntry {
  readonly id: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly label: string;
}

/** A role as /permit/getRoleList and /permit/getAllRole return it. */
export interface RoleView {
  readonly id: number;
  readonly name: string;
  readonly summary: string;
  /** Account name of the creator; empty for seeded roles and deleted creators. */
  readonly createdBy: string;
  readonly orgId: number | null;
  readonly permissionList: readonly string[];
  /** Only from getAllRole: whether the caller may give this role to an account. */
  readonly grantable?: boolean;
}

/** An admin account as the console shows it; never its password. */
export interface AccountView {
  readonly id: number;
  readonly account: string;
  readonly nickname: string;
  readonly email: string;
  readonly phone: string;
  readonly roleId: number;
  readonly role: string;
  readonly orgId: number;
  readonly createdAt: number;
}
