import type { Generated, Selectable } from 'kysely';

/** A custom device field of an organisation (migration 0029): it applies to the devices of that organisation and below. */
export interface DeviceFieldTable {
  id: Generated<number>;
  org_id: number;
  name: string;
  /** text, number or select. */
  type: string;
  /** A select field's options, JSON array of strings. */
  options_json: Generated<string>;
  created_at: number;
}

/** One device's value of one field ('' is never stored: clearing deletes the row). */
export interface DeviceFieldValueTable {
  field_id: number;
  sn: string;
  value: string;
}

export interface DeviceFieldTables {
  device_fields: DeviceFieldTable;
  device_field_values: DeviceFieldValueTable;
}

export type DeviceFieldRow = Selectable<DeviceFieldTable>;
