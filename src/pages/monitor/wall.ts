import { OnlineState } from '../../../protocol/index.ts';

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
