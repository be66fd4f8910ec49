import { Badge, Button, Code, Group, Menu, Modal, PasswordInput, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import type { Page } from '../../../protocol/api/devices.ts';
import { hashPassword } from '../../api/auth.ts';
import { type DeviceTotals, type Organization, type OrganizationDetail, orgApi, type OrgSortKey } from '../../api/orgs.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery, type Selection } from '../../components/DataTable.tsx';
import { rules, useConsoleForm } from '../../components/use-console-form.ts';
import { formatDateTime } from '../../format/date.ts';
import { notifications } from '../../layout/toast.ts';
import { session } from '../../state/session.ts';
import { checkPassword } from '../../validation/login-rules.ts';
import { OrgFormDialog } from './OrgFormDialog.tsx';
import { FormActions } from '../../components/FormActions.tsx';

const FROZEN = 2;
const ALL_PAGE = 100;

/** Orders a page of organisations as a tree (parents before children) with each one's depth. */
export function asTree(list: readonly Organization[]): { row: Organization; depth: number }[] {
  const ids = new Set(list.map((o) => o.id));
  const children = new Map<number | null, Organization[]>();
  for (const o of list) {
    const parent = o.parentId !== null && ids.has(o.parentId) ? o.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), o]);
  }
  const out: { row: Organization; depth: number }[] = [];
  const walk = (parent: number | null, depth: number) => {
    for (const row of children.get(parent) ?? []) {
      out.push({ row, depth });
      walk(row.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** A random password that fits the login rule (4 to 16 word characters): 14 characters from 62. */
function randomPassword(): string {
  const chars = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `Rp${[...bytes].map((b) => chars[b % chars.length]).join('')}`;
}

type Confirm = { org: Organization; action: 'delete' | 'freeze' | 'reset' | 'kick' } | { action: 'freezeSelected'; selection: Selection<number> };

/** Organisation management (platform-core sections 2 and 6): add, edit, view, change password, freeze, delete, reset password, report, all-online and kick-out. */
export function OrganizationPage() {
  const { t } = useTranslation();
  const user = useSnapshot(session).user;
  const [filter, setFilter] = useState('');
  const [name] = useDebouncedValue(filter.trim(), 300);
  const [reload, setReload] = useState(0);
  const [loaded, setLoaded] = useState<readonly Organization[]>([]);
  const [allOnline, setAllOnline] = useState<number>();
  const [edit, setEdit] = useState<'add' | Organization>();
  const [viewed, setViewed] = useState<OrganizationDetail>();
  const [report, setReport] = useState<{ org: Organization; totals: DeviceTotals }>();
  const [passwordOf, setPasswordOf] = useState<Organization>();
  const [resetDone, setResetDone] = useState<{ account: string; password: string }>();
  const [confirm, setConfirm] = useState<Confirm>();

  const refresh = useCallback(() => setReload((n) => n + 1), []);
  useEffect(() => {
    orgApi.allOnline().then(setAllOnline, () => setAllOnline(undefined));
  }, [reload]);

  const load = useCallback(
    async (q: ListQuery): Promise<Page<Organization>> => {
      const page = await orgApi.query({ pageNum: q.pageNum, pageSize: q.pageSize, name, orderBy: q.sort?.key as OrgSortKey | undefined, order: q.sort?.order });
      setLoaded(page.list);
      return page;
    },
    [name],
  );

  const done = (message: string) => {
    notifications.show({ color: 'green', message, autoClose: TOAST_MS });
    refresh();
  };
  const isOwn = (org: Organization) => org.id === user?.orgId || org.parentId === null;

  const act = async () => {
    if (!confirm) return;
    setConfirm(undefined);
    if (confirm.action === 'freezeSelected') {
      const ids = confirm.selection.allMatching ? await allMatchingIds() : confirm.selection.ids;
      const below = ids.filter((id) => id !== user?.orgId);
      let frozen = 0;
      for (const id of below) {
        await orgApi.freeze(id, FROZEN).then(() => frozen++, () => undefined);
      }
      done(t('org.frozenCount', { count: frozen }));
      return;
    }
    const { org, action } = confirm;
    if (action === 'delete') await orgApi.remove(org.id).then(() => done(t('org.done')), () => undefined);
    else if (action === 'freeze') await orgApi.freeze(org.id, org.freezeState === FROZEN ? 1 : 2).then(() => done(t('org.done')), () => undefined);
    else if (action === 'kick') await orgApi.kickOut(org.accountId ?? 0).then((r) => done(t('org.kickedOut', { count: r.sessions, account: org.account })), () => undefined);
    else if (action === 'reset') {
      const password = randomPassword();
      await orgApi.resetPassword(org.id, await hashPassword(password)).then(
        () => {
          setResetDone({ account: org.account, password });
          refresh();
        },
        () => undefined,
      );
    }
  };

  /** Every organisation matching the filter, page by page (the "select all N matching" choice). */
  const allMatchingIds = async (): Promise<number[]> => {
    const ids: number[] = [];
    for (let pageNum = 1; ; pageNum++) {
      const page = await orgApi.query({ pageNum, pageSize: ALL_PAGE, name });
      ids.push(...page.list.map((o) => o.id));
      if (page.list.length < ALL_PAGE || ids.length >= page.total) return ids;
    }
  };

  const columns = useMemo<DataColumn<Organization>[]>(
    () => [
      // Long names wrap, so the table fits the page at 1366 px instead of sliding columns under the actions.
      { key: 'name', title: t('org.name'), sortable: true, fixed: true, render: (o) => <Text size="sm" fw={500}>{o.name}</Text>, style: { minWidth: 140, maxWidth: 240 } },
      { key: 'alias', title: t('org.alias'), render: (o) => o.alias, hiddenByDefault: true },
      { key: 'account', title: t('org.account'), render: (o) => o.account },
      { key: 'role', title: t('org.role'), render: (o) => o.role },
      {
        key: 'devices',
        title: t('org.devices'),
        render: (o) => (
          <Text size="sm" style={{ whiteSpace: 'nowrap' }} data-testid="org-devices">
            {o.total} ({t('org.online')} {o.online})
          </Text>
        ),
      },
      {
        key: 'state',
        title: t('org.state'),
        render: (o) => (
          <Badge color={o.freezeState === FROZEN ? 'red' : 'green'} variant="light" data-testid="org-state" style={{ minWidth: 'max-content', textTransform: 'none' }}>
            {t(o.freezeState === FROZEN ? 'org.frozen' : 'org.normal')}
          </Badge>
        ),
      },
      { key: 'contactPerson', title: t('org.contact'), render: (o) => o.contactPerson },
      { key: 'phone', title: t('org.phone'), render: (o) => o.phone, hiddenByDefault: true },
      { key: 'email', title: t('org.email'), render: (o) => o.email, hiddenByDefault: true },
      { key: 'expireTime', title: t('org.expireTime'), sortable: true, render: (o) => (o.expireTime === null ? t('org.noExpiry') : formatDateTime(o.expireTime).slice(0, 10)), style: { whiteSpace: 'nowrap' } },
      { key: 'createdAt', title: t('org.createdAt'), sortable: true, render: (o) => formatDateTime(o.createdAt), hiddenByDefault: true, style: { whiteSpace: 'nowrap' } },
    ],
    [t],
  );

  const view = (org: Organization) => void orgApi.get(org.id).then(setViewed, () => undefined);
  const showReport = (org: Organization) => void orgApi.report(org.id).then((totals) => setReport({ org, totals }), () => undefined);

  const actions = (org: Organization) => {
    const own = isOwn(org);
    return (
      <>
        <Button size="compact-xs" variant="subtle" onClick={() => view(org)} data-testid="org-view">
          {t('org.view')}
        </Button>
        <Button size="compact-xs" variant="subtle" onClick={() => setEdit(org)} data-testid="org-edit">
          {t('org.editShort')}
        </Button>
        {!own && (
          <Button size="compact-xs" variant="light" onClick={() => setConfirm({ org, action: 'freeze' })} data-testid="org-freeze">
            {t(org.freezeState === FROZEN ? 'org.unfreeze' : 'org.freeze')}
          </Button>
        )}
        <Menu position="bottom-end" withinPortal>
          <Menu.Target>
            <Button size="compact-xs" variant="default" data-testid="org-more">
              {t('org.more')}
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => showReport(org)} data-testid="org-report">
              {t('org.report')}
            </Menu.Item>
            {!own && (
              <>
                <Menu.Item onClick={() => setPasswordOf(org)} data-testid="org-password">
                  {t('org.changePassword')}
                </Menu.Item>
                <Menu.Item onClick={() => setConfirm({ org, action: 'reset' })} data-testid="org-reset">
                  {t('org.resetPassword')}
                </Menu.Item>
                {org.accountId !== null && (
                  <Menu.Item onClick={() => setConfirm({ org, action: 'kick' })} data-testid="org-kick">
                    {t('org.kickOut')}
                  </Menu.Item>
                )}
                <Menu.Divider />
                <Menu.Item color="red" onClick={() => setConfirm({ org, action: 'delete' })} data-testid="org-delete">
                  {t('org.delete')}
                </Menu.Item>
              </>
            )}
          </Menu.Dropdown>
        </Menu>
      </>
    );
  };

  const confirmText = (): { title: string; message: string } => {
    if (!confirm) return { title: '', message: '' };
    if (confirm.action === 'freezeSelected') return { title: t('org.freezeSelected'), message: t('org.freezeSelectedConfirm', { count: confirm.selection.count }) };
    const { org, action } = confirm;
    switch (action) {
      case 'delete':
        return { title: t('org.delete'), message: t('org.deleteConfirm', { name: org.name }) };
      case 'freeze':
        return { title: t(org.freezeState === FROZEN ? 'org.unfreeze' : 'org.freeze'), message: t('org.freezeConfirm', { name: org.name }) };
      case 'reset':
        return { title: t('org.resetPassword'), message: t('org.resetConfirm', { name: org.name }) };
      case 'kick':
        return { title: t('org.kickOut'), message: t('org.kickConfirm', { name: org.name, account: org.account }) };
    }
  };

  return (
    <>
      <Group justify="space-between" mb="md" wrap="nowrap">
        <Title order={3}>{t('route.organizationManagement')}</Title>
        {allOnline !== undefined && (
          <Badge variant="light" size="lg" data-testid="org-all-online" style={{ textTransform: 'none' }}>
            {t('org.allOnline', { count: allOnline })}
          </Badge>
        )}
      </Group>
      <DataTable<Organization, number>
        id="organizations"
        testId="org-table"
        columns={columns}
        rowKey={(o) => o.id}
        load={load}
        filterKey={name}
        reload={reload}
        defaultSort="id"
        arrange={(rows) => asTree(rows)}
        rowProps={(o) => ({ 'data-org': o.name })}
        emptyText={t('org.empty')}
        actions={actions}
        toolbar={(selection, clear) => (
          <>
            <TextInput size="xs" placeholder={t('org.search')} value={filter} onChange={(e) => setFilter(e.currentTarget.value)} maxLength={128} data-testid="org-search" />
            <Button size="xs" onClick={() => setEdit('add')} data-testid="org-add">
              {t('org.add')}
            </Button>
            <Button
              size="xs"
              variant="light"
              color="red"
              disabled={selection.count === 0}
              onClick={() => {
                setConfirm({ action: 'freezeSelected', selection });
                clear();
              }}
              data-testid="org-freeze-selected"
            >
              {t('org.freezeSelected')}
              {selection.count > 0 ? ` (${selection.count})` : ''}
            </Button>
          </>
        )}
      />
      <OrgFormDialog
        target={edit}
        parents={asTree(loaded)}
        ownOrgId={user?.orgId}
        onClose={() => setEdit(undefined)}
        onSaved={() => {
          setEdit(undefined);
          done(t('org.saved'));
        }}
      />
      <Modal opened={viewed !== undefined} onClose={() => setViewed(undefined)} title={t('org.details')} centered size="lg">
        {viewed && <OrgDetails org={viewed} />}
      </Modal>
      <Modal opened={report !== undefined} onClose={() => setReport(undefined)} title={report ? t('org.reportTitle', { name: report.org.name }) : ''} centered>
        {report && (
          <SimpleGrid cols={3} data-testid="org-report-totals">
            {(['total', 'online', 'offline'] as const).map((k) => (
              <Stack key={k} gap={0} align="center">
                <Text size="xl" fw={700} data-testid={`org-report-${k}`}>
                  {report.totals[k]}
                </Text>
                <Text size="sm" c="dimmed">
                  {t(`org.${k}`)}
                </Text>
              </Stack>
            ))}
          </SimpleGrid>
        )}
      </Modal>
      <OrgPasswordDialog org={passwordOf} onClose={() => setPasswordOf(undefined)} onDone={(org) => (setPasswordOf(undefined), done(t('org.passwordChanged', { name: org.name })))} />
      <Modal opened={resetDone !== undefined} onClose={() => setResetDone(undefined)} title={resetDone ? t('org.resetDone', { account: resetDone.account }) : ''} centered>
        <Stack>
          <Code fz="lg" data-testid="org-reset-password">
            {resetDone?.password}
          </Code>
          <Text size="sm">{t('org.resetHint')}</Text>
          <Group justify="flex-end">
            <Button onClick={() => setResetDone(undefined)} data-testid="org-reset-close">
              {t('org.close')}
            </Button>
          </Group>
        </Stack>
      </Modal>
      <ConfirmDialog {...confirmText()} opened={confirm !== undefined} onConfirm={() => void act()} onCancel={() => setConfirm(undefined)} danger confirmTestId="org-confirm" />
    </>
  );
}

function OrgDetails({ org }: { org: OrganizationDetail }) {
  const { t } = useTranslation();
  const rows: [string, React.ReactNode][] = [
    [t('org.name'), org.name],
    [t('org.alias'), org.alias],
    [t('org.account'), org.account],
    [t('org.role'), org.role],
    [t('org.customerType'), t(org.customerType === 1 ? 'org.customerType1' : 'org.customerType2')],
    [t('org.contact'), org.contactPerson],
    [t('org.phone'), org.phone],
    [t('org.email'), org.email],
    [t('org.expireTime'), org.expireTime === null ? t('org.noExpiry') : formatDateTime(org.expireTime).slice(0, 10)],
    [t('org.createdAt'), formatDateTime(org.createdAt)],
    [t('org.devices'), `${org.total} (${t('org.online')} ${org.online})`],
    [t('org.remark'), org.remark],
    [t('org.publicKey'), org.publicKey ? <Code block>{org.publicKey}</Code> : ''],
    [t('org.enrollKey'), <Code key="k">{org.enrollKey}</Code>],
  ];
  return (
    <Table data-testid="org-details" withRowBorders={false} verticalSpacing={4}>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Td c="dimmed" w={160} style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
              {label}
            </Table.Td>
            <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Change password: the caller types the organisation login's new password (sent as its hash to /org/restpassword). */
function OrgPasswordDialog({ org, onClose, onDone }: { org: Organization | undefined; onClose: () => void; onDone: (org: Organization) => void }) {
  const { t } = useTranslation();
  const { form, field, onSubmit, submitting } = useConsoleForm({
    initialValues: { next: '', confirm: '' },
    rules: {
      next: [rules.key(checkPassword)],
      confirm: [(v, values) => (v === values.next ? undefined : { key: 'password.inconsistent' })],
    },
  });
  const close = () => {
    form.reset();
    onClose();
  };
  return (
    <Modal opened={org !== undefined} onClose={close} title={org ? `${t('org.changePassword')}: ${org.name}` : ''} centered>
      <form
        onSubmit={onSubmit(async (v) => {
          if (!org) return;
          await orgApi.resetPassword(org.id, await hashPassword(v.next), true);
          form.reset();
          onDone(org);
        })}
      >
        <Stack>
          <PasswordInput label={t('org.newPassword')} {...field('next')} name="org-password-next" maxLength={16} />
          <PasswordInput label={t('org.confirmPassword')} {...field('confirm')} name="org-password-confirm" maxLength={16} />
          <FormActions submitting={submitting} onCancel={close} submitTestId="org-password-save" />
        </Stack>
      </form>
    </Modal>
  );
}
