import { Alert, Button, Group, Modal, ScrollArea, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_ROLE } from '../../../protocol/index.ts';
import type { Page } from '../../api/devices.ts';
import { permitApi, type Role } from '../../api/permits.ts';
import { RequestError, TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { useCan } from '../../state/permissions.ts';
import { checkName, checkOptionalText, MAX_SUMMARY } from './form-rules.ts';
import { buildPermitTree, type PermitNode, togglePermit } from './permission-tree.ts';
import { PermissionTree } from './PermissionTree.tsx';

/** The server's refusal of a duplicate role name (platform-core section 8), shown under the name field. */
const ROLE_NAME_TAKEN = 'Role Name Already Exists';
/** Actions on roles need the screen's key: the server checks `role_list` on every /permit/*Role* call. */
const ROLE_KEY = 'role_list';

interface Draft {
  readonly id?: number;
  readonly name: string;
  readonly summary: string;
  readonly permissions: ReadonlySet<string>;
}

function RoleDialog({ draft, tree, onClose, onSaved }: { draft: Draft; tree: readonly PermitNode[]; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [name, setName] = useState(draft.name);
  const [summary, setSummary] = useState(draft.summary);
  const [selected, setSelected] = useState<ReadonlySet<string>>(draft.permissions);
  const [errors, setErrors] = useState<{ name?: string; summary?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);

  const save = async () => {
    const nameError = checkName(name);
    const summaryError = checkOptionalText(summary, MAX_SUMMARY);
    setErrors({ name: nameError && t(nameError), summary: summaryError && t(summaryError) });
    if (nameError || summaryError) return;
    const input = { name: name.trim(), summary: summary.trim(), permissionList: [...selected] };
    setBusy(true);
    try {
      if (draft.id === undefined) await permitApi.addRole(input);
      else await permitApi.updateRole(draft.id, input);
      onSaved();
    } catch (err) {
      const message = err instanceof RequestError ? err.message : String(err);
      if (message === ROLE_NAME_TAKEN) setErrors({ name: t('authority.roleNameTaken') });
      else setErrors({ form: message });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={t(draft.id === undefined ? 'authority.addRole' : 'authority.editRole')} centered size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Stack>
          {errors.form && (
            <Alert color="red" data-testid="role-form-error">
              {errors.form}
            </Alert>
          )}
          <TextInput
            label={t('authority.roleName')}
            name="roleName"
            value={name}
            error={errors.name}
            // A shown error goes as soon as the value is fixed, so the form does not shift under a click on blur.
            onChange={(e) => {
              const value = e.currentTarget.value;
              setName(value);
              if (errors.name && !checkName(value)) setErrors((x) => ({ ...x, name: undefined }));
            }}
            onBlur={() => {
              const key = checkName(name);
              setErrors((x) => ({ ...x, name: key && t(key) }));
            }}
            withAsterisk
          />
          <Textarea label={t('authority.summary')} name="summary" value={summary} error={errors.summary} onChange={(e) => setSummary(e.currentTarget.value)} autosize minRows={2} />
          <div>
            <Text size="sm" fw={500} mb={4}>
              {t('authority.permissions')}
            </Text>
            <ScrollArea.Autosize mah={360} type="auto" offsetScrollbars>
              <PermissionTree tree={tree} selected={selected} onToggle={(key, checked) => setSelected((s) => togglePermit(tree, s, key, checked))} />
            </ScrollArea.Autosize>
          </div>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              {t('device.cancel')}
            </Button>
            <Button type="submit" loading={busy} data-testid="role-save">
              {t('device.confirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

/** Roles: list with a name filter, add and edit with the permission tree, delete (platform-core sections 2 and 6). */
export function RolePage() {
  const { t } = useTranslation();
  const can = useCan();
  const [filter, setFilter] = useState('');
  const [name] = useDebouncedValue(filter.trim(), 300);
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [page, setPage] = useState<Page<Role>>();
  const [tree, setTree] = useState<PermitNode[]>([]);
  const [labels, setLabels] = useState<ReadonlyMap<string, string>>(new Map());
  const [draft, setDraft] = useState<Draft>();
  const [deleting, setDeleting] = useState<Role>();

  const load = useCallback(() => {
    permitApi.roleList(pageNum, pageSize, name || undefined).then(setPage, () => undefined);
  }, [name, pageNum, pageSize]);
  useEffect(load, [load]);
  useEffect(() => {
    permitApi.allPermits().then(
      (entries) => {
        setTree(buildPermitTree(entries));
        setLabels(new Map(entries.map((e) => [e.id, e.label])));
      },
      () => undefined,
    );
  }, []);

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    load();
  };

  const edit = (role: Role) => {
    permitApi.permitsByRole(role.id).then(
      (keys) => setDraft({ id: role.id, name: role.name, summary: role.summary, permissions: new Set(keys) }),
      () => undefined,
    );
  };

  const remove = async () => {
    if (!deleting) return;
    const role = deleting;
    setDeleting(undefined);
    await permitApi.deleteRole(role.id).then(() => done(t('authority.deleted')), () => undefined);
  };

  const summaryOf = useMemo(
    () => (role: Role) => {
      const shown = role.permissionList.slice(0, 4).map((k) => labels.get(k) ?? k);
      const more = role.permissionList.length - shown.length;
      return more > 0 ? `${shown.join(', ')} ${t('authority.more', { count: more })}` : shown.join(', ');
    },
    [labels, t],
  );

  return (
    <>
      <Title order={3} mb="md">
        {t('route.roleManage')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('authority.searchRole')} value={filter} onChange={(e) => (setFilter(e.currentTarget.value), setPageNum(1))} data-testid="role-filter" />
        {can(ROLE_KEY) && (
          <Button onClick={() => setDraft({ name: '', summary: '', permissions: new Set() })} data-testid="role-add">
            {t('authority.addRole')}
          </Button>
        )}
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('authority.roleName')}</Table.Th>
            <Table.Th>{t('authority.summary')}</Table.Th>
            <Table.Th>{t('authority.permissions')}</Table.Th>
            <Table.Th>{t('authority.createdBy')}</Table.Th>
            <Table.Th>{t('device.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((role) => (
            <Table.Tr key={role.id} data-role={role.name}>
              <Table.Td>{role.name}</Table.Td>
              <Table.Td>{role.summary}</Table.Td>
              <Table.Td>
                <Text size="xs" c="dimmed" lineClamp={2}>
                  {summaryOf(role)}
                </Text>
              </Table.Td>
              <Table.Td>{role.createdBy}</Table.Td>
              <Table.Td>
                {role.name !== ADMIN_ROLE && can(ROLE_KEY) && (
                  <Group gap={4} wrap="nowrap">
                    <Button size="compact-xs" variant="light" onClick={() => edit(role)}>
                      {t('authority.edit')}
                    </Button>
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(role)}>
                      {t('authority.delete')}
                    </Button>
                  </Group>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter
        shown={page?.list.length}
        total={page?.total}
        emptyText={t('authority.noRoles')}
        {...paging.footer}
      />
      {draft && (
        <RoleDialog
          draft={draft}
          tree={tree}
          onClose={() => setDraft(undefined)}
          onSaved={() => {
            setDraft(undefined);
            done(t('authority.saved'));
          }}
        />
      )}
      <ConfirmDialog
        opened={deleting !== undefined}
        title={t('authority.delete')}
        message={t('authority.deleteRoleConfirm', { name: deleting?.name ?? '' })}
        onConfirm={() => void remove()}
        onCancel={() => setDeleting(undefined)}
        danger
        confirmTestId="role-confirm"
      />
    </>
  );
}
