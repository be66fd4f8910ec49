import { DeviceState, OnlineState } from '../../../protocol/index.ts';

interface WallDevice {
  readonly sn: string;
  readonly onlineState: number;
}

export interface WallCounts {
  readonly total: number;
  readonly online: number;
  readonly offline: number;
}

/**
 * The monitor centre's counts. When the wall holds the whole fleet they are counted from its tiles with
 * the live presence applied, so they change the instant an event arrives. A fleet larger than the wall
 * starts from the server's online count and moves it by the presence changes of the tiles shown.
 */
export function wallCounts(devices: readonly WallDevice[], total: number, live: Readonly<Record<string, number>>, serverOnline: number | undefined): WallCounts {
  let online = 0;
  let delta = 0;
  for (const d of devices) {
    const now = live[d.sn] ?? d.onlineState;
    if (now === OnlineState.Online) online++;
    if (now !== d.onlineState) delta += now === OnlineState.Online ? 1 : -1;
  }
  if (devices.length < total && serverOnline !== undefined) online = Math.min(total, Math.max(0, serverOnline + delta));
  return { total, online, offline: total - online };
}

/** A tile's colour: online, offline, or online but expired or not yet active (the device row's state). */
export type TileState = 'online' | 'offline' | 'expired' | 'inactive';

/** The state a tile shows: offline wins (nothing else is known for sure); an online device shows its row's state. */
export function tileState(online: boolean, deviceState: number): TileState {
  if (!online) return 'offline';
  if (deviceState === DeviceState.Expired) return 'expired';
  if (deviceState === DeviceState.NotActive) return 'inactive';
  return 'online';
}

export interface WallFilter {
  readonly sn: string;
  readonly model: string;
  readonly state: 'all' | 'online' | 'offline';
  readonly system: 'all' | 'android' | 'linux';
}

interface FilteredDevice extends WallDevice {
  readonly model: string;
  readonly systemType: string;
}

/** The tiles the wall's filters keep (serial and model: substrings ignoring case; state with the live presence applied). */
export function filterWall<T extends FilteredDevice>(devices: readonly T[], f: WallFilter, live: Readonly<Record<string, number>>): T[] {
  const sn = f.sn.trim().toLowerCase();
  const model = f.model.trim().toLowerCase();
  return devices.filter((d) => {
    if (sn && !d.sn.toLowerCase().includes(sn)) return false;
    if (model && !d.model.toLowerCase().includes(model)) return false;
    if (f.system !== 'all' && d.systemType !== f.system) return false;
    if (f.state === 'all') return true;
    const online = (live[d.sn] ?? d.onlineState) === OnlineState.Online;
    return f.state === 'online' ? online : !online;
  });
}
