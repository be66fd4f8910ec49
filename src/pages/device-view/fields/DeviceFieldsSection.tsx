import { Badge, Button, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_FIELD_VALUE } from '../../../../protocol/api/device-fields.ts';
import { type DeviceFieldView, deviceFieldApi } from '../../../api/device-fields.ts';
import { TOAST_MS } from '../../../api/request.ts';
import { type Rule, rules, useConsoleForm } from '../../../components/use-console-form.ts';
import { notifications } from '../../../layout/toast.ts';
import { FormActions } from '../../../components/FormActions.tsx';

type Values = Record<string, string>;
const keyOf = (f: DeviceFieldView) => `f${f.id}`;
const numberRule: Rule = (v) => (v.trim() && !Number.isFinite(Number(v.trim())) ? { key: 'groups.fields.notNumber' } : undefined);

function ValuesDialog({ sn, fields, values, onClose, onSaved }: { sn: string; fields: readonly DeviceFieldView[]; values: Readonly<Record<string, string>>; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const initial = Object.fromEntries(fields.map((f) => [keyOf(f), values[String(f.id)] ?? '']));
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: initial,
    rules: Object.fromEntries(fields.map((f) => [keyOf(f), f.type === 'number' ? [rules.maxLength(MAX_FIELD_VALUE), numberRule] : [rules.maxLength(MAX_FIELD_VALUE), rules.noEmoji()]])),
  });
  const save = async (v: Values) => {
    const changed = fields.filter((f) => (v[keyOf(f)] ?? '').trim() !== initial[keyOf(f)]).map((f) => ({ id: f.id, value: (v[keyOf(f)] ?? '').trim() }));
    if (changed.length > 0) {
      await deviceFieldApi.set({ sn, values: changed });
      notifications.show({ color: 'green', message: t('groups.fields.valuesSaved'), autoClose: TOAST_MS });
    }
    onSaved();
  };
  return (
    <Modal opened onClose={onClose} title={t('groups.fields.valuesTitle', { sn })} centered>
      <form onSubmit={onSubmit(save)} noValidate>
        <Stack>
          {fields.map((f) =>
            f.type === 'select' ? (
              <Select
                key={f.id}
                label={f.name}
                placeholder={t('groups.fields.cleared')}
                clearable
                data={f.options.map((o) => ({ value: o, label: o }))}
                value={form.values[keyOf(f)] || null}
                onChange={(v) => form.setFieldValue(keyOf(f), v ?? '')}
                error={field(keyOf(f)).error}
                data-testid={`field-value-${f.name}`}
              />
            ) : (
              <TextInput key={f.id} label={f.name} placeholder={t('groups.fields.cleared')} inputMode={f.type === 'number' ? 'decimal' : undefined} {...field(keyOf(f))} data-testid={`field-value-${f.name}`} />
            ),
          )}
          <FormActions submitting={submitting} onCancel={onClose} submitTestId="field-values-save" />
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * The device's custom fields (issue 23): the fields of its organisation and those above it, with their
 * values; an operator holding `device_remark` edits them in a dialog. Nothing shows when no field applies.
 */
export function DeviceFieldsSection({ sn, values, canEdit, onSaved }: { sn: string; values: Readonly<Record<string, string>>; canEdit: boolean; onSaved: () => void }) {
  const { t } = useTranslation();
  const [fields, setFields] = useState<readonly DeviceFieldView[]>([]);
  const [editing, setEditing] = useState(false);
  useEffect(() => {
    let current = true;
    deviceFieldApi.list(sn).then((list) => current && setFields(list), () => current && setFields([]));
    return () => {
      current = false;
    };
  }, [sn]);
  if (fields.length === 0) return null;
  return (
    <Group gap="xs" mb="sm" data-testid="device-fields">
      <Text size="sm" fw={500}>
        {t('groups.fields.section')}
      </Text>
      {fields.map((f) => {
        const value = values[String(f.id)];
        return (
          <Badge key={f.id} variant="light" color={value ? 'blue' : 'gray'} tt="none" data-field={f.name}>
            {f.name}: {value ?? t('groups.fields.none')}
          </Badge>
        );
      })}
      {canEdit && (
        <Button size="compact-xs" variant="light" onClick={() => setEditing(true)} data-testid="device-fields-edit">
          {t('groups.fields.editValues')}
        </Button>
      )}
      {editing && (
        <ValuesDialog
          sn={sn}
          fields={fields}
          values={values}
          onClose={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onSaved();
          }}
        />
      )}
    </Group>
  );
}
