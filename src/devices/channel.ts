import { useEffect, useRef } from 'react';
import { filter } from 'rxjs';
import { Command, type Envelope } from '../../protocol/index.ts';
import type { EngineClient } from '../../workers/engine-client.ts';
import { engine } from '../realtime/realtime.ts';

/**
 * What of the console socket a page's helper may follow: messages in batches, binary chunks, one flow's
 * messages, the socket's state, and requests whose events it reads itself (a bulk run's window, the live
 * player). Pages take it from here, never from src/realtime, so the device layer stays the one way in.
 */
export type DeviceChannel = Pick<EngineClient, 'request' | 'batches$' | 'chunks$' | 'flow' | 'connection$'>;

/** The console socket's channel (the worker engine, started on first use). */
export function deviceChannel(): DeviceChannel {
  return engine();
}

/** Calls `onBatch` with each batch of messages the gateway pushes while the component is mounted. */
export function useDeviceMessages(onBatch: (batch: readonly Envelope[]) => void): void {
  const handler = useRef(onBatch);
  useEffect(() => {
    handler.current = onBatch;
  });
  useEffect(() => {
    const sub = engine().batches$.subscribe((batch) => handler.current(batch));
    return () => sub.unsubscribe();
  }, []);
}

/**
 * Hears the outcomes of commands anyone sends to `sn` while `onBatch` is subscribed: watches the device
 * (DeviceWatch, 196611) now and after every reopening of the socket, and stops watching on unsubscribe.
 */
export function watchDevice(sn: string, onBatch: (batch: readonly Envelope[]) => void): () => void {
  const client = engine();
  const watch = (on: boolean) => client.request(Command.DeviceWatch, { sn, data: { watch: on } }).subscribe({ error: () => undefined });
  // The gateway keeps one watch per console and device: the last of this console's watchers stops it.
  watching.set(sn, (watching.get(sn) ?? 0) + 1);
  const opened = client.connection$.pipe(filter((s) => s.status === 'open')).subscribe(() => watch(true));
  const heard = client.batches$.subscribe(onBatch);
  return () => {
    opened.unsubscribe();
    heard.unsubscribe();
    const left = (watching.get(sn) ?? 1) - 1;
    if (left > 0) watching.set(sn, left);
    else {
      watching.delete(sn);
      watch(false);
    }
  };
}

/** How many of this console's components watch each device. */
const watching = new Map<string, number>();
