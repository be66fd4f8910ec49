import { Badge, Button, Group, Modal, Select, Stack, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEVICE_FIELD_TYPES, type DeviceFieldType, MAX_FIELD_OPTIONS, MAX_FIELD_VALUE } from '../../../protocol/api/device-fields.ts';
import { type DeviceFieldView, deviceFieldApi } from '../../api/device-fields.ts';
import { type Organization, orgApi } from '../../api/orgs.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { type Rule, rules, useConsoleForm } from '../../components/use-console-form.ts';
import { notifications } from '../../layout/toast.ts';
import { useCan } from '../../state/permissions.ts';
import { FormActions } from '../../components/FormActions.tsx';

/** Defining fields needs the key the server checks on /device-field/add, /update and DELETE. */
export const FIELD_KEY = 'device_field';
const MAX_NAME = 64;
/** Options travel in the form as one string, one option a line. */
const SEP = '\n';

type Values = { name: string; type: string; options: string };
type Draft = { readonly field?: DeviceFieldView };

/** A choice field needs options; the other types take none. */
const optionsRule: Rule = (v, values) => (values.type === 'select' && v.split(SEP).every((o) => !o.trim()) ? { key: 'groups.fields.optionsNeeded' } : undefined);

function FieldDialog({ draft, onClose, onSaved }: { draft: Draft; onClose: () => void; onSaved: (f: DeviceFieldView) => void }) {
  const { t } = useTranslation();
  const editing = draft.field;
  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: { name: editing?.name ?? '', type: editing?.type ?? 'text', options: (editing?.options ?? []).join(SEP) },
    rules: { name: [rules.required(), rules.maxLength(MAX_NAME), rules.noEmoji()], options: [optionsRule] },
    serverKeys: { 'deviceField.nameTaken': 'name', 'deviceField.optionsNeeded': 'options' },
  });
  const options = form.values.options.split(SEP).filter((o) => o.trim() !== '');
  const save = async (v: Values) => {
    const name = v.name.trim();
    const list = v.type === 'select' ? v.options.split(SEP).map((o) => o.trim()).filter((o) => o !== '') : undefined;
    const saved = editing
      ? await deviceFieldApi.update({ id: editing.id, name, ...(list ? { options: list } : {}) })
      : await deviceFieldApi.add({ name, type: v.type as DeviceFieldType, ...(list ? { options: list } : {}) });
    onSaved(saved);
  };
  const optionsProps = field('options');
  return (
    <Modal opened onClose={onClose} title={t(editing ? 'groups.fields.editTitle' : 'groups.fields.addTitle')} centered>
      <form onSubmit={onSubmit(save)} noValidate>
        <Stack>
          <TextInput label={t('groups.fields.name')} withAsterisk {...field('name')} data-testid="field-name" />
          <Select
            label={t('groups.fields.type')}
            data={DEVICE_FIELD_TYPES.map((type) => ({ value: type, label: t(`groups.fields.types.${type}`) }))}
            value={form.values.type}
            onChange={(v) => v && form.setFieldValue('type', v)}
            allowDeselect={false}
            disabled={editing !== undefined}
            description={editing ? t('groups.fields.typeFixed') : undefined}
            data-testid="field-type"
          />
          {form.values.type === 'select' && (
            <TagsInput
              label={t('groups.fields.options')}
              withAsterisk
              description={editing ? t('groups.fields.dropsValues') : t('groups.fields.optionsHint')}
              placeholder={t('groups.fields.optionsHint')}
              value={options}
              maxTags={MAX_FIELD_OPTIONS}
              maxLength={MAX_FIELD_VALUE}
              onChange={(list) => form.setFieldValue('options', list.join(SEP))}
              onBlur={optionsProps.onBlur}
              error={optionsProps.error}
              acceptValueOnBlur
              data-testid="field-options"
            />
          )}
          <FormActions submitting={submitting} onCancel={onClose} submitTestId="field-save" />
        </Stack>
      </form>
    </Modal>
  );
}

/**
 * Custom device fields (/device-field/index, issue 23): the fields of the caller's organisations, added,
 * renamed (a choice field's options changed) and deleted under `device_field`.
 */
export function DeviceFieldsPage() {
  const { t } = useTranslation();
  const can = useCan();
  const [reload, setReload] = useState(0);
  const [draft, setDraft] = useState<Draft>();
  const [deleting, setDeleting] = useState<DeviceFieldView>();
  const [orgs, setOrgs] = useState<readonly Organization[]>([]);
  useEffect(() => {
    orgApi.list(1, 100).then((p) => setOrgs(p.list), () => undefined);
  }, []);
  const orgName = useCallback((id: number) => orgs.find((o) => o.id === id)?.name ?? '', [orgs]);

  // The server answers every field at once (at most 30 per organisation); the table pages them here.
  const load = useCallback(async (q: ListQuery) => {
    const all = await deviceFieldApi.list();
    const start = (q.pageNum - 1) * q.pageSize;
    return { list: all.slice(start, start + q.pageSize), total: all.length };
  }, []);

  const columns = useMemo(
    (): DataColumn<DeviceFieldView>[] => [
      { key: 'name', title: t('groups.fields.name'), fixed: true, render: (f) => f.name },
      { key: 'type', title: t('groups.fields.type'), render: (f) => t(`groups.fields.types.${f.type}`), style: { whiteSpace: 'nowrap' } },
      {
        key: 'options',
        title: t('groups.fields.options'),
        render: (f) => (
          <Group gap={4}>
            {f.options.map((o) => (
              <Badge key={o} variant="light" tt="none">
                {o}
              </Badge>
            ))}
          </Group>
        ),
      },
      { key: 'org', title: t('groups.fields.org'), render: (f) => orgName(f.orgId), style: { whiteSpace: 'nowrap' } },
    ],
    [t, orgName],
  );

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    setReload((n) => n + 1);
  };
  const remove = () => {
    const f = deleting;
    setDeleting(undefined);
    if (f) void deviceFieldApi.remove(f.id).then(() => done(t('groups.fields.deleted')), () => undefined);
  };
  const manage = can(FIELD_KEY);

  return (
    <>
      <Title order={3} mb="xs">
        {t('route.deviceFields')}
      </Title>
      <Text size="sm" c="dimmed" mb="md" maw={900}>
        {t('groups.fields.intro')}
      </Text>
      {manage && (
        <Group mb="md">
          <Button onClick={() => setDraft({})} data-testid="field-add">
            {t('groups.fields.add')}
          </Button>
        </Group>
      )}
      <DataTable<DeviceFieldView, number>
        id="device-fields"
        testId="field-table"
        columns={columns}
        rowKey={(f) => f.id}
        rowProps={(f) => ({ 'data-field': f.name })}
        load={load}
        reload={reload}
        emptyText={t('groups.fields.empty')}
        actions={
          manage
            ? (f) => (
                <>
                  <Button size="compact-xs" variant="light" onClick={() => setDraft({ field: f })} data-testid="field-edit">
                    {t('groups.fields.edit')}
                  </Button>
                  <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(f)} data-testid="field-delete">
                    {t('groups.fields.delete')}
                  </Button>
                </>
              )
            : undefined
        }
      />
      {draft && (
        <FieldDialog
          draft={draft}
          onClose={() => setDraft(undefined)}
          onSaved={(f) => {
            setDraft(undefined);
            done(t('groups.fields.saved', { name: f.name }));
          }}
        />
      )}
      <ConfirmDialog
        opened={deleting !== undefined}
        title={t('groups.fields.delete')}
        message={t('groups.fields.deleteConfirm', { name: deleting?.name ?? '' })}
        onConfirm={remove}
        onCancel={() => setDeleting(undefined)}
        danger
        confirmTestId="field-delete-confirm"
      />
    </>
  );
}
