import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Command, type Envelope, parseRuntimeInfo, parseStatusUpload, type RuntimeInfoReply, type StatusUpload } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { reportStatus, runtimeUploadOf, type TelemetryPort } from './status-reporter.ts';

/** A session stand-in: login state a test flips, and the messages the device sent. */
function fakePort() {
  const loggedIn$ = new BehaviorSubject(false);
  const sent: Envelope[] = [];
  let connected = true;
  const port: TelemetryPort = {
    loggedIn$,
    engine: {
      send: (env) => {
        if (!connected) throw new Error('not connected');
        sent.push(env);
      },
    },
  };
  return { port, loggedIn$, sent, disconnect: () => (connected = false) };
}

// Readings resolve on a later microtask; this lets every pending one settle.
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('status reporting of the agent', () => {
  it('sends location and status at login, then a status every period, and stops while logged out', async () => {
    const clock = new FakeClock();
    const { port, loggedIn$, sent } = fakePort();
    let n = 0;
    const read = async (): Promise<StatusUpload> => ({ cpu: ++n, memUsed: 1, memTotal: 2 });
    const stop = reportStatus(port, clock, { everyMs: 60_000, read, location: { lat: 1, lng: 2, country: 'CN', region: '' } });
    await settle();
    expect(sent).toEqual([]);

    loggedIn$.next(true);
    await settle();
    expect(sent.map((e) => e.msgId)).toEqual([Command.LocationUpload, Command.StatusUpload]);
    clock.advance(59_999);
    await settle();
    expect(sent).toHaveLength(2);
    clock.advance(1);
    await settle();
    clock.advance(60_000);
    await settle();
    expect(sent.filter((e) => e.msgId === Command.StatusUpload).map((e) => (e.data as StatusUpload).cpu)).toEqual([1, 2, 3]);

    loggedIn$.next(false);
    expect(clock.pendingTimers).toBe(0);
    clock.advance(600_000);
    await settle();
    expect(sent).toHaveLength(4);

    stop();
    loggedIn$.next(true);
    await settle();
    expect(sent).toHaveLength(4);
  });

  it('keeps reporting after a failed reading or a dropped send, and sends no location unless configured', async () => {
    const clock = new FakeClock();
    const { port, loggedIn$, sent, disconnect } = fakePort();
    const logged: string[] = [];
    let fail = true;
    const read = async (): Promise<StatusUpload> => {
      if (fail) throw new Error('no /proc');
      return { cpu: 5, memUsed: 1, memTotal: 2 };
    };
    reportStatus(port, clock, { everyMs: 1_000, read, log: (l) => logged.push(l) });
    loggedIn$.next(true);
    await settle();
    expect(sent).toEqual([]);
    expect(logged).toEqual(['status reading failed: no /proc']);
    fail = false;
    clock.advance(1_000);
    await settle();
    expect(sent).toEqual([{ msgId: Command.StatusUpload, data: { cpu: 5, memUsed: 1, memTotal: 2 } }]);
    disconnect();
    clock.advance(1_000);
    await settle();
    expect(clock.pendingTimers).toBe(1);
  });

  it('drops a reading that finishes after the device logged out', async () => {
    const clock = new FakeClock();
    const { port, loggedIn$, sent } = fakePort();
    let release: (s: StatusUpload) => void = () => undefined;
    reportStatus(port, clock, { everyMs: 1_000, read: () => new Promise((r) => (release = r)) });
    loggedIn$.next(true);
    loggedIn$.next(false);
    release({ cpu: 1, memUsed: 1, memTotal: 2 });
    await settle();
    expect(sent).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('turns a runtime sample into a runtime upload the platform accepts as a status', () => {
    const sample: RuntimeInfoReply = {
      time: 1,
      cpu: 12.5,
      memory: { total: 1000, free: 400 },
      processCount: 30,
      processes: Array.from({ length: 30 }, (_, i) => ({ pid: i + 1, name: `p${i}`, state: 'S' as const, cpu: 30 - i, rss: 4096 })),
    };
    const upload = runtimeUploadOf(sample, 1);
    expect(upload).toMatchObject({ cpu: 12.5, memUsed: 600, memTotal: 1000 });
    expect(upload.processes).toHaveLength(20);
    expect(upload.processes[0]).toEqual({ pid: 1, name: 'p0', state: 'S', cpu: 30, memUsed: 4096 });
    expect(parseStatusUpload(upload)).toEqual({ cpu: 12.5, memUsed: 600, memTotal: 1000 });
    expect(parseRuntimeInfo(upload)).toEqual(upload);
  });

  it("turns a process's share of one core into a share of the whole device, which the platform accepts", () => {
    // A process keeping 6 of 8 cores busy is 600 % of one core in a runtime sample, 75 % of the device.
    const sample: RuntimeInfoReply = { time: 1, cpu: 80, memory: { total: 1000, free: 400 }, processCount: 1, processes: [{ pid: 7, name: 'make', state: 'R', cpu: 600, rss: 4096 }] };
    const upload = runtimeUploadOf(sample, 8);
    expect(upload.processes[0]).toMatchObject({ cpu: 75 });
    expect(parseRuntimeInfo(upload)).toEqual(upload);
    expect(parseRuntimeInfo(runtimeUploadOf(sample, 1))?.processes[0]?.cpu).toBe(100);
  });
});
