import { Button, Checkbox, FileInput, Group, Modal, Progress, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '../../layout/toast.ts';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { firmwareVersionForm, validFirmwareVersion } from '../../../protocol/api/content.ts';
import { appTypeLabels, firmwareSourceLabels, firmwareTypeLabels, labelOf, logoStateLabels, logoTypeLabels, systemTypeLabels, type EnumMember } from '../../../protocol/index.ts';
import { type ContentArea, type ContentItem, contentApi, KIND_OF_AREA, type UploadHandle, type UploadKind, uploadFile, WIFI_CONFIRM_BYTES } from '../../api/content.ts';
import type { Page } from '../../api/devices.ts';
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx';
import { ListFooter } from '../../components/ListFooter.tsx';
import { usePaging } from '../../components/use-paging.ts';
import { formatDateTime } from '../../format/date.ts';
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

/** The message for a firmware version that does not fit its type's form, or '' when it fits. */
function versionProblem(t: (key: string) => string, type: string, version: string): string {
  return validFirmwareVersion(type, version.trim()) ? '' : t(`content.badVersionOf.${firmwareVersionForm(type)}`);
}

/** The upload-and-describe dialog of every content area. */
function AddDialog({ area, opened, onClose, onAdded, updating, parentId }: { area: ContentArea; opened: boolean; onClose: () => void; onAdded: () => void; updating?: ContentItem; parentId: number | null }) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [pct, setPct] = useState<number>();
  const [handle, setHandle] = useState<UploadHandle>();
  const [wifiAsk, setWifiAsk] = useState(false);
  const [error, setError] = useState('');
  const [versionError, setVersionError] = useState('');
  const [netState, setNetState] = useState('');
  const [form, setForm] = useState<Record<string, string | boolean>>({ type: area === 'img' ? 'system' : area === 'app' ? 'general' : 'logo', systemType: 'android', source: 'self_upload' });
  const set = (k: string, v: string | boolean) => setForm((f) => ({ ...f, [k]: v }));
  const uploadKind: UploadKind = area === 'img' ? 'firmware' : area === 'logo' ? (form.type === 'boot_animation' ? 'boot_animation' : 'logo') : (KIND_OF_AREA[area] as UploadKind);
  const accept = area === 'app' ? '.apk' : area === 'wallpaper' || (area === 'logo' && form.type === 'logo') ? 'image/png,image/jpeg,image/bmp' : area === 'logo' ? '.zip' : undefined;

  const checkFile = (f: File): string => {
    if (f.name.length > MAX_NAME) return t('content.nameTooLong');
    const ext = f.name.split('.').pop()?.toLowerCase() ?? '';
    if (area === 'app' && ext !== 'apk') return t('content.onlyApk');
    if ((area === 'wallpaper' || (area === 'logo' && form.type === 'logo')) && !['png', 'jpg', 'jpeg', 'bmp'].includes(ext)) return t('content.onlyImages');
    return '';
  };

  const run = async () => {
    if (!file) return setError(t('content.required'));
    setError('');
    const h = uploadFile(file, uploadKind, (sent, total) => setPct(Math.floor((100 * sent) / total)), (state) => {
      if (state.state === 'waiting') setNetState(t('content.uploadWaiting', { attempt: state.attempt }));
      else setNetState(t('content.uploadResumed', { pct: state.total ? Math.floor((100 * state.offset) / state.total) : 0 }));
    });
    setHandle(h);
    try {
      const uploadId = await h.done;
      if (updating) await contentApi.updateApp(updating.id, uploadId);
      else if (area === 'img') await contentApi.add('img', { uploadId, type: form.type, source: form.source, version: form.version ?? '', model: form.model ?? '', modelName: form.modelName ?? '', gnssModel: form.gnssModel ?? '', systemType: form.systemType, offlineInstall: !!form.offlineInstall, autoInstall: !!form.autoInstall, remark: form.remark ?? '' });
      else if (area === 'app') await contentApi.add('app', { uploadId, type: form.type, remark: form.remark ?? '' });
      else if (area === 'logo') await contentApi.add('logo', { uploadId, type: form.type, remark: form.remark ?? '' });
      else if (area === 'file') await contentApi.add('file', { uploadId, parentId, remark: form.remark ?? '' });
      else await contentApi.add('wallpaper', { uploadId, remark: form.remark ?? '' });
      setFile(null);
      setPct(undefined);
      setNetState('');
      onAdded();
      onClose();
    } catch (err) {
      setError(err instanceof Error ? err.message : t('content.uploadFailed'));
    } finally {
      setHandle(undefined);
    }
  };
  // Everything that can be known before the upload starts is checked first: a 3 MB firmware with a wrong
  // version, or a corrupt .apk, is refused here rather than after its bytes went up (issue 20).
  const submit = async () => {
    if (area === 'img' && !updating) {
      const problem = versionProblem(t, String(form.type), String(form.version ?? ''));
      setVersionError(problem);
      if (problem) return;
    }
    if (!file) return setError(t('content.required'));
    const bad = checkFile(file);
    if (bad) return setError(bad);
    if (area === 'app' && !(await startsLikeZip(file))) return setError(t('content.notValidApk'));
    if (file.size > WIFI_CONFIRM_BYTES) return setWifiAsk(true);
    void run();
  };
  const checkVersion = () => setVersionError(form.version ? versionProblem(t, String(form.type), String(form.version)) : '');

  return (
    <Modal opened={opened} onClose={() => (handle?.abort(), onClose())} title={t(updating ? 'content.update' : 'content.add')} centered>
      <Stack>
        {area === 'img' && !updating && (
          <>
            <Select
              label={t('content.type')}
              data={options(firmwareTypeLabels)}
              value={String(form.type)}
              onChange={(v) => {
                set('type', v ?? 'system');
                if (form.version) setVersionError(versionProblem(t, v ?? 'system', String(form.version)));
              }}
              data-testid="content-type"
            />
            <Select label={t('content.source')} data={options(firmwareSourceLabels)} value={String(form.source)} onChange={(v) => set('source', v ?? 'self_upload')} />
            <TextInput
              label={t('content.version')}
              required
              value={String(form.version ?? '')}
              error={versionError || undefined}
              onChange={(e) => (set('version', e.currentTarget.value), setVersionError(''))}
              onBlur={checkVersion}
              data-testid="content-version"
            />
            <TextInput label={t('content.model')} required value={String(form.model ?? '')} onChange={(e) => set('model', e.currentTarget.value)} data-testid="content-model" />
            <TextInput label={t('content.modelName')} value={String(form.modelName ?? '')} onChange={(e) => set('modelName', e.currentTarget.value)} />
            <TextInput label={t('content.gnssModel')} value={String(form.gnssModel ?? '')} onChange={(e) => set('gnssModel', e.currentTarget.value)} />
            <Select label={t('content.systemType')} data={options(systemTypeLabels)} value={String(form.systemType)} onChange={(v) => set('systemType', v ?? 'android')} />
            <Switch label={t('content.offlineInstall')} checked={!!form.offlineInstall} onChange={(e) => set('offlineInstall', e.currentTarget.checked)} />
            <Switch label={t('content.autoInstall')} checked={!!form.autoInstall} onChange={(e) => set('autoInstall', e.currentTarget.checked)} />
          </>
        )}
        {area === 'app' && !updating && <Select label={t('content.type')} data={options(appTypeLabels)} value={String(form.type)} onChange={(v) => set('type', v ?? 'general')} />}
        {area === 'logo' && <Select label={t('content.type')} data={options(logoTypeLabels)} value={String(form.type)} onChange={(v) => set('type', v ?? 'logo')} />}
        <FileInput
          label={t('content.chooseFile')}
          accept={accept}
          value={file}
          onChange={(f) => {
            setFile(f);
            setError(f ? checkFile(f) : '');
            if (f && area === 'app' && !checkFile(f)) void startsLikeZip(f).then((zip) => !zip && setError(t('content.notValidApk')));
          }}
          data-testid="content-file"
          clearable
        />
        <Text size="xs" c="dimmed">
          {t('content.uploadResumeHint')}
        </Text>
        {!updating && <TextInput label={t('content.remark')} value={String(form.remark ?? '')} onChange={(e) => set('remark', e.currentTarget.value)} />}
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
        {error && (
          <Text c="red" size="sm" data-testid="content-error">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={() => (handle?.abort(), onClose())}>
            {t('content.cancel')}
          </Button>
          <Button onClick={() => void submit()} loading={handle !== undefined} data-testid="content-save">
            {t('content.save')}
          </Button>
        </Group>
      </Stack>
      <ConfirmDialog opened={wifiAsk} title={t('content.wifiTitle')} message={t('content.wifiConfirm')} onConfirm={() => (setWifiAsk(false), void run())} onCancel={() => setWifiAsk(false)} confirmTestId="content-wifi-confirm" />
    </Modal>
  );
}

/**
 * Edit an entry without uploading again: a firmware's type, version, model and flags (version checked on blur
 * by its type), or the name and remark of an app, file, folder, logo or wallpaper.
 */
function EditDialog({ area, item, onClose, onSaved }: { area: ContentArea; item: ContentItem; onClose: () => void; onSaved: () => void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<Record<string, string | boolean>>({
    name: item.name,
    remark: item.remark ?? '',
    type: item.type,
    version: item.version ?? '',
    model: item.model ?? '',
    modelName: item.modelName ?? '',
    gnssModel: item.gnssModel ?? '',
    systemType: item.systemType ?? 'android',
    offlineInstall: !!item.offlineInstall,
    autoInstall: !!item.autoInstall,
  });
  const [versionError, setVersionError] = useState('');
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  const set = (k: string, v: string | boolean) => setForm((f) => ({ ...f, [k]: v }));
  const str = (k: string) => String(form[k] ?? '');
  const save = async () => {
    if (area === 'img') {
      const problem = versionProblem(t, str('type'), str('version'));
      setVersionError(problem);
      if (problem) return;
      if (!str('model').trim()) return setError(t('content.required'));
    } else if (!str('name').trim()) return setError(t('content.required'));
    setSaving(true);
    const saved =
      area === 'img'
        ? await contentApi
            .updateFirmware({ id: item.id, type: str('type'), version: str('version').trim(), model: str('model'), modelName: str('modelName'), gnssModel: str('gnssModel'), systemType: str('systemType'), offlineInstall: !!form.offlineInstall, autoInstall: !!form.autoInstall, remark: str('remark') })
            .catch(() => undefined)
        : await contentApi.edit(area, { id: item.id, name: str('name').trim(), remark: str('remark') }).catch(() => undefined);
    setSaving(false);
    if (!saved) return;
    onSaved();
    onClose();
  };
  return (
    <Modal opened onClose={onClose} title={`${t('content.editTitle')}: ${item.name}`} centered>
      <Stack>
        {area === 'img' ? (
          <>
            <Select
              label={t('content.type')}
              data={options(firmwareTypeLabels)}
              value={str('type')}
              onChange={(v) => {
                set('type', v ?? 'system');
                if (str('version')) setVersionError(versionProblem(t, v ?? 'system', str('version')));
              }}
            />
            <TextInput
              label={t('content.version')}
              required
              value={str('version')}
              error={versionError || undefined}
              onChange={(e) => (set('version', e.currentTarget.value), setVersionError(''))}
              onBlur={() => setVersionError(versionProblem(t, str('type'), str('version')))}
              data-testid="edit-version"
            />
            <TextInput label={t('content.model')} required value={str('model')} onChange={(e) => set('model', e.currentTarget.value)} />
            <TextInput label={t('content.modelName')} value={str('modelName')} onChange={(e) => set('modelName', e.currentTarget.value)} />
            <TextInput label={t('content.gnssModel')} value={str('gnssModel')} onChange={(e) => set('gnssModel', e.currentTarget.value)} />
            <Select label={t('content.systemType')} data={options(systemTypeLabels)} value={str('systemType')} onChange={(v) => set('systemType', v ?? 'android')} />
            <Switch label={t('content.offlineInstall')} checked={!!form.offlineInstall} onChange={(e) => set('offlineInstall', e.currentTarget.checked)} />
            <Switch label={t('content.autoInstall')} checked={!!form.autoInstall} onChange={(e) => set('autoInstall', e.currentTarget.checked)} />
          </>
        ) : (
          <TextInput label={t('content.name')} required maxLength={MAX_NAME} value={str('name')} onChange={(e) => set('name', e.currentTarget.value)} data-testid="edit-name" />
        )}
        <TextInput label={t('content.remark')} value={str('remark')} onChange={(e) => set('remark', e.currentTarget.value)} data-testid="edit-remark" />
        {error && (
          <Text c="red" size="sm">
            {error}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('content.cancel')}
          </Button>
          <Button onClick={() => void save()} loading={saving} data-testid="edit-save">
            {t('content.save')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** One content area's list: firmware versions, applications, files, logos or wallpapers. */
export function ContentPage({ area }: { area: ContentArea }) {
  const { t } = useTranslation();
  const can = useCan();
  const [, navigate] = useLocation();
  const keys = KEYS[area];
  const paging = usePaging();
  const { pageNum, pageSize, setPageNum } = paging;
  const [name, setName] = useState('');
  const [parent, setParent] = useState<ContentItem[]>([]);
  const [page, setPage] = useState<Page<ContentItem>>();
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [adding, setAdding] = useState(false);
  const [updating, setUpdating] = useState<ContentItem>();
  const [editing, setEditing] = useState<ContentItem>();
  const [history, setHistory] = useState<ContentItem[]>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const parentId = parent.at(-1)?.id ?? null;

  const load = useCallback(() => {
    contentApi.list(area, { pageNum, pageSize, ...(name ? { name } : {}), ...(area === 'file' ? { parentId } : {}) }).then(setPage, () => undefined);
  }, [area, pageNum, pageSize, name, parentId]);
  useEffect(load, [load]);

  const download = async (item: ContentItem) => {
    const blob = await contentApi.download(area, item.id).catch(() => undefined);
    if (!blob) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = item.fileName || item.name;
    a.click();
    URL.revokeObjectURL(a.href);
  };
  const remove = async () => {
    setConfirmDelete(false);
    // At most 100 per delete (devices-and-commerce section 5): the first 100 selected go (in the order they
    // were selected, across pages); the rest stay selected for another delete.
    const all = [...selected];
    const ids = all.slice(0, MAX_DELETE);
    const done = await contentApi.remove(area, ids).catch(() => undefined);
    if (done) notifications.show({ message: t('content.deletedCount', { count: done.deleted }) });
    setSelected(new Set(done ? all.slice(MAX_DELETE) : all));
    load();
  };
  const toggle = (id: number) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <>
      <Title order={3} mb="md">
        {t(keys.title)}
      </Title>
      <Group mb="md">
        <TextInput placeholder={t('content.name')} value={name} onChange={(e) => (setName(e.currentTarget.value), setPageNum(1))} />
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
              if (folderName) void contentApi.folder(folderName, parentId).then(load, () => undefined);
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
        {can(keys.edit) && (
          <Button color="red" variant="light" disabled={selected.size === 0} onClick={() => setConfirmDelete(true)} data-testid="content-delete">
            {t('content.deleteSelected')}
            {selected.size > 0 ? ` (${selected.size})` : ''}
          </Button>
        )}
      </Group>
      <Table highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={40}>
              <Checkbox
                aria-label={t('content.selectPage')}
                data-testid="content-select-page"
                checked={!!page && page.list.length > 0 && page.list.every((i) => selected.has(i.id))}
                indeterminate={!!page && page.list.some((i) => selected.has(i.id)) && !page.list.every((i) => selected.has(i.id))}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setSelected((s) => {
                    const next = new Set(s);
                    for (const i of page?.list ?? []) {
                      if (on) next.add(i.id);
                      else next.delete(i.id);
                    }
                    return next;
                  });
                }}
              />
            </Table.Th>
            <Table.Th>{t('content.name')}</Table.Th>
            {area === 'img' && (
              <>
                <Table.Th>{t('content.type')}</Table.Th>
                <Table.Th>{t('content.version')}</Table.Th>
                <Table.Th>{t('content.model')}</Table.Th>
                <Table.Th>{t('content.source')}</Table.Th>
                <Table.Th>{t('content.systemType')}</Table.Th>
                <Table.Th>{t('content.offlineInstall')}</Table.Th>
                <Table.Th>{t('content.autoInstall')}</Table.Th>
              </>
            )}
            {area === 'app' && (
              <>
                <Table.Th>{t('content.packageName')}</Table.Th>
                <Table.Th>{t('content.versionName')}</Table.Th>
                <Table.Th>{t('content.versionCode')}</Table.Th>
                <Table.Th>{t('content.type')}</Table.Th>
              </>
            )}
            {(area === 'logo' || area === 'file') && <Table.Th>{t('content.type')}</Table.Th>}
            {area === 'logo' && <Table.Th>{t('content.state')}</Table.Th>}
            <Table.Th>{t('content.size')}</Table.Th>
            <Table.Th>{t('content.remark')}</Table.Th>
            <Table.Th>{t('content.createTime')}</Table.Th>
            <Table.Th>{t('content.actions')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page?.list.map((item) => (
            <Table.Tr key={item.id} data-content={item.name}>
              <Table.Td>
                <Checkbox checked={selected.has(item.id)} onChange={() => toggle(item.id)} aria-label={item.name} />
              </Table.Td>
              <Table.Td>
                {item.type === 'folder' ? (
                  <Button variant="subtle" size="compact-sm" onClick={() => (setParent((p) => [...p, item]), setPageNum(1))}>
                    {item.name}/
                  </Button>
                ) : (
                  item.name
                )}
              </Table.Td>
              {area === 'img' && (
                <>
                  <Table.Td>{label(firmwareTypeLabels, item.type as 'system')}</Table.Td>
                  <Table.Td>{item.version}</Table.Td>
                  <Table.Td>{[item.model, item.modelName].filter(Boolean).join(' / ')}</Table.Td>
                  <Table.Td>{label(firmwareSourceLabels, item.source as 'custom')}</Table.Td>
                  <Table.Td>{label(systemTypeLabels, item.systemType as 'android')}</Table.Td>
                  <Table.Td>{t(item.offlineInstall ? 'content.yes' : 'content.no')}</Table.Td>
                  <Table.Td>{t(item.autoInstall ? 'content.yes' : 'content.no')}</Table.Td>
                </>
              )}
              {area === 'app' && (
                <>
                  <Table.Td>{item.packageName}</Table.Td>
                  <Table.Td>{item.versionName}</Table.Td>
                  <Table.Td>{item.versionCode}</Table.Td>
                  <Table.Td>{label(appTypeLabels, item.type as 'system')}</Table.Td>
                </>
              )}
              {area === 'logo' && <Table.Td>{label(logoTypeLabels, item.type as 'logo')}</Table.Td>}
              {area === 'file' && <Table.Td>{t(item.type === 'folder' ? 'content.folder' : 'content.file')}</Table.Td>}
              {area === 'logo' && <Table.Td>{label(logoStateLabels, item.state as 0)}</Table.Td>}
              <Table.Td>{item.type === 'folder' ? '-' : formatSize(item.size)}</Table.Td>
              <Table.Td>{item.remark}</Table.Td>
              <Table.Td>{formatDateTime(item.createTime)}</Table.Td>
              <Table.Td>
                <Group gap={4} wrap="nowrap">
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
                    <Button size="compact-xs" variant="subtle" onClick={() => void contentApi.history(item.id).then(setHistory, () => undefined)}>
                      {t('content.history')}
                    </Button>
                  )}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <ListFooter shown={page?.list.length} total={page?.total} emptyText={t('content.empty')} {...paging.footer} />
      {adding && <AddDialog area={area} opened onClose={() => setAdding(false)} onAdded={load} parentId={parentId} />}
      {editing && <EditDialog area={area} item={editing} onClose={() => setEditing(undefined)} onSaved={load} />}
      {updating && <AddDialog area={area} opened updating={updating} onClose={() => setUpdating(undefined)} onAdded={load} parentId={null} />}
      <Modal opened={history !== undefined} onClose={() => setHistory(undefined)} title={t('content.history')} centered size="lg">
        <Table>
          <Table.Tbody>
            {history?.map((h) => (
              <Table.Tr key={h.id}>
                <Table.Td>{h.versionName}</Table.Td>
                <Table.Td>{h.versionCode}</Table.Td>
                <Table.Td>{formatSize(h.size)}</Table.Td>
                <Table.Td>{formatDateTime(h.createTime)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Modal>
      <ConfirmDialog opened={confirmDelete} title={t('content.delete')} message={selected.size > MAX_DELETE ? t('content.deleteFirst', { max: MAX_DELETE, count: selected.size }) : t('content.deleteConfirm')} onConfirm={() => void remove()} onCancel={() => setConfirmDelete(false)} danger confirmTestId="content-delete-confirm" />
    </>
  );
}

export const FirmwareVersionPage = () => <ContentPage area="img" />;
export const ApplicationPage = () => <ContentPage area="app" />;
export const FilePage = () => <ContentPage area="file" />;
export const LogoPage = () => <ContentPage area="logo" />;
export const WallpaperPage = () => <ContentPage area="wallpaper" />;
