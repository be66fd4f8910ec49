import { Button, Checkbox, Group, Menu, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_GROUP_NAME } from '../../../protocol/api/groups.ts';
import { type SavedView, type SavedViewState, viewApi } from '../../api/groups.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { notifications } from '../../layout/toast.ts';
import type { DeviceColumn } from './DeviceRow.tsx';
import { FormActions } from '../../components/FormActions.tsx';

interface Props {
  /** The list as it stands: what "Save view" saves. */
  readonly current: SavedViewState;
  /** Puts a saved view's filters, columns and sort on the list. */
  readonly onLoad: (state: SavedViewState) => void;
  /** Every column the list can show, and which are hidden now. */
  readonly columns: readonly DeviceColumn[];
  readonly hidden: ReadonlySet<string>;
  readonly onHidden: (hidden: ReadonlySet<string>) => void;
  readonly title: (c: DeviceColumn) => string;
}

type Values = { name: string; shared: string };

/** Saved views of the device list (issue 23): load, save (private or shared) and delete, and the visible columns. */
export function SavedViewsBar({ current, onLoad, columns, hidden, onHidden, title }: Props) {
  const { t } = useTranslation();
  const [views, setViews] = useState<readonly SavedView[]>([]);
  const [chosen, setChosen] = useState<number>();
  const [saving, setSaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const reload = useCallback(() => viewApi.list().then(setViews, () => setViews([])), []);
  useEffect(() => void reload(), [reload]);
  const view = views.find((v) => v.id === chosen);

  const { form, field, onSubmit, submitting } = useConsoleForm<Values>({
    initialValues: { name: '', shared: '' },
    rules: { name: [rules.required(), rules.maxLength(MAX_GROUP_NAME), rules.noEmoji()] },
    serverKeys: { 'view.nameTaken': 'name' },
  });
  const openSave = () => {
    // Saving over the loaded view of one's own keeps its name and sharing; otherwise a new view.
    form.setValues(view?.mine ? { name: view.name, shared: view.shared ? '1' : '' } : { name: '', shared: '' });
    form.clearErrors();
    setSaving(true);
  };
  const save = async (v: Values) => {
    const name = v.name.trim();
    const over = view?.mine && view.name === name ? view.id : undefined;
    const saved = await viewApi.save({ ...(over ? { id: over } : {}), name, shared: v.shared === '1', state: current });
    setSaving(false);
    await reload();
    setChosen(saved.id);
    notifications.show({ color: 'green', message: t('groups.view.saved', { name: saved.name }), autoClose: TOAST_MS });
  };

  return (
    <Group gap="xs" mb="sm" align="flex-end" data-testid="saved-views">
      <Select
        w={240}
        label={t('groups.view.label')}
        placeholder={views.length === 0 ? t('groups.view.none') : t('groups.view.placeholder')}
        data={views.map((v) => ({ value: String(v.id), label: v.shared && !v.mine ? `${v.name} (${v.owner})` : v.shared ? `${v.name} · ${t('groups.view.sharedTag')}` : v.name }))}
        value={chosen === undefined ? null : String(chosen)}
        onChange={(v) => {
          const next = views.find((x) => String(x.id) === v);
          setChosen(next?.id);
          if (next) onLoad(next.state);
        }}
        clearable
        data-testid="saved-view-select"
      />
      <Button variant="light" onClick={openSave} data-testid="saved-view-save">
        {t('groups.view.save')}
      </Button>
      {view?.mine && (
        <Button variant="subtle" color="red" onClick={() => setDeleting(true)} data-testid="saved-view-delete">
          {t('groups.view.delete')}
        </Button>
      )}
      <Menu closeOnItemClick={false} position="bottom-start" withinPortal>
        <Menu.Target>
          <Button variant="default" data-testid="columns-menu">
            {t('groups.view.columns', { shown: columns.length - hidden.size, total: columns.length })}
          </Button>
        </Menu.Target>
        <Menu.Dropdown mah={360} style={{ overflowY: 'auto' }}>
          {columns.map((c) => (
            <Menu.Item key={c.key} data-testid={`column-${c.key}`}>
              <Checkbox
                label={title(c)}
                checked={!hidden.has(c.key)}
                onChange={(e) => {
                  const next = new Set(hidden);
                  if (e.currentTarget.checked) next.delete(c.key);
                  else next.add(c.key);
                  onHidden(next);
                }}
              />
            </Menu.Item>
          ))}
        </Menu.Dropdown>
      </Menu>

      <Modal opened={saving} onClose={() => setSaving(false)} title={t('groups.view.saveTitle')} centered>
        <form onSubmit={onSubmit(save)}>
          <Stack>
            <TextInput label={t('groups.view.name')} withAsterisk {...field('name')} data-testid="saved-view-name" />
            <Checkbox
              label={t('groups.view.shared')}
              checked={form.values.shared === '1'}
              onChange={(e) => form.setFieldValue('shared', e.currentTarget.checked ? '1' : '')}
              data-testid="saved-view-shared"
            />
            <FormActions submitting={submitting} onCancel={() => setSaving(false)} submitTestId="saved-view-submit" />
          </Stack>
        </form>
      </Modal>
      <ConfirmDialog
        opened={deleting}
        title={t('groups.view.delete')}
        message={t('groups.view.deleteConfirm', { name: view?.name ?? '' })}
        danger
        onCancel={() => setDeleting(false)}
        onConfirm={() => {
          setDeleting(false);
          if (!view) return;
          void viewApi.remove(view.id).then(() => {
            setChosen(undefined);
            void reload();
          });
        }}
        confirmTestId="saved-view-delete-confirm"
      />
    </Group>
  );
}
