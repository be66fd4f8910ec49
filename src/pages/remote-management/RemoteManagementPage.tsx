import { Badge, Button, Card, Checkbox, Group, Modal, SegmentedControl, Select, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { notifications } from '../../layout/toast.ts';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSnapshot } from 'valtio';
import type { PushStarted } from '../../../protocol/api/campaigns.ts';
import { Command, commandPermission, refusedOnSystem, DownloadState, downloadStateLabels, failureText, InstallResult, installResultLabels, labelOf, OnlineState, onlineStateLabels, Result, resultLabels, systemTypeLabels, wipesDevice } from '../../../protocol/index.ts';
import { type ContentArea, contentApi, type ContentItem, followPushes } from '../../api/content.ts';
import { cleanFilter, deviceApi, type DeviceFilter } from '../../api/devices.ts';
import { TOAST_MS } from '../../api/request.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { currentLanguage } from '../../i18n/index.ts';
import { deviceChannel } from '../../devices/channel.ts';
import { clickAllowed } from '../../devices/commands.ts';
import { session } from '../../state/session.ts';
import { MessageDialog } from '../device-management/DeviceDialogs.tsx';
import { useDeviceRows } from '../device-management/device-rows.ts';
import { useOnlineState } from '../../devices/hooks.ts';
import { BulkRun, linuxAmong, parsePackages } from './bulk-run.ts';
import { approvalApi } from '../../api/approvals.ts';
import { deviceOpsApi } from '../../api/device-ops.ts';
import { MAX_BULK_SNS } from '../../../protocol/api/device-ops.ts';
import { type PushOutcome, type PushPlan, PushRun, type RunResults, useRunResults } from './push-run.ts';

const ROW = 36;

/**
 * The bulk actions of remote management (devices-and-commerce section 6). The key each needs and whether
 * it is asked in red (it wipes the device) come from the command's entry in the protocol catalogue (`COMMAND_RIGHTS`).
 */
const ACTIONS = Object.fromEntries(
  Object.entries({ reset: Command.FactoryReset, message: Command.PushText, reboot: Command.Reboot, clear: Command.ClearData, whitelist: Command.Whitelist }).map(([name, msgId]) => [
    name,
    { msgId, key: commandPermission(msgId) ?? '', danger: wipesDevice(msgId) },
  ]),
) as Record<'reset' | 'message' | 'reboot' | 'clear' | 'whitelist', { readonly msgId: number; readonly key: string; readonly danger: boolean }>;
type ActionName = keyof typeof ACTIONS;

/** The pushes of remote management (devices-and-commerce section 6), the content area each picks from and its push key. */
const PUSHES = {
  firmware: { area: 'img', key: 'img_push', listKey: 'img_list' },
  app: { area: 'app', key: 'app_push', listKey: 'app_list' },
  file: { area: 'file', key: 'file_push', listKey: 'file_list' },
} as const satisfies Record<string, { area: ContentArea; key: string; listKey: string }>;
type PushKind = keyof typeof PUSHES;

/** The server calls a push run makes. */
const pushPorts = {
  start: contentApi.startPush,
  readLog: (campaignId: number, pageNum: number, pageSize: number) => contentApi.pushLog({ campaignId, pageNum, pageSize }),
  follow: followPushes,
};

function PickRow({ sn, model, systemType, onlineState, checked, onCheck }: { sn: string; model: string; systemType: string; onlineState: number; checked: boolean; onCheck: (on: boolean) => void }) {
  const state = useOnlineState(sn, onlineState);
  return (
    <Table.Tr style={{ height: ROW }} data-sn={sn}>
      <Table.Td>
        <Checkbox aria-label={sn} checked={checked} onChange={(e) => onCheck(e.currentTarget.checked)} />
      </Table.Td>
      <Table.Td>{sn}</Table.Td>
      <Table.Td>{model}</Table.Td>
      <Table.Td>{labelOf(systemTypeLabels, systemType as 'android' | 'linux')?.[currentLanguage]}</Table.Td>
      <Table.Td>
        <Badge color={state === OnlineState.Online ? 'green' : 'gray'}>{labelOf(onlineStateLabels, state as 1 | 2)?.[currentLanguage]}</Badge>
      </Table.Td>
    </Table.Tr>
  );
}

function OutcomeBadge({ outcome }: { outcome: PushOutcome }) {
  const { t } = useTranslation();
  if (outcome.state === 'waiting') return <Badge color="gray">{t('fleet.remote.waiting')}</Badge>;
  if (outcome.state === 'sent') return <Badge color="blue">{t('fleet.remote.sent')}</Badge>;
  if (outcome.state === 'pushing') return <PushingBadge outcome={outcome} />;
  const label = labelOf(resultLabels, outcome.result)?.[currentLanguage] ?? String(outcome.result);
  // A device's or the gateway's text, in the console's language where it is one of the spec's messages.
  const message = failureText(currentLanguage, { message: outcome.message });
  return (
    <Badge color={outcome.result === Result.Success ? 'green' : 'red'} data-result={outcome.result} title={message}>
      {outcome.result !== Result.Success && message ? message : label}
    </Badge>
  );
}

/** A push under way on one device: a failed attempt the campaign retries, installing, or the download state. */
function PushingBadge({ outcome }: { outcome: Extract<PushOutcome, { state: 'pushing' }> }) {
  const { t } = useTranslation();
  const { downloadState, installResult, progress } = outcome;
  const retrying = downloadState === DownloadState.Failed || downloadState === DownloadState.UpgradeFailed || installResult === InstallResult.Failure;
  const text = retrying
    ? t('fleet.remote.pushRetrying')
    : installResult === InstallResult.Installing
      ? labelOf(installResultLabels, installResult)?.[currentLanguage]
      : `${labelOf(downloadStateLabels, downloadState as 0)?.[currentLanguage] ?? downloadState}${downloadState === DownloadState.Downloading ? ` ${progress}%` : ''}`;
  return (
    <Badge color={retrying ? 'orange' : 'blue'} data-push-state={downloadState} title={failureText(currentLanguage, { message: outcome.message })}>
      {text}
    </Badge>
  );
}

/** The live results of a bulk run or a push: one row per device, filled in as results arrive. */
function ResultsPanel({ run, retrying, onRetry, onClear }: { run: RunResults; retrying: boolean; onRetry: () => void; onClear: () => void }) {
  const { t } = useTranslation();
  useRunResults(run);
  const [onlyFailed, setOnlyFailed] = useState(false);
  const s = run.summary;
  // A command is retried once every device has answered; a failed push is final (its campaign's own
  // retries are spent), so its devices can be pushed again while others are still waiting to come online.
  const canRetry = !retrying && s.failed > 0 && (run instanceof PushRun || s.done >= s.total);
  const shown = onlyFailed ? run.failed : run.sns;
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: shown.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  return (
    <Card withBorder mt="md">
      <Group justify="space-between" mb="xs">
        <Group gap="xs">
          <Title order={5}>{t('fleet.remote.results')}</Title>
          {run instanceof PushRun && (
            <>
              <Text size="sm" data-testid="push-run" data-campaigns={run.campaigns.join(',')}>
                {t('fleet.remote.pushOf', { name: run.plan.contentName, kind: t(`content.kinds.${run.plan.kind}`) })}
              </Text>
              {run.streamStatus === 'reconnecting' && (
                <Badge color="orange" variant="dot" data-testid="push-stream-status">
                  {t('content.streamReconnecting')}
                </Badge>
              )}
            </>
          )}
        </Group>
        <Text size="sm" data-testid="bulk-summary" data-total={s.total} data-done={s.done} data-ok={s.ok} data-failed={s.failed}>
          {t('fleet.remote.summary', { done: s.done, total: s.total, ok: s.ok, failed: s.failed })}
        </Text>
        <Group gap="xs">
          <Checkbox size="xs" label={t('fleet.remote.onlyFailed')} checked={onlyFailed} onChange={(e) => setOnlyFailed(e.currentTarget.checked)} />
          <Button size="compact-sm" variant="light" disabled={!canRetry} onClick={onRetry} data-testid="retry-failed">
            {t('fleet.remote.retryFailed', { count: s.failed })}
          </Button>
          <Button size="compact-sm" variant="default" onClick={onClear}>
            {t('fleet.remote.clearResults')}
          </Button>
        </Group>
      </Group>
      <div ref={scrollRef} style={{ height: 260, overflow: 'auto' }}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const sn = shown[item.index] as string;
            return (
              <Group key={sn} data-testid="outcome" data-sn={sn} style={{ position: 'absolute', top: item.start, height: ROW, left: 0, right: 0 }} px="xs" justify="space-between">
                <Text size="sm">{sn}</Text>
                <OutcomeBadge outcome={run.outcome(sn)} />
              </Group>
            );
          })}
        </div>
      </div>
    </Card>
  );
}

/**
 * Remote management (/remote-management/index): one command to many devices, chosen by selection
 * (control type false) or by query (true), with a live per-device results panel and retry of failures.
 */
export function RemoteManagementPage() {
  const { t } = useTranslation();
  const permissions = useSnapshot(session).permissions;
  const [byQuery, setByQuery] = useState(false);
  const [text, setText] = useState({ sn: '', model: '' });
  const [debounced] = useDebouncedValue(text, 300);
  const [choice, setChoice] = useState<{ onlineState?: number; systemType?: string }>({});
  const filter: DeviceFilter = useMemo(() => ({ sn: debounced.sn.trim() || undefined, model: debounced.model.trim() || undefined, ...choice }), [debounced, choice]);
  const rows = useDeviceRows(filter);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // The Linux devices among those ever picked, so the actions Linux refuses are not offered for a Linux-only selection.
  const [linuxPicked, setLinuxPicked] = useState<ReadonlySet<string>>(new Set());
  const [pending, setPending] = useState<{ action: ActionName; sns: readonly string[]; data?: unknown }>();
  const [messageFor, setMessageFor] = useState<readonly string[]>();
  const [whitelistFor, setWhitelistFor] = useState<readonly string[]>();
  const [whitelist, setWhitelist] = useState({ action: 'set', packages: '', error: '' });
  const [run, setRun] = useState<BulkRun | PushRun>();
  const [pushKind, setPushKind] = useState<PushKind | undefined>();
  const [pushItems, setPushItems] = useState<readonly ContentItem[]>([]);
  const [pushContentId, setPushContentId] = useState<string | null>(null);
  const [pushAsk, setPushAsk] = useState<{ plan: PushPlan; target: PushTarget; count: number; model?: number }>();
  const [retrying, setRetrying] = useState(false);

  // A push run follows its stream until it leaves the panel.
  useEffect(() => () => (run instanceof PushRun ? run.dispose() : undefined), [run]);
  // Choosing content needs its list as well as its push key.
  const pushKinds = (Object.keys(PUSHES) as PushKind[]).filter((k) => permissions.includes(PUSHES[k].key) && permissions.includes(PUSHES[k].listKey));
  const kind = pushKind ?? pushKinds[0];
  useEffect(() => {
    setPushContentId(null);
    setPushItems([]);
    if (!kind) return;
    let cancelled = false;
    contentApi.list(PUSHES[kind].area, { pageNum: 1, pageSize: 100 }).then(
      (p) => !cancelled && setPushItems(p.list.filter((i) => i.type !== 'folder')),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [kind]);
  useEffect(() => setSelected(new Set()), [filter]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const total = rows.total ?? 0;
  const virtualizer = useVirtualizer({ count: total, getScrollElement: () => scrollRef.current, estimateSize: () => ROW, overscan: 10 });
  const items = virtualizer.getVirtualItems();
  const { ensure } = rows;
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;
  useEffect(() => ensure(first, last), [ensure, first, last]);

  // Every target is a Linux device (the query asks for Linux, or each picked device is one): what Linux
  // refuses is not offered. A mixed set keeps the actions; its Linux devices are refused before sending.
  const onlyLinux = byQuery ? choice.systemType === 'linux' : selected.size > 0 && [...selected].every((sn) => linuxPicked.has(sn));

  const toast = (message: string) => notifications.show({ color: 'red', message, autoClose: TOAST_MS });

  /** The devices an action applies to: the selection, or everything the query matches (resolved on the server). */
  const targets = async (): Promise<readonly string[] | undefined> => {
    const sns = byQuery ? (await deviceApi.select(filter)).sns : [...selected];
    if (sns.length === 0) {
      toast(t('fleet.remote.noDevices'));
      return undefined;
    }
    return sns;
  };

  const choose = async (action: ActionName) => {
    if (!clickAllowed(`bulk:${action}`)) return;
    const sns = await targets().catch(() => undefined);
    if (!sns) return;
    if (action === 'message') return setMessageFor(sns);
    if (action === 'whitelist') return (setWhitelist({ action: 'set', packages: '', error: '' }), setWhitelistFor(sns));
    setPending({ action, sns });
  };

  const execute = (action: ActionName, sns: readonly string[], data?: unknown) => {
    const msgId = ACTIONS[action].msgId;
    const orgId = session.user?.orgId;
    // Over the organisation's four-eyes threshold, or a wipe it wants approved (issue 23): the command goes
    // to the server as bulk requests (500 devices each) that wait for a second account, not device by device.
    void (orgId === undefined ? Promise.resolve(undefined) : approvalApi.policy(orgId).catch(() => undefined)).then((policy) => {
      const waits = policy !== undefined && ((policy.wipes && wipesDevice(msgId)) || (policy.bulkOver > 0 && sns.length > policy.bulkOver));
      if (!waits) return runBulk(msgId, sns, data);
      for (let i = 0; i < sns.length; i += MAX_BULK_SNS) {
        const part = sns.slice(i, i + MAX_BULK_SNS);
        deviceOpsApi.bulk(part, msgId, data ?? {}).then(
          (reply) => {
            if (reply.approval) notifications.show({ color: 'blue', message: t('approvals.sentForApproval', { id: reply.approval.id, count: part.length }), autoClose: TOAST_MS });
          },
          () => undefined,
        );
      }
    });
  };

  const runBulk = (msgId: number, sns: readonly string[], data?: unknown) => {
    // Linux devices are refused before sending when the command is one they cannot do (bulk-run.ts).
    void linuxAmong(msgId, filter, deviceApi.select)
      .catch(() => new Set<string>())
      .then((linux) => {
        const next = new BulkRun(deviceChannel(), msgId, sns, data, linux);
        setRun(next);
        next.start();
      });
  };

  /** Asks before a push: the devices are the selection, or the query itself (resolved by the server when it starts). */
  const choosePush = () => {
    if (!clickAllowed('bulk:push')) return;
    const item = pushItems.find((i) => String(i.id) === pushContentId);
    if (!kind || !item) return;
    if ((byQuery ? total : selected.size) === 0) return toast(t('fleet.remote.noDevices'));
    const target: PushTarget = byQuery ? { query: cleanFilter({ ...filter }) } : { sns: [...selected] };
    setPushAsk({ plan: { kind, contentId: item.id, contentName: `${item.name} ${item.version || item.versionName}`.trim() }, target, count: byQuery ? total : selected.size });
  };

  /** Starts the campaign; the server runs the checks before start and answers a model mismatch with a question. */
  const startPush = async (ask: NonNullable<typeof pushAsk>, confirmModelMismatch: boolean) => {
    setPushAsk(undefined);
    const reply = await contentApi.startPush({ kind: ask.plan.kind, contentId: ask.plan.contentId, ...ask.target, confirmModelMismatch }).catch(() => undefined);
    if (!reply) return;
    if ('confirm' in reply) return reply.confirm === 'model' ? setPushAsk({ ...ask, model: reply.mismatchCount }) : undefined;
    follow(ask.plan, reply);
  };

  const follow = (plan: PushPlan, started: PushStarted) => {
    // Over the organisation's push size (issue 23): the devices wait for a second account's approval, and the panel says why.
    if (started.approval) notifications.show({ color: 'blue', message: t('approvals.sentForApproval', { id: started.approval.id, count: started.approval.targetCount }), autoClose: 2 * TOAST_MS });
    const next = new PushRun(plan, started, pushPorts);
    setRun(next);
    next.start();
  };

  const retry = async () => {
    if (!run) return;
    if (!(run instanceof PushRun)) return execute(actionOf(run.msgId), run.failed, run.data);
    setRetrying(true);
    await run.retryFailed().catch(() => undefined);
    setRetrying(false);
  };
  const pendingLabel = pending ? t(`fleet.action.${pending.action === 'reset' ? 'reset' : pending.action}`) : '';

  return (
    <>
      <Title order={3} mb="md">
        {t('fleet.remote.title')}
      </Title>
      <Group mb="sm" align="flex-end">
        <Stack gap={2}>
          <Text size="sm">{t('fleet.remote.controlType')}</Text>
          <SegmentedControl
            value={String(byQuery)}
            onChange={(v) => setByQuery(v === 'true')}
            data={[
              { value: 'false', label: t('fleet.remote.bySelection') },
              { value: 'true', label: t('fleet.remote.byQuery') },
            ]}
            data-testid="control-type"
          />
        </Stack>
        <TextInput w={150} placeholder={t('fleet.filter.sn')} aria-label={t('fleet.filter.sn')} value={text.sn} onChange={(e) => setText({ ...text, sn: e.currentTarget.value })} />
        <TextInput w={150} placeholder={t('fleet.filter.model')} aria-label={t('fleet.filter.model')} value={text.model} onChange={(e) => setText({ ...text, model: e.currentTarget.value })} />
        <Select
          w={130}
          aria-label={t('fleet.col.onlineState')}
          value={choice.onlineState === undefined ? 'all' : String(choice.onlineState)}
          data={[{ value: 'all', label: t('fleet.filter.all') }, ...onlineStateLabels.map((l) => ({ value: String(l.value), label: l[currentLanguage] }))]}
          onChange={(v) => setChoice((c) => ({ ...c, onlineState: v && v !== 'all' ? Number(v) : undefined }))}
          allowDeselect={false}
        />
        <Select
          w={130}
          aria-label={t('fleet.col.systemType')}
          value={choice.systemType ?? 'all'}
          data={[{ value: 'all', label: t('fleet.filter.all') }, ...systemTypeLabels.map((l) => ({ value: l.value, label: l[currentLanguage] }))]}
          onChange={(v) => setChoice((c) => ({ ...c, systemType: v && v !== 'all' ? v : undefined }))}
          allowDeselect={false}
        />
      </Group>
      <Group mb="sm" gap="xs">
        <Text size="sm" data-testid="remote-targets">
          {byQuery ? t('fleet.remote.matching', { count: total }) : t('fleet.remote.selected', { count: selected.size })}
        </Text>
        {(Object.keys(ACTIONS) as ActionName[]).map((a) =>
          permissions.includes(ACTIONS[a].key) && !(onlyLinux && refusedOnSystem(ACTIONS[a].msgId, 'linux')) ? (
            <Button key={a} size="compact-sm" color={ACTIONS[a].danger ? 'red' : undefined} variant="light" onClick={() => void choose(a)} data-testid={`bulk-${a}`}>
              {t(`fleet.action.${a}`)}
            </Button>
          ) : null,
        )}
      </Group>
      {!byQuery && (
        <div ref={scrollRef} style={{ height: 300, overflow: 'auto' }}>
          <Table stickyHeader>
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>
                  <Checkbox
                    aria-label={t('fleet.remote.pick')}
                    checked={total > 0 && selected.size === total}
                    onChange={async (e) => {
                      const on = e.currentTarget.checked;
                      setSelected(on ? new Set((await deviceApi.select(filter)).sns) : new Set());
                    }}
                  />
                </Table.Th>
                <Table.Th>{t('fleet.col.sn')}</Table.Th>
                <Table.Th>{t('fleet.col.model')}</Table.Th>
                <Table.Th>{t('fleet.col.systemType')}</Table.Th>
                <Table.Th>{t('fleet.col.onlineState')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.total === 0 && (
                <Table.Tr>
                  <Table.Td colSpan={5}>
                    <Text c="dimmed" ta="center" py="md" data-testid="table-empty">
                      {t('kit.table.empty')}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              )}
              {(items[0]?.start ?? 0) > 0 && <tr aria-hidden style={{ height: items[0]?.start }} />}
              {items.map((item) => {
                const d = rows.rowAt(item.index);
                if (!d) return <tr key={`l${item.index}`} style={{ height: ROW }} />;
                return (
                  <PickRow
                    key={d.sn}
                    sn={d.sn}
                    model={d.model}
                    systemType={d.systemType}
                    onlineState={d.onlineState}
                    checked={selected.has(d.sn)}
                    onCheck={(on) => {
                      if (d.systemType === 'linux') setLinuxPicked((prev) => new Set(prev).add(d.sn));
                      setSelected((prev) => {
                        const next = new Set(prev);
                        if (on) next.add(d.sn);
                        else next.delete(d.sn);
                        return next;
                      });
                    }}
                  />
                );
              })}
              {items.length > 0 && <tr aria-hidden style={{ height: virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0) }} />}
            </Table.Tbody>
          </Table>
        </div>
      )}

      {pushKinds.length > 0 && kind && (
        <Card withBorder mt="md" data-testid="push-entry">
          <Title order={5}>{t('fleet.remote.pushTitle')}</Title>
          <Text size="sm" c="dimmed" mb="xs">
            {t('fleet.remote.pushHint')}
          </Text>
          <Group gap="sm" align="flex-end">
            <SegmentedControl value={kind} onChange={(v) => setPushKind(v as PushKind)} data={pushKinds.map((k) => ({ value: k, label: t(`content.kinds.${k}`) }))} data-testid="push-kind" />
            <Select
              w={320}
              aria-label={t('fleet.remote.pushContent')}
              placeholder={t('fleet.remote.pushContent')}
              data={pushItems.map((i) => ({ value: String(i.id), label: `${i.name} ${i.version || i.versionName}`.trim() }))}
              value={pushContentId}
              onChange={setPushContentId}
              searchable
              nothingFoundMessage={t('fleet.remote.pushNoContent')}
              data-testid="push-content-select"
            />
            <Button size="sm" variant="light" disabled={!pushContentId} onClick={choosePush} data-testid="bulk-push">
              {t('fleet.remote.pushStart')}
            </Button>
          </Group>
        </Card>
      )}

      {run && <ResultsPanel run={run} retrying={retrying} onRetry={() => void retry()} onClear={() => setRun(undefined)} />}
      <ConfirmDialog
        opened={pushAsk !== undefined}
        title={t('fleet.remote.pushTitle')}
        message={
          pushAsk
            ? pushAsk.model !== undefined
              ? t('fleet.remote.pushModelMismatch', { count: pushAsk.model })
              : t('fleet.remote.pushConfirm', { name: pushAsk.plan.contentName, count: pushAsk.count })
            : ''
        }
        onConfirm={() => pushAsk && void startPush(pushAsk, pushAsk.model !== undefined)}
        onCancel={() => setPushAsk(undefined)}
        confirmTestId="confirm-push"
      />

      <ConfirmDialog
        opened={pending !== undefined}
        title={pendingLabel}
        message={pending ? t(ACTIONS[pending.action].danger ? 'fleet.confirm.bulkDanger' : 'fleet.confirm.bulk', { action: pendingLabel, count: pending.sns.length }) : ''}
        danger={pending ? ACTIONS[pending.action].danger : false}
        onConfirm={() => {
          if (pending) execute(pending.action, pending.sns, pending.data ?? (pending.action === 'reboot' ? undefined : {}));
          setPending(undefined);
        }}
        onCancel={() => setPending(undefined)}
        confirmTestId="confirm-bulk"
      />
      <MessageDialog opened={messageFor !== undefined} count={messageFor?.length ?? 0} onClose={() => setMessageFor(undefined)} onSend={(m) => messageFor && execute('message', messageFor, m.title ? m : { text: m.text })} />
      <Modal opened={whitelistFor !== undefined} onClose={() => setWhitelistFor(undefined)} title={`${t('fleet.action.whitelist')} (${whitelistFor?.length ?? 0})`} centered>
        <SegmentedControl
          value={whitelist.action}
          onChange={(v) => setWhitelist({ ...whitelist, action: v })}
          data={[
            { value: 'set', label: t('fleet.form.whitelistSet') },
            { value: 'cancel', label: t('fleet.form.whitelistCancel') },
          ]}
        />
        {whitelist.action === 'set' && (
          <Textarea
            mt="sm"
            label={t('fleet.form.packages')}
            value={whitelist.packages}
            error={whitelist.error || undefined}
            onChange={(e) => setWhitelist({ ...whitelist, packages: e.currentTarget.value, error: '' })}
            onBlur={() => parsePackages(whitelist.packages).length === 0 && setWhitelist((w) => ({ ...w, error: t('fleet.form.required') }))}
          />
        )}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setWhitelistFor(undefined)}>
            {t('fleet.form.cancel')}
          </Button>
          <Button
            onClick={() => {
              const packages = parsePackages(whitelist.packages);
              if (whitelist.action === 'set' && packages.length === 0) return setWhitelist({ ...whitelist, error: t('fleet.form.required') });
              if (whitelistFor) setPending({ action: 'whitelist', sns: whitelistFor, data: whitelist.action === 'set' ? { action: 'set', packages } : { action: 'cancel' } });
              setWhitelistFor(undefined);
            }}
          >
            {t('fleet.form.send')}
          </Button>
        </Group>
      </Modal>
    </>
  );
}

/** The devices of a push: serials of the selection, or the list's filter for the server to resolve. */
type PushTarget = { readonly sns: string[] } | { readonly query: DeviceFilter };

function actionOf(msgId: number): ActionName {
  return (Object.keys(ACTIONS) as ActionName[]).find((a) => ACTIONS[a].msgId === msgId) ?? 'reboot';
}
