import { Group, Select, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DeviceListFilter } from '../../../protocol/api/devices.ts';
import { deviceApi } from '../../api/devices.ts';
import { session } from '../../state/session.ts';

/** The device list's filters a push by query takes (devices-and-commerce section 4: target devices). */
export type PushQuery = Pick<DeviceListFilter, 'model' | 'systemType' | 'onlineState' | 'imageVersion'>;

// Counting again at most this often while someone types.
const COUNT_AFTER_MS = 300;

/**
 * Push targets chosen by query: model, system, online state and image version, as the device list filters
 * them, with how many devices match now (a campaign also takes devices that match later by the same query).
 */
export function PushQueryFields({ value, onChange }: { value: PushQuery; onChange: (q: PushQuery) => void }) {
  const { t } = useTranslation();
  const [count, setCount] = useState<number>();
  useEffect(() => {
    // The count needs the remote-management key; without it the query still works, the count is not shown.
    if (!session.permissions.includes('remote_list')) return;
    let cancelled = false;
    const timer = setTimeout(() => {
      deviceApi.select(value).then(
        (r) => !cancelled && setCount(r.total),
        () => !cancelled && setCount(undefined),
      );
    }, COUNT_AFTER_MS);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [value]);
  return (
    <>
      <Group grow>
        <TextInput label={t('content.queryModel')} value={value.model ?? ''} onChange={(e) => onChange({ ...value, model: e.currentTarget.value || undefined })} maxLength={128} data-testid="push-query-model" />
        <Select
          label={t('content.querySystem')}
          data={[
            { value: 'android', label: 'Android' },
            { value: 'linux', label: 'Linux' },
          ]}
          value={value.systemType ?? null}
          onChange={(v) => onChange({ ...value, systemType: v ?? undefined })}
          clearable
          placeholder={t('content.queryAny')}
          data-testid="push-query-system"
        />
      </Group>
      <Group grow>
        <Select
          label={t('content.queryOnline')}
          data={[
            { value: '1', label: t('content.queryOnlineOnly') },
            { value: '2', label: t('content.queryOfflineOnly') },
          ]}
          value={value.onlineState === undefined ? null : String(value.onlineState)}
          onChange={(v) => onChange({ ...value, onlineState: v ? Number(v) : undefined })}
          clearable
          placeholder={t('content.queryAny')}
          data-testid="push-query-online"
        />
        <TextInput label={t('content.queryImageVersion')} value={value.imageVersion ?? ''} onChange={(e) => onChange({ ...value, imageVersion: e.currentTarget.value || undefined })} maxLength={128} />
      </Group>
      {count !== undefined && (
        <Text size="sm" c={count === 0 ? 'red' : 'dimmed'} data-testid="push-query-count">
          {t('content.queryCount', { count })}
        </Text>
      )}
    </>
  );
}
