import { useCallback, useEffect, useState } from 'react';
import { OnlineState } from '../../../protocol/index.ts';
import { type Device, deviceApi } from '../../api/devices.ts';
import { useOnlineState, usePresenceEpoch } from '../../devices/hooks.ts';

/**
 * The device row (model, system type, online state, custom fields) behind a serial, kept live by presence and loaded
 * again when the console socket reopens: undefined while it loads, null when the caller's scope has no
 * such device (or the list could not be read).
 */
export function useDeviceRow(sn: string): { device: Device | null | undefined; online: boolean; reload: () => void } {
  const [device, setDevice] = useState<Device | null>();
  const epoch = usePresenceEpoch();
  // Bumped to read the row again after the console changed it (its custom fields).
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => {
    if (!sn) return;
    let cancelled = false;
    deviceApi.list({ pageNum: 1, pageSize: 10, sn }).then(
      (p) => !cancelled && setDevice(p.list.find((d) => d.sn === sn) ?? null),
      () => !cancelled && setDevice(null),
    );
    return () => {
      cancelled = true;
    };
  }, [sn, epoch, version]);
  const state = useOnlineState(sn, device?.onlineState ?? OnlineState.Offline);
  return { device, online: state === OnlineState.Online, reload };
}
