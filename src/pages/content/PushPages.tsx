import { Anchor, Badge, Button, Card, Checkbox, Group, Modal, NumberInput, Progress, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { downloadStateLabels, installResultLabels, labelOf, pushResultLabels, type EnumMember } from '../../../protocol/index.ts';
import { type Campaign, type CampaignEvent, type ContentArea, type ContentItem, contentApi, type CouponInfo, followPushes, KIND_OF_AREA, type PushLogRow, type PushStreamStatus, type TargetEvent } from '../../api/content.ts';
import { approvalApi } from '../../api/approvals.ts';
import { formatAmount } from '../../api/commerce.ts';
import type { Page } from '../../api/devices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery } from '../../components/DataTable.tsx';
import { localPage } from '../../components/local-page.ts';
import { formatDateTime } from '../../format/date.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { PayPanel } from '../commerce/PayDataPage.tsx';
import { EMPTY_SELECTION, PushTargetPicker, type PushTargetState, SkipReportDialog, targetRequest } from './PushTargetPicker.tsx';
import type { CouponLedgerEntry, PushSkipReport } from '../../../protocol/api/campaigns.ts';
import { notifications } from '../../layout/toast.ts';
import { TOAST_MS } from '../../api/request.ts';
import { DEFAULT_SCHEDULE, ScheduleFields, scheduleRequest, ScheduleState, type ScheduleValue } from './ScheduleFields.tsx';

const KINDS = ['firmware', 'app', 'file', 'logo', 'wallpaper'] as const;
/** How long the push log waits to read page 1 again after a new push shows up: pushes starting together cost one read. */
const REREAD_MS = 300;
const AREA_OF_KIND = Object.fromEntries(Object.entries(KIND_OF_AREA).map(([a, k]) => [k, a])) as Record<string, ContentArea>;

const APPROVALS_PATH = '/approvals/index';

/**
 * Whether a campaign waits for a four-eyes approval request (the organisation's policy) rather than for a
 * second account's /push/approve (the pusher's own "require approval"): the pending requests the caller sees.
 */
async function findApprovalRequest(campaignId: number): Promise<boolean> {
  const pending = await approvalApi.list({ state: 'pending', pageNum: 1, pageSize: 100 }).catch(() => undefined);
  return pending?.list.some((a) => a.campaignId === campaignId) ?? false;
}

function label<V extends string | number>(members: readonly EnumMember<V>[], value: V): string {
  return labelOf(members, value)?.[currentLanguage] ?? String(value);
}

interface PushStreamHandlers {
  readonly onCampaign?: (e: CampaignEvent) => void;
  /** A change of a row the last list read does not hold. */
  readonly onUnknownRow?: (e: TargetEvent) => void;
  /** The stream (re)connected: changes made while it was down are not replayed, so the list is read again. */
  readonly onLive?: () => void;
}

const rowKey = (r: { campaignId: number; sn: string }) => `${r.campaignId}:${r.sn}`;

/** Per-device rows: the last list read, with the live changes from the push stream applied over it. */
function usePushRows(campaignId: number | undefined, initial: readonly PushLogRow[] | undefined, handlers: PushStreamHandlers = {}) {
  const [live, setLive] = useState<ReadonlyMap<string, TargetEvent>>(new Map());
  const [campaignState, setCampaignState] = useState<string>();
  const [status, setStatus] = useState<PushStreamStatus>();
  // The handlers and rows of the latest render, read by the one stream without reopening it.
  const latest = useRef({ handlers, known: new Set<string>() });
  useEffect(() => {
    latest.current = { handlers, known: new Set((initial ?? []).map(rowKey)) };
  });
  useEffect(() => {
    const stop = new AbortController();
    void followPushes(
      campaignId,
      (e) => {
        if (e.type === 'campaign') {
          setCampaignState(e.state);
          latest.current.handlers.onCampaign?.(e);
          return;
        }
        setLive((m) => new Map(m).set(rowKey(e), e));
        if (!latest.current.known.has(rowKey(e))) latest.current.handlers.onUnknownRow?.(e);
      },
      stop.signal,
      {
        onStatus: (s) => {
          setStatus(s);
          if (s === 'live') latest.current.handlers.onLive?.();
        },
      },
    );
    return () => stop.abort();
  }, [campaignId]);
  const current = useCallback(
    (r: PushLogRow): PushLogRow => {
      const e = live.get(rowKey(r));
      // A list read newer than the last event of a row wins (it may have been read after a reconnect).
      return e && e.updateTime >= r.updateTime ? { ...r, pushResult: e.pushResult, downloadState: e.downloadState, progress: e.progress, installResult: e.installResult, message: e.message, updateTime: e.updateTime } : r;
    },
    [live],
  );
  const rows = (initial ?? []).map(current);
  return { rows, current, campaignState, status };
}

/** The push stream's state: live, or the spec's reconnect text while it is down. */
function StreamStatus({ status }: { status: PushStreamStatus | undefined }) {
  const { t } = useTranslation();
  if (status === 'reconnecting' || status === 'stopped') {
    return (
      <Badge color="orange" variant="dot" data-testid="push-stream-status" data-status={status}>
        {t(status === 'stopped' ? 'content.streamStopped' : 'content.streamReconnecting')}
      </Badge>
    );
  }
  return (
    <Badge color="teal" variant="dot" data-testid="push-stream-status" data-status={status ?? 'connecting'}>
      {t('content.live')}
    </Badge>
  );
}

/** Per-device push rows in the shared table; `current` lays the push stream's changes over the loaded rows. */
function PushTable(props: { id: string; load: (q: ListQuery) => Promise<Page<PushLogRow>>; current: (row: PushLogRow) => PushLogRow; filterKey?: string; reload?: number; emptyText: string }) {
  const { t } = useTranslation();
  const columns: DataColumn<PushLogRow>[] = [
    { key: 'sn', title: t('content.sn'), fixed: true, style: { whiteSpace: 'nowrap' }, render: (r) => r.sn },
    { key: 'operationType', title: t('content.operationType'), render: (r) => t(`content.kinds.${r.operationType || 'firmware'}`) },
    { key: 'contentName', title: t('content.content'), render: (r) => r.contentName },
    { key: 'pushDate', title: t('content.pushDate'), style: { whiteSpace: 'nowrap' }, render: (r) => formatDateTime(r.pushDate) },
    { key: 'messageType', title: t('content.messageType'), render: (r) => t(`content.messageTypes.${r.messageType}`, { defaultValue: r.messageType }) },
    {
      key: 'pushResult',
      title: t('content.pushResult'),
      render: (r) => (
        <Badge color={r.pushResult === 1 ? 'green' : r.pushResult === 0 ? 'red' : 'blue'} variant="light">
          {label(pushResultLabels, r.pushResult as 0)}
        </Badge>
      ),
    },
    { key: 'downloadState', title: t('content.downloadState'), render: (r) => label(downloadStateLabels, r.downloadState as 0) },
    { key: 'progress', title: t('content.progress'), style: { width: 140 }, render: (r) => <Progress value={r.progress} /> },
    { key: 'installState', title: t('content.installState'), render: (r) => label(installResultLabels, r.installResult as 0) },
  ];
  return (
    <DataTable<PushLogRow, string>
      id={props.id}
      testId={`${props.id}-table`}
      columns={columns}
      rowKey={rowKey}
      load={props.load}
      current={props.current}
      {...(props.filterKey !== undefined ? { filterKey: props.filterKey } : {})}
      {...(props.reload !== undefined ? { reload: props.reload } : {})}
      emptyText={props.emptyText}
      rowProps={(r) => ({ 'data-push-sn': r.sn, 'data-push-result': String(r.pushResult) })}
    />
  );
}

/**
 * The push dialog as a page (/content-push/index?kind=&contentId=&sns=), so other pages (remote
 * management) can link to it with devices chosen; then the campaign's live progress.
 */
/** Campaign states with no way back: no pause, resume or cancel. */
const ENDED: ReadonlySet<string> = new Set(['finished', 'cancelled']);

export function PushPage() {
  const { t } = useTranslation();
  const params = new URLSearchParams(useSearch());
  const [kind, setKind] = useState<string>(params.get('kind') ?? 'firmware');
  const [contentId, setContentId] = useState<string | null>(params.get('contentId'));
  const [items, setItems] = useState<ContentItem[]>([]);
  const linked = params.get('sns')?.split(',').join('\n') ?? '';
  const [target, setTarget] = useState<PushTargetState>({ mode: linked ? 'sns' : 'pick', query: {}, selection: EMPTY_SELECTION, sns: linked, groupId: undefined });
  const [mismatch, setMismatch] = useState<number>();
  const [skipReport, setSkipReport] = useState<PushSkipReport>();
  const [stageSize, setStageSize] = useState<number | string>(0);
  const [successPercent, setSuccessPercent] = useState<number | string>(100);
  const [errorPercent, setErrorPercent] = useState<number | string>(100);
  const [requireApproval, setRequireApproval] = useState(false);
  const [schedule, setSchedule] = useState<ScheduleValue>(DEFAULT_SCHEDULE);
  const [scheduleError, setScheduleError] = useState<string>();
  const [campaign, setCampaign] = useState<Campaign>();
  /**
   * Per campaign awaiting approval: held by the four-eyes policy (true: decided as an approval request on
   * /approvals/index, which /push/approve refuses) or by its pusher's "require approval" (false); unknown until read.
   */
  const [heldByPolicy, setHeldByPolicy] = useState<ReadonlyMap<number, boolean>>(new Map());
  const noteHeld = (id: number, held: boolean) => setHeldByPolicy((m) => new Map(m).set(id, held));
  const [initial, setInitial] = useState<PushLogRow[]>();
  const [, navigate] = useLocation();
  const refresh = async (id: number) => {
    setCampaign(await contentApi.campaign(id));
    setInitial([...(await contentApi.pushLog({ pageNum: 1, pageSize: 100, campaignId: id })).list]);
  };
  // A campaign in the URL is shown again after a reload or from the push log's campaign list.
  const shown = params.get('campaignId');
  useEffect(() => {
    if (!shown) return;
    let cancelled = false;
    void Promise.all([contentApi.campaign(Number(shown)), contentApi.pushLog({ pageNum: 1, pageSize: 100, campaignId: Number(shown) })]).then(
      ([c, log]) => {
        if (cancelled) return;
        setCampaign(c);
        setInitial([...log.list]);
        if (c.state === 'awaiting_approval') void findApprovalRequest(c.id).then((held) => !cancelled && noteHeld(c.id, held));
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [shown]);
  const reread = () => campaign && void refresh(campaign.id).catch(() => undefined);
  const live = usePushRows(campaign?.id, initial, { onCampaign: reread, onLive: reread });

  useEffect(() => {
    contentApi.list(AREA_OF_KIND[kind] ?? 'img', { pageNum: 1, pageSize: 100 }).then((p) => setItems(p.list.filter((i) => i.type !== 'folder')), () => undefined);
  }, [kind]);

  const start = async (confirmModelMismatch = false, skipMismatched = false) => {
    setMismatch(undefined);
    setSkipReport(undefined);
    const scheduled = scheduleRequest(schedule);
    setScheduleError(scheduled.ok ? undefined : scheduled.message);
    if (!scheduled.ok) return;
    const chosen = targetRequest(target);
    if (!chosen) return notifications.show({ color: 'red', message: t('groups.picker.nothing'), autoClose: TOAST_MS });
    const res = await contentApi
      .startPush({
        kind,
        contentId: Number(contentId),
        ...chosen,
        confirmModelMismatch,
        // The picker asks before skipping: devices the content does not fit are reported, then left out.
        skipMismatched,
        ...(Number(stageSize) > 0 ? { stageSize: Number(stageSize), successPercent: Number(successPercent), errorPercent: Number(errorPercent) } : {}),
        requireApproval,
        ...scheduled.fields,
      })
      .catch(() => undefined);
    if (!res) return;
    if ('confirm' in res) return res.confirm === 'skip' ? setSkipReport(res) : setMismatch(res.mismatchCount);
    // Over the organisation's push size (issue 23): the push waits for a second account, and says so.
    noteHeld(res.campaign.id, res.approval !== undefined);
    if (res.approval) notifications.show({ color: 'blue', message: t('approvals.sentForApproval', { id: res.approval.id, count: res.approval.targetCount }), autoClose: 2 * TOAST_MS });
    await refresh(res.campaign.id);
    navigate(`/content-push/index?campaignId=${res.campaign.id}`, { replace: true });
  };

  // The campaign's rows are read whole (its first 100 devices): the table pages them here.
  const loadRows = useCallback(async (q: ListQuery) => localPage(initial ?? [], q), [initial]);
  const rows = live.rows;
  const counts = { success: rows.filter((r) => r.pushResult === 1).length, failed: rows.filter((r) => r.pushResult === 0).length };
  return (
    <>
      <Title order={3} mb="md">
        {t('content.pushTitle')}
      </Title>
      {!campaign && (
        <Stack maw={900}>
          <Select label={t('content.operationType')} data={KINDS.map((k) => ({ value: k, label: t(`content.kinds.${k}`) }))} value={kind} onChange={(v) => (setKind(v ?? 'firmware'), setContentId(null))} />
          <Select label={t('content.content')} data={items.map((i) => ({ value: String(i.id), label: `${i.name} ${i.version || i.versionName}`.trim() }))} value={contentId} onChange={setContentId} data-testid="push-content" searchable />
          <PushTargetPicker value={target} onChange={setTarget} />
          <Group grow>
            <NumberInput label={t('content.stageSize')} min={0} value={stageSize} onChange={setStageSize} />
            <NumberInput label={t('content.successPercent')} min={1} max={100} value={successPercent} onChange={setSuccessPercent} disabled={!Number(stageSize)} />
            <NumberInput label={t('content.errorPercent')} min={1} max={100} value={errorPercent} onChange={setErrorPercent} disabled={!Number(stageSize)} />
          </Group>
          <Checkbox label={t('content.requireApproval')} checked={requireApproval} onChange={(e) => setRequireApproval(e.currentTarget.checked)} />
          <ScheduleFields value={schedule} onChange={setSchedule} error={scheduleError} />
          <Group>
            <Button onClick={() => void start()} disabled={!contentId} data-testid="push-start">
              {t('content.start')}
            </Button>
          </Group>
        </Stack>
      )}
      {campaign && (
        <Stack>
          <Group>
            <Text fw={600}>{t('content.campaign', { id: campaign.id })}</Text>
            <Badge data-testid="campaign-state">{t(`content.campaignStates.${live.campaignState ?? campaign.state}`)}</Badge>
            <StreamStatus status={live.status} />
            {campaign.state === 'awaiting_approval' && heldByPolicy.get(campaign.id) === true && (
              <Group gap={6} data-testid="campaign-waiting-approval">
                <Badge color="yellow" variant="light">
                  {t('content.waitingApproval')}
                </Badge>
                <Anchor component={Link} href={APPROVALS_PATH} size="sm">
                  {t('content.openApprovals')}
                </Anchor>
              </Group>
            )}
            {campaign.state === 'awaiting_approval' && heldByPolicy.get(campaign.id) === false && (
              <Button size="compact-sm" onClick={() => void contentApi.controlPush('approve', campaign.id).then(setCampaign, () => undefined)}>
                {t('content.approve')}
              </Button>
            )}
            {campaign.message && <Text c="red" size="sm">{campaign.message}</Text>}
            <ScheduleState campaign={campaign} />
            {/* A finished or cancelled campaign has nothing left to pause or cancel (the live state first: it ends while the page is open). */}
            {!ENDED.has(live.campaignState ?? campaign.state) && (
              <>
                <Button size="compact-sm" variant="light" onClick={() => void contentApi.controlPush(campaign.state === 'paused' ? 'resume' : 'pause', campaign.id).then(setCampaign, () => undefined)} data-testid="campaign-pause">
                  {t(campaign.state === 'paused' ? 'content.resume' : 'content.pause')}
                </Button>
                <Button size="compact-sm" variant="light" color="red" onClick={() => void contentApi.controlPush('cancel', campaign.id).then(setCampaign, () => undefined)} data-testid="campaign-cancel">
                  {t('content.cancel')}
                </Button>
              </>
            )}
          </Group>
          <SimpleGrid cols={4} maw={640}>
            <Card withBorder>
              <Text size="xs">{t('content.total')}</Text>
              <Text fw={700}>{campaign.total}</Text>
            </Card>
            <Card withBorder>
              <Text size="xs">{t('content.success')}</Text>
              <Text fw={700} c="green" data-testid="push-success-count">
                {counts.success}
              </Text>
            </Card>
            <Card withBorder>
              <Text size="xs">{t('content.failed')}</Text>
              <Text fw={700} c="red">
                {counts.failed}
              </Text>
            </Card>
            <Card withBorder>
              <Text size="xs">{t('content.pushing')}</Text>
              <Text fw={700}>{campaign.total - counts.success - counts.failed}</Text>
            </Card>
          </SimpleGrid>
          <Progress value={campaign.total ? (100 * (counts.success + counts.failed)) / campaign.total : 0} />
          <PushTable id="push-devices" load={loadRows} current={live.current} filterKey={String(campaign.id)} emptyText={t('content.empty')} />
        </Stack>
      )}
      <ConfirmDialog opened={mismatch !== undefined} title={t('content.pushTitle')} message={t('content.modelMismatch', { count: mismatch ?? 0 })} onConfirm={() => void start(true)} onCancel={() => setMismatch(undefined)} />
      <SkipReportDialog report={skipReport} onConfirm={() => void start(true, true)} onCancel={() => setSkipReport(undefined)} />
    </>
  );
}

/** Push logs (/log-management/index): query by operation type or device serial number; rows update live. */
export function PushLogPage() {
  const { t } = useTranslation();
  const [operationType, setOperationType] = useState<string | null>(null);
  const [sn, setSn] = useState('');
  const [query, setQuery] = useState<{ operationType?: string; sn?: string }>();
  /** The page the table shows, and the query, page and size it was read with. */
  const shownPage = useRef<{ pageNum: number; key: string }>({ pageNum: 1, key: '' });
  const [page, setPage] = useState<Page<PushLogRow>>();
  const [error, setError] = useState('');
  // New pushes matching the query appear at the top: page 1 is read again when a push the page does not
  // hold starts or reports (once per push, so a long push whose rows are below the page costs one read).
  const [reads, setReads] = useState(0);
  const checked = useRef(new Set<number>());
  const rereadTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const reread = () => {
    if (rereadTimer.current === undefined) rereadTimer.current = setTimeout(() => ((rereadTimer.current = undefined), setReads((n) => n + 1)), REREAD_MS);
  };
  useEffect(() => () => clearTimeout(rereadTimer.current), []);
  const onNewPush = (campaignId: number, sn?: string) => {
    if (!query || shownPage.current.pageNum !== 1 || checked.current.has(campaignId) || page?.list.some((r) => r.campaignId === campaignId)) return;
    if (sn !== undefined && query.sn && query.sn !== sn) return;
    checked.current.add(campaignId);
    reread();
  };
  const live = usePushRows(undefined, page?.list, {
    onUnknownRow: (e) => onNewPush(e.campaignId, e.sn),
    onCampaign: (e) => e.state === 'running' && onNewPush(e.id),
    onLive: () => query && reread(),
  });
  const loadCampaigns = useCallback((q: ListQuery) => contentApi.campaigns(q.pageNum, q.pageSize), []);
  const campaignColumns: DataColumn<Campaign>[] = [
    { key: 'id', title: '#', fixed: true, render: (c) => <Link href={`/content-push/index?campaignId=${c.id}`}>{c.id}</Link> },
    { key: 'operationType', title: t('content.operationType'), render: (c) => t(`content.kinds.${c.operationType}`) },
    { key: 'contentName', title: t('content.content'), render: (c) => c.contentName },
    { key: 'state', title: t('content.state'), render: (c) => t(`content.campaignStates.${c.state}`) },
    { key: 'total', title: t('content.total'), render: (c) => c.total },
    { key: 'success', title: t('content.success'), render: (c) => c.success },
    { key: 'failed', title: t('content.failed'), render: (c) => c.failed },
    { key: 'createTime', title: t('content.pushDate'), style: { whiteSpace: 'nowrap' }, render: (c) => formatDateTime(c.createTime) },
  ];

  const loadLog = useCallback(
    async (q: ListQuery): Promise<Page<PushLogRow>> => {
      // Another query, page or size: new pushes are looked for again (a re-read of the same page keeps them).
      const key = JSON.stringify([query, q.pageNum, q.pageSize]);
      if (key !== shownPage.current.key) checked.current.clear();
      shownPage.current = { pageNum: q.pageNum, key };
      const p = query ? await contentApi.pushLog({ pageNum: q.pageNum, pageSize: q.pageSize, ...query }) : { list: [], total: 0 };
      setPage(p);
      return p;
    },
    [query],
  );

  const search = () => {
    if (!operationType && !sn.trim()) return setError(t('content.logQueryRequired'));
    setError('');
    setQuery({ ...(operationType ? { operationType } : {}), ...(sn.trim() ? { sn: sn.trim() } : {}) });
  };
  return (
    <>
      <Title order={3} mb="md">
        {t('route.logManagement')}
      </Title>
      <Group mb="md" align="flex-end">
        <StreamStatus status={live.status} />
        <Select label={t('content.operationType')} clearable data={KINDS.map((k) => ({ value: k, label: t(`content.kinds.${k}`) }))} value={operationType} onChange={setOperationType} data-testid="log-type" />
        <TextInput label={t('content.sn')} value={sn} onChange={(e) => setSn(e.currentTarget.value)} />
        <Button onClick={search} data-testid="log-search">
          {t('content.search')}
        </Button>
      </Group>
      {error && (
        <Text c="red" mb="sm" data-testid="log-error">
          {error}
        </Text>
      )}
      <PushTable id="push-log" load={loadLog} current={live.current} filterKey={JSON.stringify(query ?? null)} reload={reads} emptyText={t(query ? 'content.empty' : 'content.logQueryHint')} />
      <Title order={4} mt="xl" mb="sm">
        {t('content.campaigns')}
      </Title>
      <DataTable id="push-campaigns" testId="push-campaigns" columns={campaignColumns} rowKey={(c) => c.id} load={loadCampaigns} emptyText={t('content.empty')} rowProps={(c) => ({ 'data-campaign': String(c.id) })} />
    </>
  );
}

/**
 * Push coupons (/firmware-manage/firmware-coupon): balance, unit price, ledger, and buying at least 50. Buying
 * opens a coupon order and leads straight to paying it (the same payment panel as every other order); the
 * coupons are credited when the payment is confirmed. Orders not paid yet are listed here to pay later.
 */
export function CouponPage() {
  const { t } = useTranslation();
  const [info, setInfo] = useState<CouponInfo>();
  const [count, setCount] = useState<number | string>(50);
  const [message, setMessage] = useState('');
  const [paying, setPaying] = useState<{ orderNo: string; amount: number }>();
  /** Bumped after a purchase: the balance and the ledger are read again. */
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    contentApi.coupons().then(setInfo, () => undefined);
  }, [reloads]);
  const load = () => setReloads((n) => n + 1);
  const loadLedger = useCallback((q: ListQuery) => contentApi.couponLedger(q.pageNum, q.pageSize), []);
  const ledgerColumns: DataColumn<CouponLedgerEntry>[] = [
    { key: 'reason', title: t('content.coupon.reason'), fixed: true, render: (l) => t(`content.coupon.reasons.${l.reason === 'push' ? 'push' : 'recharge'}`) },
    { key: 'delta', title: t('content.coupon.delta'), render: (l) => l.delta },
    { key: 'orderNo', title: t('content.coupon.orderNo'), render: (l) => l.orderNo ?? '' },
    { key: 'amount', title: t('content.coupon.amount'), render: (l) => l.amount || '' },
    { key: 'sn', title: t('content.sn'), render: (l) => l.sn ?? '' },
    { key: 'createTime', title: t('content.createTime'), style: { whiteSpace: 'nowrap' }, render: (l) => formatDateTime(l.createTime) },
  ];
  const [countError, setCountError] = useState<string>();
  // The spec's minimum (devices-and-commerce section 5), said where the number is typed; the server says it too.
  const checkCount = () => {
    const n = Number(count);
    const error = count === '' || !Number.isInteger(n) || n < 50 ? t('content.coupon.min') : undefined;
    setCountError(error);
    return error === undefined;
  };
  const buy = async () => {
    if (!checkCount()) return;
    const n = Number(count);
    const order = await contentApi.recharge(n).catch(() => undefined);
    if (!order) return;
    setMessage(t('content.coupon.ordered', { orderNo: order.orderNo, amount: order.amountText }));
    setPaying({ orderNo: order.orderNo, amount: order.amount });
    load();
  };
  return (
    <>
      <Title order={3} mb="md">
        {t('route.firmwareCoupon')}
      </Title>
      <SimpleGrid cols={3} maw={640} mb="md">
        <Card withBorder>
          <Text size="xs">{t('content.coupon.balance')}</Text>
          <Text fw={700} data-testid="coupon-balance">
            {info?.balance ?? '-'}
          </Text>
        </Card>
        <Card withBorder>
          <Text size="xs">{t('content.coupon.unitPrice')}</Text>
          <Text fw={700}>{info?.unitPrice ?? '-'}</Text>
        </Card>
        <Card withBorder>
          <Text size="xs">{t('content.coupon.orderTotal')}</Text>
          <Text fw={700}>{info?.orderTotal ?? '-'}</Text>
        </Card>
      </SimpleGrid>
      <Text size="sm" c="dimmed" mb="sm">
        {t('content.coupon.oneEach')}
      </Text>
      <Group align="flex-end" mb="md">
        <NumberInput
          label={t('content.coupon.count')}
          min={50}
          allowDecimal={false}
          clampBehavior="none"
          value={count}
          error={countError}
          onChange={(v) => {
            setCount(v);
            setCountError(undefined);
          }}
          onBlur={checkCount}
          data-testid="coupon-count"
        />
        <Button onClick={() => void buy()} data-testid="coupon-recharge">
          {t('content.coupon.recharge')}
        </Button>
        {message && (
          <Text size="sm" data-testid="coupon-message">
            {message}
          </Text>
        )}
      </Group>
      {info && info.unpaid.length > 0 && (
        <Stack gap="xs" mb="md" data-testid="coupon-unpaid">
          <Text fw={600}>{t('content.coupon.unpaid')}</Text>
          {info.unpaid.map((o) => (
            <Group key={o.orderNo} gap="sm" data-order={o.orderNo}>
              <Text size="sm">{o.orderNo}</Text>
              <Text size="sm">
                {o.count} · {formatAmount(o.amount)}
              </Text>
              <Text size="sm" c="dimmed">
                {formatDateTime(o.createTime)}
              </Text>
              {o.offlinePending ? (
                <Badge color="gray">{t('content.coupon.transferPending')}</Badge>
              ) : (
                <Button size="compact-xs" variant="light" onClick={() => setPaying({ orderNo: o.orderNo, amount: o.amount })} data-testid="coupon-pay">
                  {t('content.coupon.pay')}
                </Button>
              )}
            </Group>
          ))}
        </Stack>
      )}
      <Modal opened={paying !== undefined} onClose={() => setPaying(undefined)} title={t('content.coupon.payTitle')} size="lg">
        {paying && (
          <PayPanel
            orderNo={paying.orderNo}
            amount={paying.amount}
            onPaid={() => {
              setPaying(undefined);
              setMessage(t('content.coupon.afterPay'));
              load();
            }}
          />
        )}
      </Modal>
      <DataTable id="coupon-ledger" testId="coupon-ledger" columns={ledgerColumns} rowKey={(l) => l.id} load={loadLedger} reload={reloads} emptyText={t('content.empty')} />
    </>
  );
}
