// Cards of the three families and directional groups (devices-and-commerce section 9, docs/DECISIONS.md,
// "Cards and commerce"): request schemas written with TypeBox, their types derived, and the answers' shapes:
// one definition for the server and the console.
import { type Static, Type } from 'typebox';
import { AddressType, CardStatus, Carrier, ComboType, ImportType, JuxinCardStatus, RealStatus, SpringCardAction, SpringCardStatus } from '../catalogue/enums.ts';
import { Among, Id, LongText, OneOf, OptionalQueryPaging, QueryId, Text } from './common.ts';

/** A card's ICCID: 19 or 20 hex digits. */
export const Iccid = Type.String({ pattern: '^[0-9A-Fa-f]{19,20}$' });
const values = (o: Record<string, string | number>): string[] => Object.values(o).map(String);

// Query values arrive as strings (types are not coerced), so numbers are checked by pattern or enum; the
// filters are typed as text, as the console holds them until the server checks them.
const CardFilters = {
  ...OptionalQueryPaging,
  iccid: Type.Optional(Type.String({ maxLength: 20 })),
  msisdn: Type.Optional(Type.String({ maxLength: 20 })),
  carrier: Type.Optional(Among(values(Carrier))),
};

/** GET /springCard/list. */
export const SpringCardListQuery = Type.Object({ ...CardFilters, status: Type.Optional(Among(values(SpringCardStatus))) }, { additionalProperties: false });

/** GET /linkCard/listCardInfo. */
export const LinkCardListQuery = Type.Object(
  {
    ...CardFilters,
    status: Type.Optional(Among(values(CardStatus))),
    realStatus: Type.Optional(Among(values(RealStatus))),
    comboType: Type.Optional(Among(values(ComboType))),
    groupId: Type.Optional(QueryId),
  },
  { additionalProperties: false },
);

/** GET /zxj/list. */
export const JuxinCardListQuery = Type.Object({ ...CardFilters, status: Type.Optional(Among(values(JuxinCardStatus))) }, { additionalProperties: false });

/** The filters of every family's list (the link card's are the widest). */
export type CardListQuery = Static<typeof LinkCardListQuery>;

/** GET /linkCard/getCardDetail/:iccid. */
export const IccidPath = Type.Object({ iccid: Iccid });
export type IccidPath = Static<typeof IccidPath>;

/** Stop ('01') or restart ('00'), the spring card's action codes, taken by every family. */
export const ChangeStatusBody = Type.Object({ iccid: Iccid, action: OneOf(Object.values(SpringCardAction)) }, { additionalProperties: false });
export type ChangeStatusBody = Static<typeof ChangeStatusBody>;

/** POST /linkCard/intelligentTest. */
export const IccidBody = Type.Object({ iccid: Iccid }, { additionalProperties: false });
export type IccidBody = Static<typeof IccidBody>;

/** POST /linkCard/bindGroup: a directional group of the organisation, or null to unbind. */
export const BindGroupBody = Type.Object({ iccid: Iccid, groupId: Type.Union([Id, Type.Null()]) }, { additionalProperties: false });
export type BindGroupBody = Static<typeof BindGroupBody>;

/** GET /linkCard/linkCardDirectionGroupList. */
export const GroupListQuery = Type.Object({ ...OptionalQueryPaging, name: Type.Optional(Text) }, { additionalProperties: false });
export type GroupListQuery = Static<typeof GroupListQuery>;

/** POST /linkCard/addDirectionGroup and /updateDirectionGroup (with id). */
export const GroupBody = Type.Object({ id: Type.Optional(Id), name: Text, remark: Type.Optional(LongText) }, { additionalProperties: false });
export type GroupBody = Static<typeof GroupBody>;

/** DELETE /linkCard/delDirectionGroup and /delDirectionalAddress. */
export const CardIdBody = Type.Object({ id: Id }, { additionalProperties: false });
export type CardIdBody = Static<typeof CardIdBody>;

/** GET /linkCard/listDirectionalAddress. */
export const AddressListQuery = Type.Object({ groupId: QueryId }, { additionalProperties: false });
export type AddressListQuery = Static<typeof AddressListQuery>;

/** POST /linkCard/addDirectionalAddress. */
/** The longest target address (a domain name's limit). */
export const MAX_ADDRESS = 253;

export const AddressBody = Type.Object(
  {
    groupId: Id,
    addressType: OneOf(Object.values(AddressType)),
    address: Type.String({ maxLength: MAX_ADDRESS }),
    description: Type.Optional(Text),
    importType: Type.Optional(OneOf(Object.values(ImportType))),
  },
  { additionalProperties: false },
);
export type AddressBody = Static<typeof AddressBody>;


/** The three card families (spring card, directional-group or link card, juxin card). */
export type CardFamilyName = 'spring' | 'link' | 'juxin';

/** A card's stored fields, as the detail call answers them. */
export interface CardView {
  readonly id: number;
  readonly orgId: number;
  readonly family: CardFamilyName;
  readonly iccid: string;
  readonly msisdn: string;
  readonly imsi: string;
  readonly carrier: string;
  readonly cardType: string;
  readonly comboType: string;
  readonly springStatus: string | null;
  readonly cardStatus: number | null;
  readonly realStatus: number | null;
  readonly juxinStatus: number | null;
  readonly statusReason: string;
  readonly statusChangedAt: number;
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly expireTime: number;
  readonly apn: string;
  readonly certification: string;
  readonly formFactor: string;
  readonly groupId: number | null;
  readonly model: string;
  readonly deviceSn: string;
  readonly activatedAt: number | null;
  readonly createdAt: number;
}

/** A card in a list or detail answer, with what its carrier still allows today. */
export interface ListedCard extends CardView {
  /** Stops and restarts left today; null when the card has no daily limit. */
  readonly actionsLeftToday: number | null;
}

/**
 * The values behind one intelligent-test check, for the console to format in its language: bytes in 1024
 * units, times as dates (issue 20). `detail` stays as the carrier's English text for logs and old callers.
 */
export interface DiagnosisFacts {
  readonly signalDbm?: number;
  readonly bytesLeft?: number;
  readonly at?: number;
  readonly apn?: string;
  readonly certification?: string;
  readonly hasGroup?: boolean;
  readonly fourGOnly?: boolean;
}

/** A card's status change, newest first in the detail answer. */
export interface CardEvent {
  readonly at: number;
  readonly fromStatus: string;
  readonly toStatus: string;
  readonly reason: string;
  readonly account: string;
}

/** Answer of /linkCard/getCardDetail/:iccid. */
export interface CardDetail extends ListedCard {
  readonly groupName: string;
  readonly events: readonly CardEvent[];
}

/** One check of the intelligent test (the carrier's and the platform's), with a stable code the console translates. */
export interface DiagnosisCheck {
  readonly code: string;
  readonly passed: boolean;
  /** Carrier-side detail, e.g. the signal strength; free text in English. */
  readonly detail: string;
  /** The values behind the detail, which the console formats in its own language. */
  readonly facts?: DiagnosisFacts;
}

/** Answer of /linkCard/intelligentTest. */
export interface DiagnosisReport {
  readonly iccid: string;
  readonly testedAt: number;
  readonly passed: boolean;
  readonly checks: readonly DiagnosisCheck[];
}

/** A directional group as its list answers it. */
export interface DirectionGroup {
  readonly id: number;
  readonly orgId: number;
  readonly name: string;
  readonly remark: string;
  readonly createdAt: number;
  readonly customCount: number;
  readonly presetCount: number;
  readonly cardCount: number;
}

/** An address of a directional group. */
export interface DirectionAddress {
  readonly id: number;
  readonly address: string;
  readonly addressType: 'ip' | 'domain';
  readonly description: string;
  readonly source: 'user_defined' | 'aliyun_defined';
  readonly importType: 'NEW' | 'TRANSFER';
  readonly state: number;
  readonly effectiveAt: number;
  readonly createdAt: number;
}

/** Answer of /linkCard/listDirectionalAddress. */
export interface AddressList {
  readonly group: { readonly id: number; readonly name: string; readonly remark: string };
  readonly maxCustom: number;
  readonly applyDelayMs: number;
  readonly presets: readonly { readonly address: string; readonly description: string }[];
  readonly list: readonly DirectionAddress[];
}

/** Answer of /linkCard/addDirectionalAddress: the address waits for the carrier until effectiveAt. */
export interface AddedAddress {
  readonly id: number;
  readonly state: number;
  readonly effectiveAt: number;
}
