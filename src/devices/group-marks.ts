import { useEffect, useState } from 'react';
import { filter } from 'rxjs';
import { Command, decodeRequest } from '../../protocol/index.ts';
import { deviceChannel, watchDevice } from './channel.ts';

/**
 * The account whose group control (another console's, issue 22) holds `sn`, while the component shows the
 * device: watches it (196611) and reads 196615 (PROTOCOL.md GROUP-1). Forgotten when the socket drops; the
 * gateway tells a re-opened watch of any session still under way.
 */
export function useGroupControlMark(sn: string, on = true): string | undefined {
  const [by, setBy] = useState<string>();
  useEffect(() => {
    if (!on) return undefined;
    const dropped = deviceChannel()
      .connection$.pipe(filter((s) => s.status !== 'open'))
      .subscribe(() => setBy(undefined));
    const stop = watchDevice(sn, (batch) => {
      for (const e of batch) {
        if (e.msgId !== Command.DeviceGroupControl || e.sn !== sn) continue;
        const d = decodeRequest(Command.DeviceGroupControl, e.data)?.data;
        if (d) setBy(d.active ? d.by : undefined);
      }
    });
    return () => {
      dropped.unsubscribe();
      stop();
      setBy(undefined);
    };
  }, [sn, on]);
  return by;
}

/**
 * Tells the gateway this console's group-control session holds `sns` (196614) while the component is
 * mounted, again after every reopening of the socket, and that it ended on unmount; other consoles watching
 * those devices show who controls them.
 */
export function useGroupControlSession(sns: readonly string[]): void {
  const key = sns.join('\n');
  useEffect(() => {
    const list = key === '' ? [] : key.split('\n');
    const client = deviceChannel();
    const send = (group: readonly string[]) => client.request(Command.GroupControlSession, { data: { sns: group } }).subscribe({ error: () => undefined });
    const opened = client.connection$.pipe(filter((s) => s.status === 'open')).subscribe(() => send(list));
    return () => {
      opened.unsubscribe();
      send([]);
    };
  }, [key]);
}
