import { lastValueFrom } from 'rxjs';
import { useSyncExternalStore } from 'react';
import type { GroupControlOutcome } from '../../protocol/api/device-ops.ts';
import { Command, type RemoteControlRequest } from '../../protocol/index.ts';
import { deviceOpsApi } from '../api/device-ops.ts';
import { deviceFile } from './commands.ts';
import { THUMBNAIL_WIDTH, ThumbnailPump } from './thumbnail-pump.ts';

export { THUMBNAIL_IN_FLIGHT, THUMBNAIL_INTERVAL_MS, THUMBNAIL_MAX_TILES, THUMBNAIL_WIDTH, type ThumbnailPump } from './thumbnail-pump.ts';

/** One thumbnail: a screenshot of at most THUMBNAIL_WIDTH pixels across, over the device's file flow. */
async function thumbnailOf(sn: string): Promise<Uint8Array | undefined> {
  const done = await lastValueFrom(deviceFile(sn, Command.Screenshot, { maxWidth: THUMBNAIL_WIDTH }));
  return done.kind === 'done' && done.file ? done.file.bytes : undefined;
}

/** The wall's thumbnails for one visit of the monitor centre (stop it when the page goes). */
export function createWallThumbnails(): ThumbnailPump {
  return new ThumbnailPump({
    fetch: thumbnailOf,
    now: () => Date.now(),
    setTimer: (run, ms) => setTimeout(run, ms),
    clearTimer: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
    toUrl: (bytes) => URL.createObjectURL(new Blob([bytes.slice().buffer], { type: 'image/png' })),
    revoke: (url) => URL.revokeObjectURL(url),
    pageShown: () => document.visibilityState !== 'hidden',
  });
}

/** The tile's latest picture, re-rendering only that tile when it changes. */
export function useThumbnail(pump: ThumbnailPump | undefined, sn: string): string | undefined {
  return useSyncExternalStore(
    (listener) => pump?.subscribe(sn, listener) ?? (() => undefined),
    () => pump?.url(sn),
  );
}

/** Screenshots taken and bytes received by the wall's thumbnails so far. */
export function useThumbnailUsage(pump: ThumbnailPump | undefined): { readonly count: number; readonly bytes: number } {
  const bytes = useSyncExternalStore(
    (listener) => pump?.subscribeAny(listener) ?? (() => undefined),
    () => pump?.bytes ?? 0,
  );
  return { count: pump?.fetched ?? 0, bytes };
}

/** Mirrors one input to every device of the group; resolves each device's outcome in the order given. */
export async function sendGroupInput(sns: readonly string[], input: RemoteControlRequest): Promise<readonly GroupControlOutcome[]> {
  return (await deviceOpsApi.groupControl(sns, input)).list;
}
