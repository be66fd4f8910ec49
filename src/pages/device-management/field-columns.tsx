import { Select, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { MAX_FIELD_VALUE } from '../../../protocol/api/device-fields.ts';
import type { DeviceFieldView } from '../../api/device-fields.ts';
import { type DeviceColumn, FIELD_COLUMN } from './DeviceRow.tsx';

/** One condition on a custom field, as the list's filter row holds it (the server takes up to ten). */
export interface FieldCondition {
  readonly id: number;
  readonly value: string;
}

/** The custom fields as list columns (`field:<id>`, titled by the field's name; the server does not sort by them). */
export function fieldColumns(fields: readonly DeviceFieldView[]): DeviceColumn[] {
  return fields.map((f) => ({ key: `${FIELD_COLUMN}${f.id}`, width: 140, title: f.name }));
}

/**
 * The filter by a custom field: the field, then its value (a choice field's options, or free text: a text
 * field matches a part of its value ignoring case, a number field the number).
 */
export function FieldFilter({ fields, value, onChange }: { fields: readonly DeviceFieldView[]; value: FieldCondition | undefined; onChange: (c: FieldCondition | undefined) => void }) {
  const { t } = useTranslation();
  const field = fields.find((f) => f.id === value?.id);
  return (
    <>
      <Select
        w={150}
        label={t('groups.fields.filterField')}
        placeholder={t('fleet.filter.all')}
        clearable
        data={fields.map((f) => ({ value: String(f.id), label: f.name }))}
        value={field ? String(field.id) : null}
        onChange={(v) => onChange(v ? { id: Number(v), value: '' } : undefined)}
        data-testid="filter-field"
      />
      {field?.type === 'select' ? (
        <Select
          w={130}
          label={t('groups.fields.filterValue')}
          placeholder={t('groups.fields.filterAny')}
          clearable
          data={field.options.map((o) => ({ value: o, label: o }))}
          value={value?.value || null}
          onChange={(v) => onChange({ id: field.id, value: v ?? '' })}
          data-testid="filter-field-value"
        />
      ) : (
        <TextInput
          w={130}
          label={t('groups.fields.filterValue')}
          placeholder={field ? t('groups.fields.filterAny') : undefined}
          disabled={!field}
          maxLength={MAX_FIELD_VALUE}
          inputMode={field?.type === 'number' ? 'decimal' : undefined}
          value={value?.value ?? ''}
          onChange={(e) => field && onChange({ id: field.id, value: e.currentTarget.value })}
          data-testid="filter-field-value"
        />
      )}
    </>
  );
}
