// Custom device fields (issue 23): an organisation defines fields for its devices (text, number, or one
// of a list of options); each device holds a value per field, shown as optional columns of the device list,
// filterable there, and usable in dynamic group queries.
import { type Static, Type } from 'typebox';
import { Id, NullReply, OneOf, Reply } from './common.ts';

export const DEVICE_FIELD_TYPES = ['text', 'number', 'select'] as const;
export type DeviceFieldType = (typeof DEVICE_FIELD_TYPES)[number];
/** Most fields one organisation defines, and most options of a select field (ours). */
export const MAX_DEVICE_FIELDS = 30;
export const MAX_FIELD_OPTIONS = 50;
/** Longest value of a field. */
export const MAX_FIELD_VALUE = 128;

const Sn = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' });

/** POST /device-field/list: the fields of the caller's organisations, or with `sn` those that apply to that device. */
export const DeviceFieldListBody = Type.Object({ sn: Type.Optional(Sn) }, { additionalProperties: false });
export type DeviceFieldListBody = Static<typeof DeviceFieldListBody>;

/** A select field's options. */
const Options = Type.Array(Type.String({ minLength: 1, maxLength: MAX_FIELD_VALUE }), { maxItems: MAX_FIELD_OPTIONS, uniqueItems: true });

/** POST /device-field/add. */
export const DeviceFieldAddBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    type: OneOf(DEVICE_FIELD_TYPES),
    options: Type.Optional(Options),
  },
  { additionalProperties: false },
);
export type DeviceFieldAddBody = Static<typeof DeviceFieldAddBody>;

/**
 * POST /device-field/update: a new name and, for a select field, its options when given (devices holding
 * an option no longer offered lose that value). The type does not change.
 */
export const DeviceFieldUpdateBody = Type.Object(
  { id: Id, name: Type.String({ minLength: 1, maxLength: 64 }), options: Type.Optional(Options) },
  { additionalProperties: false },
);
export type DeviceFieldUpdateBody = Static<typeof DeviceFieldUpdateBody>;

/** DELETE /device-field/{id}. */
export const DeviceFieldIdPath = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,10}$' }) });

/** One field's value as set on a device ('' clears it). */
export const DeviceFieldValue = Type.Object({ id: Id, value: Type.String({ maxLength: MAX_FIELD_VALUE }) }, { additionalProperties: false });

/** POST /device-field/set: a device's values of some fields. */
export const DeviceFieldSetBody = Type.Object(
  { sn: Sn, values: Type.Array(DeviceFieldValue, { minItems: 1, maxItems: MAX_DEVICE_FIELDS }) },
  { additionalProperties: false },
);
export type DeviceFieldSetBody = Static<typeof DeviceFieldSetBody>;

/**
 * A filter on custom fields (the device list, control by query, dynamic groups): every condition must hold.
 * A text field matches a substring ignoring case; a number or select field matches the value exactly.
 */
export const DeviceFieldFilter = Type.Array(DeviceFieldValue, { maxItems: 10 });
export type DeviceFieldFilter = Static<typeof DeviceFieldFilter>;

/** A field as /device-field/list answers it. */
export const DeviceFieldView = Type.Object({
  id: Type.Integer(),
  orgId: Type.Integer(),
  name: Type.String(),
  type: OneOf(DEVICE_FIELD_TYPES),
  options: Type.Immutable(Type.Array(Type.String())),
});
export type DeviceFieldView = Static<typeof DeviceFieldView>;

/** Answers (response schemas, the envelope around the data): the list, one field, a device's values by field id. */
export const DeviceFieldListReply = Reply(Type.Immutable(Type.Array(DeviceFieldView)));
export const DeviceFieldReply = Reply(DeviceFieldView);
export const DeviceFieldValuesReply = Reply(Type.Record(Type.String(), Type.String()));
export const DeviceFieldDeleteReply = NullReply;
