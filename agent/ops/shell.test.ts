import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Result, type ShellEndReason, type ShellOpenReply, type ShellOutput, type ShellRequest } from '../../protocol/index.ts';
import { ShellSessions } from './shell-sessions.ts';
import { LinuxShellProvider, type ShellSession, sessionMembers } from './shell.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'shell-'));
const opened: ShellSession[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A terminal's output as it arrives, with a wait for a pattern in what came after a mark. */
function screen() {
  let text = '';
  let ended: ShellEndReason | undefined;
  const waiters = new Set<() => void>();
  const changed = () => waiters.forEach((w) => w());
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => done() && (waiters.delete(check), resolve());
      waiters.add(check);
      check();
    });
  return {
    sink: { output: (t: string) => ((text += t), changed()), ended: (r: ShellEndReason) => ((ended = r), changed()) },
    get text() {
      return text;
    },
    get ended() {
      return ended;
    },
    mark: () => text.length,
    /** Resolves with the first match of `re` in the output after `from`. */
    waitFor: async (re: RegExp, from = 0) => {
      let m: RegExpExecArray | null = null;
      await until(() => (m = re.exec(text.slice(from))) !== null);
      return m as unknown as RegExpExecArray;
    },
    waitEnded: () => until(() => ended !== undefined),
  };
}

const alive = (pid: number) => {
  try {
    // A zombie has been killed; only its parent has not reaped it yet.
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// Waits until a process of this command line exists (the shell has really started it, so a signal now reaches it).
async function processWithArgs(args: string): Promise<number> {
  for (;;) {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        if (fs.readFileSync(`/proc/${d}/cmdline`, 'utf8') === `${args.replace(/ /g, '\0')}\0`) return Number(d);
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function openTerminal(cols = 80, rows = 24) {
  const session = new LinuxShellProvider({ allowed: true, cwd: tmp, timeoutMs: 60_000 }).open(cols, rows);
  opened.push(session);
  const s = screen();
  session.startTerminal(s.sink);
  return { session, s };
}

describe('Linux shell on a pseudo-terminal', () => {
  it('is refused while the allow switch is off', () => {
    expect(() => new LinuxShellProvider({ allowed: false, cwd: tmp, timeoutMs: 1000 }).open(80, 24)).toThrow(/--allow-shell/);
  });

  it('keeps one shell: a cd is still in force for the next command, and the session knows its directory', async () => {
    const { session, s } = openTerminal();
    expect(session.interactive).toBe(true);
    // $((...)) is expanded by the shell, so the match is the command's output, never the echo of what was typed.
    session.write('cd /tmp && echo A$((1+1)):$(pwd)\r');
    await s.waitFor(/A2:\/tmp/);
    const mark = s.mark();
    session.write('echo B$((2+2)):$(pwd)\r');
    await s.waitFor(/B4:\/tmp/, mark);
    expect(session.cwd()).toBe(fs.realpathSync('/tmp'));
    // It is a terminal, and says so.
    session.write('tty; echo T$((3+3)):$TERM\r');
    await s.waitFor(/\/dev\/pts\/\d+[\s\S]*T6:xterm-256color/);
  });

  it('interrupts a running command on Ctrl-C and returns to the prompt', async () => {
    const { session, s } = openTerminal();
    const started = Date.now();
    session.write('sleep 29.37\r');
    const sleeper = await processWithArgs('sleep 29.37');
    session.write('\x03');
    const mark = s.mark();
    session.write('echo C$((4+4)):$?\r');
    // 130: the sleep died of SIGINT, sent by the line discipline for \x03.
    await s.waitFor(/C8:130/, mark);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(alive(sleeper)).toBe(false);
  });

  it('applies a resize to the terminal, as `stty size` inside the shell reports', async () => {
    const { session, s } = openTerminal(90, 30);
    session.write('stty size\r');
    await s.waitFor(/[\r\n]30 90\r/);
    await session.resize(132, 43);
    const mark = s.mark();
    session.write('stty size\r');
    await s.waitFor(/[\r\n]43 132\r/, mark);
  });

  it('ends the session when its shell exits', async () => {
    const { session, s } = openTerminal();
    session.write('exit\r');
    await s.waitEnded();
    expect(s.ended).toBe('exit');
    expect(session.interactive).toBe(false);
  });
});

describe('the agent leaving', () => {
  /**
   * A small agent stand-in that opens a terminal and starts `sleep <seconds>` in it (a number no other
   * test uses, to find the process), exiting on SIGTERM as the agent does; resolves once the job runs.
   */
  const standInWithJob = async (seconds: string) => {
    const main = path.join(tmp, `agent-${seconds}.ts`);
    fs.writeFileSync(
      main,
      [
        `import { LinuxShellProvider } from ${JSON.stringify(path.resolve('agent/ops/shell.ts'))};`,
        `const s = new LinuxShellProvider({ allowed: true, cwd: ${JSON.stringify(tmp)}, timeoutMs: 60_000 }).open(80, 24);`,
        `s.startTerminal({ output: () => undefined, ended: () => undefined });`,
        `s.write('sleep ${seconds}\\r');`,
        `process.on('SIGTERM', () => process.exit(0));`,
        `setInterval(() => undefined, 1000);`,
      ].join('\n'),
    );
    const agent = spawn(process.execPath, [main], { stdio: 'ignore' });
    const exited = new Promise((resolve) => agent.once('exit', resolve));
    const job = await processWithArgs(`sleep ${seconds}`);
    return { agent, exited, job };
  };

  it('kills the terminals it started, which are detached from it, when it exits', async () => {
    const { agent, exited, job } = await standInWithJob('29.41');
    agent.kill('SIGTERM');
    await exited;
    await expect.poll(() => alive(job), { timeout: 5000 }).toBe(false);
  });

  it('leaves no terminal behind when it is killed outright (SIGKILL), where it has no say', async () => {
    const { agent, exited, job } = await standInWithJob('29.43');
    agent.kill('SIGKILL');
    await exited;
    await expect.poll(() => alive(job), { timeout: 5000 }).toBe(false);
  });
});

describe('shell sessions over a real pseudo-terminal', () => {
  it('closes an idle session and kills every process of it, and tells the console why', async () => {
    const sent: ShellOutput[] = [];
    let onSent: () => void = () => undefined;
    const device = { sendOnFlow: (_flow: string, _msgId: number, data?: unknown) => (sent.push(data as ShellOutput), onSent(), true) };
    const shells = new ShellSessions(new LinuxShellProvider({ allowed: true, cwd: tmp, timeoutMs: 1500 }));
    const req = (data: ShellRequest): [ShellRequest, string] => [data, 'sh-idle'];
    const open = await shells.handle(...req({ op: 'open', raw: true }), device);
    expect(open).toMatchObject({ result: Result.Success, data: { raw: true, cwd: fs.realpathSync(tmp) } });
    expect((open.data as ShellOpenReply).user).toBe(os.userInfo().username);
    // A background job (its own process group) and a foreground one: both belong to the session.
    await shells.handle(...req({ op: 'write', data: 'sleep 29.38 & sleep 29.39\r' }), device);
    const background = await processWithArgs('sleep 29.38');
    const foreground = await processWithArgs('sleep 29.39');
    const sid = Number(fs.readFileSync(`/proc/${foreground}/stat`, 'utf8').split(') ')[1]?.split(' ')[3]);
    expect(sessionMembers(sid)).toEqual(expect.arrayContaining([background, foreground]));
    await new Promise<void>((resolve) => {
      onSent = () => sent.some((o) => o.ended) && resolve();
      onSent();
    });
    expect(sent.find((o) => o.ended)).toMatchObject({ output: '', ended: 'idle' });
    expect(shells.size).toBe(0);
    await expect.poll(() => [alive(background), alive(foreground)], { timeout: 5000 }).toEqual([false, false]);
    // The flow has no session any more.
    expect(await shells.handle(...req({ op: 'write', data: 'x' }), device)).toMatchObject({ result: Result.Fail });
  });
});
