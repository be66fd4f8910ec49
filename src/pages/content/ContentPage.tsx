import { Button, FileInput, Group, Modal, Progress, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { firmwareVersionForm, validFirmwareVersion } from '../../../protocol/api/content.ts';
import { appTypeLabels, firmwareSourceLabels, firmwareTypeLabels, labelOf, logoStateLabels, logoTypeLabels, systemTypeLabels, type EnumMember } from '../../../protocol/index.ts';
import { type ContentArea, type ContentItem, contentApi, KIND_OF_AREA, type UploadHandle, type UploadKind, uploadFile, WIFI_CONFIRM_BYTES } from '../../api/content.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { type DataColumn, DataTable, type ListQuery, type Selection } from '../../components/DataTable.tsx';
import { localPage, type SortValues } from '../../components/local-page.ts';
import { FormActions } from '../../components/FormActions.tsx';
import { type ConsoleForm, type Rule, type RuleAnswer, rules, useConsoleForm } from '../../components/use-console-form.ts';
import { formatDateTime } from '../../format/date.ts';
import { MAX_LONG_TEXT, MAX_TEXT } from '../../../protocol/api/common.ts';
import { currentLanguage } from '../../i18n/index.ts';
import { useCan } from '../../state/permissions.ts';

const KEYS: Readonly<Record<ContentArea, { list: string; edit: string; push: string; title: string }>> = {
  img: { list: 'img_list', edit: 'img_edit', push: 'img_push', title: 'route.firmwareVersion' },
  app: { list: 'app_list', edit: 'app_edit', push: 'app_push', title: 'route.applicationManagement' },
  file: { list: 'file_list', edit: 'file_edit', push: 'file_push', title: 'route.fileManagement' },
  logo: { list: 'logo_list', edit: 'logo_edit', push: 'logo_push', title: 'route.logoManagement' },
  wallpaper: { list: 'wallpaper_list', edit: 'wallpaper_edit', push: 'wallpaper_push', title: 'route.backgroundManage' },
};
const MAX_NAME = 128;
/** Entries one delete removes at most (devices-and-commerce section 5). */
const MAX_DELETE = 100;

const HISTORY_SORT: SortValues<ContentItem> = { versionCode: (h) => h.versionCode, createTime: (h) => h.createTime };

function label<V extends string | number>(members: readonly EnumMember<V>[], value: V): string {
  return labelOf(members, value)?.[currentLanguage] ?? String(value);
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.ceil(bytes / 1024)} KB`;
}

const options = <V extends string>(members: readonly EnumMember<V>[]) => members.map((m) => ({ value: m.value, label: m[currentLanguage] }));

/** True when the file starts with a ZIP local header, as every APK does; read before the upload starts. */
async function startsLikeZip(file: File): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return head.length === 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

interface ContentValues extends Record<string, string> {
  type: string;
  source: string;
  version: string;
  model: string;
  modelName: string;
  gnssModel: string;
  systemType: string;
  /** 'on' or '': the form holds text only. */
  offlineInstall: string;
  autoInstall: string;
  name: string;
  remark: string;
  /** The chosen file's name; the File itself is kept beside the form. */
  file: string;
}

/** A firmware version in the form its type takes (checked on blur and again when the type changes). */
const versionRule: Rule = (v, values) => (validFirmwareVersion(values.type ?? '', v.trim()) ? undefined : { key: `content.badVersionOf.${firmwareVersionForm(values.type ?? '')}` });
const text = [rules.maxLength(MAX_TEXT), rules.noEmoji()];
/** The firmware fields both dialogs check; the server checks the same version forms ('content.badVersion'). */
const FIRMWARE_RULES = { version: [rules.required(), versionRule], model: [rules.required(), ...text], modelName: text, gnssModel: text } as const;
const SERVER_KEYS = { 'content.badVersion': 'version', 'content.notAnApk': 'file', 'content.otherPackage': 'file', 'content.olderVersion': 'file' } as const;

/** The firmware fields of the add and edit dialogs: type (re-checking the version), source, version, model, flags. */
function FirmwareFields({ c, withSource }: { c: ConsoleForm<ContentValues>; withSource: boolean }) {
  const { t } = useTranslation();
  const { form, field } = c;
  const flag = (name: 'offlineInstall' | 'autoInstall') => (
    <Switch label={t(`content.${name}`)} checked={form.values[name] === 'on'} onChange={(e) => form.setFieldValue(name, e.currentTarget.checked ? 'on' : '')} />
  );
  return (
    <>
      <Select
        label={t('content.type')}
        data={options(firmwareTypeLabels)}
        value={form.values.type}
        onChange={(v) => {
          form.setFieldValue('type', v ?? 'system');
          if (form.getValues().version) form.validateField('version');
        }}
        allowDeselect={false}
        data-testid="content-type"
      />
      {withSource && <Select label={t('content.source')} data={options(firmwareSourceLabels)} value={form.values.source} onChange={(v) => form.setFieldValue('source', v ?? 'self_upload')} allowDeselect={false} />}
      <TextInput label={t('content.version')} required {...field('version')} data-testid={withSource ? 'content-version' : 'edit-version'} />
      <TextInput label={t('content.model')} required {...field('model')} data-testid="content-model" />
      <TextInput label={t('content.modelName')} {...field('modelName')} />
      <TextInput label={t('content.gnssModel')} {...field('gnssModel')} />
      <Select label={t('content.systemType')} data={options(systemTypeLabels)} value={form.values.systemType} onChange={(v) => form.setFieldValue('systemType', v ?? 'android')} allowDeselect={false} />
      {flag('offlineInstall')}
      {flag('autoInstall')}
    </>
  );
}

const EMPTY: ContentValues = { type: '', source: 'self_upload', version: '', model: '', modelName: '', gnssModel: '', systemType: 'android', offlineInstall: '', autoInstall: '', name: '', remark: '', file: '' };

/** The upload-and-describe dialog of every content area. */
function AddDialog({ area, opened, onClose, onAdded, updating, parentId }: { area: ContentArea; opened: boolean; onClose: () => void; onAdded: () => void; updating?: ContentItem; parentId: number | null }) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [pct, setPct] = useState<number>();
  const [handle, setHandle] = useState<UploadHandle>();
  const [wifiAsk, setWifiAsk] = useState(false);
  /** The Wi-Fi question was answered yes for this file: the form is sent again, and this time uploads. */
  const [wifiOk, setWifiOk] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (wifiOk) formRef.current?.requestSubmit();
  }, [wifiOk]);
  const [netState, setNetState] = useState('');
  const firmware = area === 'img' && !updating;
  const c = useConsoleForm<ContentValues>({
    initialValues: { ...EMPTY, type: area === 'img' ? 'system' : area === 'app' ? 'general' : 'logo' },
    rules: {
      ...(firmware ? FIRMWARE_RULES : {}),
      remark: [rules.maxLength(MAX_LONG_TEXT), rules.noEmoji()],
      file: [rules.required(), (name, values) => fileProblem(name, values.type ?? '')],
    },
    serverKeys: SERVER_KEYS,
  });
  const { form, field, onSubmit, submitting } = c;
  const type = form.values.type;
  const uploadKind: UploadKind = area === 'img' ? 'firmware' : area === 'logo' ? (type === 'boot_animation' ? 'boot_animation' : 'logo') : (KIND_OF_AREA[area] as UploadKind);
  const imagesOnly = area === 'wallpaper' || (area === 'logo' && type === 'logo');
  const accept = area === 'app' ? '.apk' : imagesOnly ? 'image/png,image/jpeg,image/bmp' : area === 'logo' ? '.zip' : undefined;

  function fileProblem(name: string, logoType: string): RuleAnswer {
    if (name.length > MAX_NAME) return { key: 'content.nameTooLong' };
    const ext = name.split('.').pop()?.toLowerCase() ?? '';
    if (area === 'app' && ext !== 'apk') return { key: 'content.onlyApk' };
    if ((area === 'wallpaper' || (area === 'logo' && logoType === 'logo')) && !['png', 'jpg', 'jpeg', 'bmp'].includes(ext)) return { key: 'content.onlyImages' };
    return undefined;
  }
  const choose = (f: File | null) => {
    setFile(f);
    setWifiOk(false);
    form.setFieldValue('file', f?.name ?? '');
    if (!f) return form.clearFieldError('file');
    form.validateField('file');
    if (area === 'app' && !fileProblem(f.name, type)) void startsLikeZip(f).then((zip) => !zip && form.setFieldError('file', t('content.notValidApk')));
  };

  // Everything that can be known before the upload starts is checked first (the form's rules, then the
  // APK's header): a 3 MB firmware with a wrong version, or a corrupt .apk, is refused here rather than
  // after its bytes went up (issue 20).
  const submit = async (v: ContentValues) => {
    if (!file) return;
    if (area === 'app' && !(await startsLikeZip(file))) return form.setFieldError('file', t('content.notValidApk'));
    if (file.size > WIFI_CONFIRM_BYTES && !wifiOk) return setWifiAsk(true);
    const h = uploadFile(file, uploadKind, (sent, total) => setPct(Math.floor((100 * sent) / total)), (state) => {
      if (state.state === 'waiting') setNetState(t('content.uploadWaiting', { attempt: state.attempt }));
      else setNetState(t('content.uploadResumed', { pct: state.total ? Math.floor((100 * state.offset) / state.total) : 0 }));
    });
    setHandle(h);
    let uploadId: string;
    try {
      uploadId = await h.done;
    } catch (err) {
      return form.setFieldError('file', err instanceof Error ? err.message : t('content.uploadFailed'));
    } finally {
      setHandle(undefined);
      setPct(undefined);
      setNetState('');
    }
    const remark = v.remark;
    if (updating) await contentApi.updateApp(updating.id, uploadId);
    else if (area === 'img')
      await contentApi.add('img', { uploadId, type: v.type, source: v.source, version: v.version.trim(), model: v.model, modelName: v.modelName, gnssModel: v.gnssModel, systemType: v.systemType, offlineInstall: v.offlineInstall === 'on', autoInstall: v.autoInstall === 'on', remark });
    else if (area === 'app') await contentApi.add('app', { uploadId, type: v.type, remark });
    else if (area === 'logo') await contentApi.add('logo', { uploadId, type: v.type, remark });
    else if (area === 'file') await contentApi.add('file', { uploadId, parentId, remark });
    else await contentApi.add('wallpaper', { uploadId, remark });
    onAdded();
    onClose();
  };
  const close = () => (handle?.abort(), onClose());

  return (
    <Modal opened={opened} onClose={close} title={t(updating ? 'content.update' : 'content.add')} centered>
      <form ref={formRef} onSubmit={onSubmit(submit)} noValidate>
        <Stack>
          {firmware && <FirmwareFields c={c} withSource />}
          {area === 'app' && !updating && <Select label={t('content.type')} data={options(appTypeLabels)} value={type} onChange={(v) => form.setFieldValue('type', v ?? 'general')} allowDeselect={false} />}
          {area === 'logo' && (
            <Select
              label={t('content.type')}
              data={options(logoTypeLabels)}
              value={type}
              onChange={(v) => {
                form.setFieldValue('type', v ?? 'logo');
                if (form.getValues().file) form.validateField('file');
              }}
              allowDeselect={false}
            />
          )}
          <FileInput
            label={t('content.chooseFile')}
            required
            accept={accept}
            value={file}
            onChange={choose}
            error={form.errors.file}
            errorProps={{ 'data-testid': 'content-error' }}
            data-testid="content-file"
            clearable
          />
          <Text size="xs" c="dimmed">
            {t('content.uploadResumeHint')}
          </Text>
          {!updating && <TextInput label={t('content.remark')} {...field('remark')} />}
          {pct !== undefined && (
            <>
              <Progress value={pct} data-testid="upload-progress" />
              <Text size="sm">{t('content.uploading', { pct })}</Text>
            </>
          )}
          {netState && (
            <Text size="sm" c="orange" data-testid="upload-network">
              {netState}
            </Text>
          )}
          <FormActions submitting={submitting} onCancel={close} cancelLabel={t('content.cancel')} submitLabel={t('content.save')} submitTestId="content-save" />
        </Stack>
      </form>
      <ConfirmDialog
        opened={wifiAsk}
        title={t('content.wifiTitle')}
        message={t('content.wifiConfirm')}
        onConfirm={() => {
          setWifiAsk(false);
          setWifiOk(true);
        }}
        onCancel={() => setWifiAsk(false)}
        confirmTestId="content-wifi-confirm"
      />
    </Modal>
  );
}

/**
 * Edit an entry without uploading again: a firmware's type, version, model and flags (version checked on blur
 * by its type), or the name and remark of an app, file, folder, logo or wallpaper.
 */
function EditDialog({ area, item, onClose, onSaved }: { area: ContentArea; item: ContentItem; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const c = useConsoleForm<ContentValues>({
    initialValues: {
      ...EMPTY,
      name: item.name,
      remark: item.remark ?? '',
      type: item.type,
      version: item.version ?? '',
      model: item.model ?? '',
      modelName: item.modelName ?? '',
      gnssModel: item.gnssModel ?? '',
      systemType: item.systemType ?? 'android',
      offlineInstall: item.offlineInstall ? 'on' : '',
      autoInstall: item.autoInstall ? 'on' : '',
    },
    rules: { ...(area === 'img' ? FIRMWARE_RULES : { name: [rules.required(), rules.maxLength(MAX_NAME), rules.noEmoji()] }), remark: [rules.maxLength(MAX_LONG_TEXT), rules.noEmoji()] },
    serverKeys: SERVER_KEYS,
  });
  const save = async (v: ContentValues) => {
    if (area === 'img')
      await contentApi.updateFirmware({ id: item.id, type: v.type, version: v.version.trim(), model: v.model, modelName: v.modelName, gnssModel: v.gnssModel, systemType: v.systemType, offlineInstall: v.offlineInstall === 'on', autoInstall: v.autoInstall === 'on', remark: v.remark });
    else await contentApi.edit(area, { id: item.id, name: v.name.trim(), remark: v.remark });
    onSaved();
    onClose();
  };
  return (
    <Modal opened onClose={onClose} title={`${t('content.editTitle')}: ${item.name}`} centered>
      <form onSubmit={c.onSubmit(save)} noValidate>
        <Stack>
          {area === 'img' ? <FirmwareFields c={c} withSource={false} /> : <TextInput label={t('content.name')} required {...c.field('name')} data-testid="edit-name" />}
          <TextInput label={t('content.remark')} {...c.field('remark')} data-testid="edit-remark" />
          <FormActions submitting={c.submitting} onCancel={onClose} cancelLabel={t('content.cancel')} submitLabel={t('content.save')} submitTestId="edit-save" />
        </Stack>
      </form>
    </Modal>
  );
}

/** One content area's list: firmware versions, applications, files, logos or wallpapers. */
export function ContentPage({ area }: { area: ContentArea }) {
  const { t } = useTranslation();
  const can = useCan();
  const [, navigate] = useLocation();
  const keys = KEYS[area];
  const [name, setName] = useState('');
  const [parent, setParent] = useState<ContentItem[]>([]);
  const [reload, setReload] = useState(0);
  const [adding, setAdding] = useState(false);
  const [updating, setUpdating] = useState<ContentItem>();
  const [editing, setEditing] = useState<ContentItem>();
  const [historyOf, setHistoryOf] = useState<ContentItem>();
  const [confirmDelete, setConfirmDelete] = useState<{ selection: Selection<number>; keepOnly: (ids: readonly number[]) => void }>();
  const parentId = parent.at(-1)?.id ?? null;

  const query = useCallback((pageNum: number, pageSize: number) => contentApi.list(area, { pageNum, pageSize, ...(name ? { name } : {}), ...(area === 'file' ? { parentId } : {}) }), [area, name, parentId]);
  const load = useCallback((q: ListQuery) => query(q.pageNum, q.pageSize), [query]);
  const refresh = useCallback(() => setReload((n) => n + 1), []);
  // An app's versions come whole; the table sorts and pages them here.
  const loadHistory = useCallback(async (q: ListQuery) => localPage(historyOf ? await contentApi.history(historyOf.id) : [], q, HISTORY_SORT), [historyOf]);

  const download = async (item: ContentItem) => {
    const blob = await contentApi.download(area, item.id).catch(() => undefined);
    if (!blob) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = item.fileName || item.name;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  // Every id matching the filters, newest first as listed (for a selection of all matching rows).
  const allMatchingIds = async (): Promise<number[]> => {
    const ids: number[] = [];
    for (let pageNum = 1; ; pageNum++) {
      const page = await query(pageNum, 100);
      ids.push(...page.list.map((i) => i.id));
      if (page.list.length < 100 || ids.length >= page.total) return ids;
    }
  };
  const remove = async () => {
    const target = confirmDelete;
    setConfirmDelete(undefined);
    if (!target) return;
    // At most 100 per delete (devices-and-commerce section 5): the first 100 selected go (in the order they
    // were selected, across pages); the rest stay selected for another delete.
    const all = target.selection.allMatching ? await allMatchingIds().catch(() => undefined) : [...target.selection.ids];
    if (!all) return;
    const done = await contentApi.remove(area, all.slice(0, MAX_DELETE)).catch(() => undefined);
    if (done) notifications.show({ message: t('content.deletedCount', { count: done.deleted }) });
    target.keepOnly(done ? all.slice(MAX_DELETE) : all);
    refresh();
  };
  const columns: DataColumn<ContentItem>[] = [
    {
      key: 'name',
      title: t('content.name'),
      fixed: true,
      render: (item) =>
        item.type === 'folder' ? (
          <Button variant="subtle" size="compact-sm" onClick={() => setParent((p) => [...p, item])}>
            {item.name}/
          </Button>
        ) : (
          item.name
        ),
    },
    ...(area === 'img'
      ? [
          { key: 'type', title: t('content.type'), render: (item: ContentItem) => label(firmwareTypeLabels, item.type as 'system') },
          { key: 'version', title: t('content.version'), render: (item: ContentItem) => item.version },
          { key: 'model', title: t('content.model'), render: (item: ContentItem) => [item.model, item.modelName].filter(Boolean).join(' / ') },
          { key: 'source', title: t('content.source'), render: (item: ContentItem) => label(firmwareSourceLabels, item.source as 'custom') },
          { key: 'systemType', title: t('content.systemType'), render: (item: ContentItem) => label(systemTypeLabels, item.systemType as 'android') },
          { key: 'offlineInstall', title: t('content.offlineInstall'), render: (item: ContentItem) => t(item.offlineInstall ? 'content.yes' : 'content.no') },
          { key: 'autoInstall', title: t('content.autoInstall'), render: (item: ContentItem) => t(item.autoInstall ? 'content.yes' : 'content.no') },
        ]
      : []),
    ...(area === 'app'
      ? [
          { key: 'packageName', title: t('content.packageName'), render: (item: ContentItem) => item.packageName },
          { key: 'versionName', title: t('content.versionName'), render: (item: ContentItem) => item.versionName },
          { key: 'versionCode', title: t('content.versionCode'), render: (item: ContentItem) => item.versionCode },
          { key: 'type', title: t('content.type'), render: (item: ContentItem) => label(appTypeLabels, item.type as 'system') },
        ]
      : []),
    ...(area === 'logo'
      ? [
          { key: 'type', title: t('content.type'), render: (item: ContentItem) => label(logoTypeLabels, item.type as 'logo') },
          { key: 'state', title: t('content.state'), render: (item: ContentItem) => label(logoStateLabels, item.state as 0) },
        ]
      : []),
    ...(area === 'file' ? [{ key: 'type', title: t('content.type'), render: (item: ContentItem) => t(item.type === 'folder' ? 'content.folder' : 'content.file') }] : []),
    { key: 'size', title: t('content.size'), style: { whiteSpace: 'nowrap' }, render: (item) => (item.type === 'folder' ? '-' : formatSize(item.size)) },
    { key: 'remark', title: t('content.remark'), render: (item) => item.remark },
    { key: 'createTime', title: t('content.createTime'), style: { whiteSpace: 'nowrap' }, render: (item) => formatDateTime(item.createTime) },
  ];
  const historyColumns: DataColumn<ContentItem>[] = [
    { key: 'versionName', title: t('content.versionName'), fixed: true, render: (h) => h.versionName },
    { key: 'versionCode', title: t('content.versionCode'), sortable: true, render: (h) => h.versionCode },
    { key: 'size', title: t('content.size'), style: { whiteSpace: 'nowrap' }, render: (h) => formatSize(h.size) },
    { key: 'createTime', title: t('content.createTime'), sortable: true, style: { whiteSpace: 'nowrap' }, render: (h) => formatDateTime(h.createTime) },
  ];

  return (
    <>
      <Title order={3} mb="md">
        {t(keys.title)}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('content.name')} value={name} onChange={(e) => setName(e.currentTarget.value)} />
        {can(keys.edit) && (
          <Button onClick={() => setAdding(true)} data-testid="content-add">
            {t('content.add')}
          </Button>
        )}
        {area === 'file' && can(keys.edit) && (
          <Button
            variant="light"
            onClick={() => {
              const folderName = window.prompt(t('content.newFolder'))?.trim();
              if (folderName) void contentApi.folder(folderName, parentId).then(refresh, () => undefined);
            }}
          >
            {t('content.newFolder')}
          </Button>
        )}
        {area === 'file' && parent.length > 0 && (
          <Button variant="subtle" onClick={() => setParent((p) => p.slice(0, -1))}>
            {t('content.up')} ({parent.map((p) => p.name).join(' / ')})
          </Button>
        )}
      </Group>
      <DataTable<ContentItem, number>
        id={`content-${area}`}
        columns={columns}
        rowKey={(item) => item.id}
        rowProps={(item) => ({ 'data-content': item.name })}
        rowLabel={(item) => item.name}
        load={load}
        filterKey={JSON.stringify([name, parentId])}
        reload={reload}
        emptyText={t('content.empty')}
        toolbar={
          can(keys.edit)
            ? (selection, _clear, keepOnly) => (
                <Button color="red" variant="light" size="xs" disabled={selection.count === 0} onClick={() => setConfirmDelete({ selection, keepOnly })} data-testid="content-delete">
                  {t('content.deleteSelected')}
                  {selection.count > 0 ? ` (${selection.count})` : ''}
                </Button>
              )
            : undefined
        }
        actions={(item) => (
          <>
            {item.type !== 'folder' && (
              <Button size="compact-xs" variant="light" onClick={() => void download(item)}>
                {t('content.download')}
              </Button>
            )}
            {item.type !== 'folder' && can(keys.push) && (
              <Button size="compact-xs" variant="light" color="green" onClick={() => navigate(`/content-push/index?kind=${KIND_OF_AREA[area]}&contentId=${item.id}`)} data-testid="content-push">
                {t('content.push')}
              </Button>
            )}
            {can(keys.edit) && (
              <Button size="compact-xs" variant="light" onClick={() => setEditing(item)} data-testid="content-edit">
                {t('content.edit')}
              </Button>
            )}
            {area === 'app' && can(keys.edit) && (
              <Button size="compact-xs" variant="light" onClick={() => setUpdating(item)}>
                {t('content.update')}
              </Button>
            )}
            {area === 'app' && (
              <Button size="compact-xs" variant="subtle" onClick={() => setHistoryOf(item)}>
                {t('content.history')}
              </Button>
            )}
          </>
        )}
      />
      {adding && <AddDialog area={area} opened onClose={() => setAdding(false)} onAdded={refresh} parentId={parentId} />}
      {editing && <EditDialog area={area} item={editing} onClose={() => setEditing(undefined)} onSaved={refresh} />}
      {updating && <AddDialog area={area} opened updating={updating} onClose={() => setUpdating(undefined)} onAdded={refresh} parentId={null} />}
      <Modal opened={historyOf !== undefined} onClose={() => setHistoryOf(undefined)} title={t('content.history')} centered size="lg">
        {historyOf && (
          <DataTable<ContentItem, number>
            id="content-app-history"
            columns={historyColumns}
            rowKey={(h) => h.id}
            load={loadHistory}
            filterKey={String(historyOf.id)}
            defaultSort="createTime"
          />
        )}
      </Modal>
      <ConfirmDialog
        opened={confirmDelete !== undefined}
        title={t('content.delete')}
        message={(confirmDelete?.selection.count ?? 0) > MAX_DELETE ? t('content.deleteFirst', { max: MAX_DELETE, count: confirmDelete?.selection.count ?? 0 }) : t('content.deleteConfirm')}
        onConfirm={() => void remove()}
        onCancel={() => setConfirmDelete(undefined)} danger confirmTestId="content-delete-confirm" />
    </>
  );
}

export const FirmwareVersionPage = () => <ContentPage area="img" />;
export const ApplicationPage = () => <ContentPage area="app" />;
export const FilePage = () => <ContentPage area="file" />;
export const LogoPage = () => <ContentPage area="logo" />;
export const WallpaperPage = () => <ContentPage area="wallpaper" />;
