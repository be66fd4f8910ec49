import { Button, Group, Modal, ScrollArea, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ADMIN_ROLE } from '../../../protocol/index.ts';
import { permitApi, type Role } from '../../api/permits.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { useCan } from '../../state/permissions.ts';
import { MAX_SUMMARY } from './form-rules.ts';
import { buildPermitTree, type PermitNode, togglePermit } from './permission-tree.ts';
import { PermissionTree } from './PermissionTree.tsx';
import { FormActions } from '../../components/FormActions.tsx';

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
  const [selected, setSelected] = useState<ReadonlySet<string>>(draft.permissions);
  const { field, onSubmit, submitting } = useConsoleForm<{ name: string; summary: string }>({
    initialValues: { name: draft.name, summary: draft.summary },
    rules: {
      name: [rules.required(), rules.maxLength(), rules.noEmoji()],
      summary: [rules.maxLength(MAX_SUMMARY), rules.noEmoji()],
    },
    // The server's refusal of a duplicate name (platform-core section 8) shows under the name, in either language.
    serverKeys: { 'permit.roleNameTaken': 'name' },
  });

  const save = async (v: { name: string; summary: string }) => {
    const input = { name: v.name.trim(), summary: v.summary.trim(), permissionList: [...selected] };
    if (draft.id === undefined) await permitApi.addRole(input);
    else await permitApi.updateRole(draft.id, input);
    onSaved();
  };

  return (
    <Modal opened onClose={onClose} title={t(draft.id === undefined ? 'authority.addRole' : 'authority.editRole')} centered size="lg">
      <form onSubmit={onSubmit(save)} noValidate>
        <Stack>
          <TextInput label={t('authority.roleName')} withAsterisk {...field('name')} name="roleName" />
          <Textarea label={t('authority.summary')} autosize minRows={2} {...field('summary')} />
          <div>
            <Text size="sm" fw={500} mb={4}>
              {t('authority.permissions')}
            </Text>
            <ScrollArea.Autosize mah={360} type="auto" offsetScrollbars>
              <PermissionTree tree={tree} selected={selected} onToggle={(key, checked) => setSelected((s) => togglePermit(tree, s, key, checked))} />
            </ScrollArea.Autosize>
          </div>
          <FormActions submitting={submitting} onCancel={onClose} submitTestId="role-save" />
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
  const [reload, setReload] = useState(0);
  const [tree, setTree] = useState<PermitNode[]>([]);
  const [labels, setLabels] = useState<ReadonlyMap<string, string>>(new Map());
  const [draft, setDraft] = useState<Draft>();
  const [deleting, setDeleting] = useState<Role>();

  const load = useCallback((q: ListQuery) => permitApi.roleList(q.pageNum, q.pageSize, name || undefined), [name]);
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
    setReload((n) => n + 1);
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

  const columns = useMemo((): DataColumn<Role>[] => {
    const summaryOf = (role: Role) => {
      const shown = role.permissionList.slice(0, 4).map((k) => labels.get(k) ?? k);
      const more = role.permissionList.length - shown.length;
      return more > 0 ? `${shown.join(', ')} ${t('authority.more', { count: more })}` : shown.join(', ');
    };
    return [
      { key: 'name', title: t('authority.roleName'), fixed: true, render: (r) => r.name },
      { key: 'summary', title: t('authority.summary'), render: (r) => r.summary },
      {
        key: 'permissions',
        title: t('authority.permissions'),
        render: (r) => (
          <Text size="xs" c="dimmed" lineClamp={2}>
            {summaryOf(r)}
          </Text>
        ),
      },
      { key: 'createdBy', title: t('authority.createdBy'), render: (r) => r.createdBy },
    ];
  }, [labels, t]);

  const manage = can(ROLE_KEY);
  return (
    <>
      <Title order={3} mb="md">
        {t('route.roleManage')}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('authority.searchRole')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} data-testid="role-filter" />
        {manage && (
          <Button onClick={() => setDraft({ name: '', summary: '', permissions: new Set() })} data-testid="role-add">
            {t('authority.addRole')}
          </Button>
        )}
      </Group>
      <DataTable<Role, number>
        id="roles"
        columns={columns}
        rowKey={(r) => r.id}
        rowProps={(r) => ({ 'data-role': r.name })}
        load={load}
        filterKey={name}
        reload={reload}
        emptyText={t('authority.noRoles')}
        actions={
          manage
            ? (role) =>
                role.name !== ADMIN_ROLE && (
                  <>
                    <Button size="compact-xs" variant="light" onClick={() => edit(role)}>
                      {t('authority.edit')}
                    </Button>
                    <Button size="compact-xs" variant="subtle" color="red" onClick={() => setDeleting(role)}>
                      {t('authority.delete')}
                    </Button>
                  </>
                )
            : undefined
        }
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
