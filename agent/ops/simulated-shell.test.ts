import { describe, expect, it } from 'vitest';
import { Command, decodeRequest, Result, type ShellOpenReply, type ShellOutput, type ShellRequest } from '../../protocol/index.ts';
import { MemoryFileStore } from './file-store.ts';
import { BACKLOG_CHARS, ShellSessions, type Schedule } from './shell-sessions.ts';
import { SimulatedShellProvider } from './simulated-shell.ts';

/** Timers the test fires by hand: the idle limit without waiting for it. */
function manualSchedule() {
  const due = new Set<{ fn: () => void; ms: number }>();
  const schedule: Schedule = (fn, ms) => {
    const t = { fn, ms };
    due.add(t);
    return () => due.delete(t);
  };
  return { schedule, fireAll: () => [...due].forEach((t) => (due.delete(t), t.fn())), pending: () => [...due].map((t) => t.ms) };
}

function device() {
  const sent: ShellOutput[] = [];
  const sender = { sendOnFlow: (_flow: string, _msgId: number, data?: unknown) => (sent.push(data as ShellOutput), true) };
  // Terminal output as a terminal shows it: the colours stripped, text only.
  // eslint-disable-next-line no-control-regex -- an escape sequence starts with ESC, a control character
  const screen = () => sent.map((o) => o.output).join('').replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
  return { sender, sent, screen };
}

const provider = () => new SimulatedShellProvider(new MemoryFileStore(() => 0, { 'sdcard/readme.txt': 'hello from the sim\n' }), 'SIM-1', '5.10.0-android12', () => 0);
const req = (data: ShellRequest, flowId = 'sh-1'): [ShellRequest, string] => [data, flowId];
const settle = () => new Promise((r) => setImmediate(r));

describe('simulated shell terminal', () => {
  it('draws a prompt, echoes typing, handles backspace, and runs the built-in command on Enter', async () => {
    const d = device();
    const shells = new ShellSessions(provider(), manualSchedule().schedule);
    const open = await shells.handle(...req({ op: 'open', raw: true, cols: 100, rows: 30 }), d.sender);
    expect(open).toMatchObject({ result: Result.Success, data: { raw: true, prompt: 'shell@sim-1', cwd: '/' } });
    expect(d.screen()).toBe('shell@sim-1:/$ ');
    await shells.handle(...req({ op: 'write', data: 'echo hellp' }), d.sender);
    await shells.handle(...req({ op: 'write', data: '\x7fo\r' }), d.sender);
    await settle();
    expect(d.screen()).toBe('shell@sim-1:/$ echo hellp\b \bo\r\nhello\r\nshell@sim-1:/$ ');
    // Offsets count every character before each chunk.
    let at = 0;
    for (const o of d.sent) {
      expect(o.offset).toBe(at);
      at += o.output.length;
    }
    await shells.handle(...req({ op: 'write', data: 'cd sdcard\rpwd\rcat readme.txt\r' }), d.sender);
    await settle();
    await settle();
    expect(d.screen()).toContain('$ pwd\r\n/sdcard\r\n');
    expect(d.screen()).toContain('hello from the sim\r\n');
    expect(d.screen().endsWith('shell@sim-1:/sdcard$ ')).toBe(true);
  });

  it('prints ^C and a fresh prompt on Ctrl-C, also interrupting a running sleep', async () => {
    const d = device();
    const shells = new ShellSessions(provider(), manualSchedule().schedule);
    await shells.handle(...req({ op: 'open', raw: true }), d.sender);
    await shells.handle(...req({ op: 'write', data: 'half typed\x03' }), d.sender);
    expect(d.screen()).toBe('shell@sim-1:/$ half typed^C\r\nshell@sim-1:/$ ');
    await shells.handle(...req({ op: 'write', data: 'sleep 30\r' }), d.sender);
    await shells.handle(...req({ op: 'write', data: '\x03' }), d.sender);
    await settle();
    expect(d.screen().endsWith('$ sleep 30\r\n^C\r\nshell@sim-1:/$ ')).toBe(true);
    // History: the up arrow brings the last line back.
    await shells.handle(...req({ op: 'write', data: '\x1b[A' }), d.sender);
    expect(d.screen().endsWith('shell@sim-1:/$ sleep 30')).toBe(true);
  });

  it('reports the last resize through `stty size`', async () => {
    const d = device();
    const shells = new ShellSessions(provider(), manualSchedule().schedule);
    await shells.handle(...req({ op: 'open', raw: true, cols: 80, rows: 24 }), d.sender);
    expect(await shells.handle(...req({ op: 'resize', cols: 120, rows: 40 }), d.sender)).toMatchObject({ result: Result.Success, data: { cols: 120, rows: 40 } });
    await shells.handle(...req({ op: 'write', data: 'stty size\r' }), d.sender);
    await settle();
    expect(d.screen()).toContain('stty size\r\n40 120\r\n');
  });

  it('re-attaches a console with the output it missed, and still runs line-mode input for old callers', async () => {
    const d = device();
    const shells = new ShellSessions(provider(), manualSchedule().schedule);
    await shells.handle(...req({ op: 'open', raw: true }), d.sender);
    const seen = d.sent.reduce((n, o) => n + o.output.length, 0);
    await shells.handle(...req({ op: 'write', data: 'echo missed\r' }), d.sender);
    await settle();
    const again = (await shells.handle(...req({ op: 'open', raw: true, since: seen }), d.sender)).data as ShellOpenReply;
    expect(again.backlog).toBe(d.sent.map((o) => o.output).join('').slice(seen));
    expect(again.offset).toBe(seen + (again.backlog ?? '').length);
    expect(shells.size).toBe(1);

    const lines: string[] = [];
    const line = device();
    const ran = await shells.handle(...req({ op: 'input', line: 'echo old caller' }, 'sh-line'), line.sender);
    expect(ran.result).toBe(Result.Fail); // no session on that flow yet
    expect(await shells.handle(...req({ op: 'open' }, 'sh-line'), line.sender)).toMatchObject({ result: Result.Success, data: { cwd: '/' } });
    expect((await shells.handle(...req({ op: 'open' }, 'sh-line'), line.sender)).data).not.toHaveProperty('raw');
    expect(await shells.handle(...req({ op: 'input', line: 'echo old caller' }, 'sh-line'), line.sender)).toMatchObject({ result: Result.Success, data: { exitCode: 0 } });
    lines.push(...line.sent.map((o) => o.output));
    expect(lines).toEqual(['old caller\n']);
    expect(await shells.handle(...req({ op: 'input', line: '  ' }, 'sh-line'), line.sender)).toMatchObject({ result: Result.MessageError });
    expect(await shells.handle(...req({ op: 'write', data: 'x' }, 'sh-line'), line.sender)).toMatchObject({ result: Result.Fail });
  });

  it('keeps only the last BACKLOG_CHARS for a console that was away long', async () => {
    const d = device();
    const shells = new ShellSessions(provider(), manualSchedule().schedule);
    await shells.handle(...req({ op: 'open', raw: true }), d.sender);
    const word = 'x'.repeat(1000);
    for (let i = 0; i < 80; i++) await shells.handle(...req({ op: 'write', data: word }), d.sender);
    const again = (await shells.handle(...req({ op: 'open', raw: true, since: 0 }), d.sender)).data as ShellOpenReply;
    expect(again.backlog?.length).toBe(BACKLOG_CHARS);
    expect(again.offset).toBe(d.sent.reduce((n, o) => n + o.output.length, 0));
  });

  it("DOPS-2 a terminal's last message says how it ended: 'exit', 'idle' or 'closed'; a bad op is refused", async () => {
    const timers = manualSchedule();
    const d = device();
    const shells = new ShellSessions(provider(), timers.schedule);
    await shells.handle(...req({ op: 'open', raw: true }), d.sender);
    await shells.handle(...req({ op: 'write', data: 'exit\r' }), d.sender);
    expect(d.sent.at(-1)).toMatchObject({ output: '', ended: 'exit' });
    expect(shells.size).toBe(0);

    await shells.handle(...req({ op: 'open', raw: true }, 'sh-2'), d.sender);
    expect(timers.pending()).toEqual([10 * 60_000]);
    timers.fireAll();
    expect(d.sent.at(-1)).toMatchObject({ ended: 'idle' });
    expect(shells.size).toBe(0);

    // Closed on request: announced once, before the reply; nothing follows it.
    await shells.handle(...req({ op: 'open', raw: true }, 'sh-3'), d.sender);
    await shells.handle(...req({ op: 'write', data: 'echo still here' }, 'sh-3'), d.sender);
    const before = d.sent.length;
    expect(await shells.handle(...req({ op: 'close' }, 'sh-3'), d.sender)).toMatchObject({ result: Result.Success });
    expect(d.sent.slice(before)).toEqual([{ output: '', offset: expect.any(Number), ended: 'closed' }]);
    expect(await shells.handle(...req({ op: 'write', data: 'x' }, 'sh-3'), d.sender)).toMatchObject({ result: Result.Fail, data: { message: expect.any(String) } });
    // A line-mode session has no terminal: closing it sends nothing.
    await shells.handle(...req({ op: 'open' }, 'sh-4'), d.sender);
    const quiet = d.sent.length;
    await shells.handle(...req({ op: 'close' }, 'sh-4'), d.sender);
    expect(d.sent.length).toBe(quiet);
    // An unknown op never reaches the sessions: the command map refuses it (typed() answers result 2).
    expect(decodeRequest(Command.Shell, { op: 'launch' })).toBeUndefined();
    expect(await shells.handle({ op: 'open' }, undefined, d.sender)).toMatchObject({ result: Result.MessageError });
  });
});
