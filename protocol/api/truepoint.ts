// True-point (high-precision positioning) service accounts and their equipment (ours: the spec names the
// fields only): request schemas written with TypeBox, their types derived, and the answers' shapes: one
// definition for the server and the console.
import { type Static, Type } from 'typebox';
import { Among, Id, OneOf, OptionalQueryPaging, QueryId } from './common.ts';

export const CHARGE_TYPES = ['yearly', 'monthly', 'trial'] as const;

/** POST /true-point/account/add (platform staff). */
export const AddTruePointAccountBody = Type.Object(
  {
    accountNo: Type.String({ maxLength: 32 }),
    instanceId: Type.String({ maxLength: 64 }),
    precision: Among<string>(['CM', 'DM']),
    chargeType: Among<string>(CHARGE_TYPES),
    duration: Type.Integer({ minimum: 1, maximum: 3650 }),
    activationMode: Type.Optional(Among<number>([1, 2])),
    orgId: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type AddTruePointAccountBody = Static<typeof AddTruePointAccountBody>;

/** GET /true-point/account/list. */
export const TruePointListQuery = Type.Object({ ...OptionalQueryPaging }, { additionalProperties: false });
export type TruePointListQuery = Static<typeof TruePointListQuery>;

/** POST /true-point/account/activate. */
export const TruePointIdBody = Type.Object({ id: Id }, { additionalProperties: false });
export type TruePointIdBody = Static<typeof TruePointIdBody>;

/** POST /true-point/account/state: 1 enabled, 2 disabled, 3 closed. */
export const TruePointStateBody = Type.Object({ id: Id, state: OneOf([1, 2, 3]) }, { additionalProperties: false });
export type TruePointStateBody = Static<typeof TruePointStateBody>;

/** GET /true-point/equipment/list. */
export const EquipmentListQuery = Type.Object({ accountId: Type.Optional(QueryId) }, { additionalProperties: false });
export type EquipmentListQuery = Static<typeof EquipmentListQuery>;

/** POST /true-point/equipment/disable. */
export const DisableEquipmentBody = Type.Object({ id: Id, disabled: Type.Boolean() }, { additionalProperties: false });
export type DisableEquipmentBody = Static<typeof DisableEquipmentBody>;

export interface TruePointAccount {
  readonly id: number;
  readonly accountNo: string;
  readonly password: string;
  readonly instanceId: string;
  readonly precision: string;
  readonly chargeType: string;
  readonly duration: number;
  readonly residualDays: number;
  readonly serviceState: number;
  readonly activationMode: number;
  readonly accountState: number;
  readonly times: number;
  readonly activatedAt: number | null;
  readonly expireTime: number | null;
}

export interface TruePointEquipment {
  readonly id: number;
  readonly equipmentId: string;
  readonly accountNo: string;
  readonly status: number;
  readonly disableStatus: number;
  readonly usedDays: number;
}
