import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShellEndReason, ShellExitReply, ShellOpenReply, ShellOutput } from '../../protocol/index.ts';

/** Where an interactive terminal's output and its end go. */
export interface TerminalSink {
  output(text: string): void;
  ended(reason: ShellEndReason): void;
}

/**
 * One shell session of a device. Line mode (`run`) runs one command line at a time and keeps its own
 * working directory; the interactive terminal (`startTerminal`, `write`) is a real terminal the console
 * types into.
 */
export interface ShellSession {
  readonly info: ShellOpenReply;
  /** The working directory now: the interactive shell's when it runs, else line mode's. */
  cwd(): string;
  run(line: string, out: (o: ShellOutput) => void): Promise<ShellExitReply>;
  /** Starts the interactive terminal; a second call only re-points its output to the new sink. */
  startTerminal(sink: TerminalSink): void;
  readonly interactive: boolean;
  /** Keystrokes as typed; throws when no terminal runs. */
  write(data: string): void;
  /** Resolves once the terminal has its new size (so a later `stty size` reports it). */
  resize(cols: number, rows: number): Promise<void>;
  close(): void;
}

/** Opens shell sessions; throws with a reason a person can read when the device allows none. */
export interface ShellProvider {
  open(cols: number, rows: number): ShellSession;
  /** A session with no input and no output for this long is closed. */
  readonly idleMs: number;
}

/** Idle limit of an interactive session unless configured: long enough to read a man page, short enough to reap abandoned shells. */
export const DEFAULT_SHELL_IDLE_MS = 10 * 60_000;
/** A one-line `input` command runs at most this long (or the idle limit, if shorter): the gateway's command timeout is near. */
export const INPUT_COMMAND_LIMIT_MS = 30_000;

export interface LinuxShellOptions {
  /** Off unless the agent was started with --allow-shell (AGENT_ALLOW_SHELL=1). */
  readonly allowed: boolean;
  /** Where sessions start. */
  readonly cwd: string;
  /** Idle limit of a session (AGENT_SHELL_TIMEOUT_MS); also caps one `input` command. */
  readonly timeoutMs: number;
}

/** Terminal output is sent at most this often, so a flood (`yes`) costs a message per window, not per read. */
const FLUSH_MS = 25;
/** Unsent output above this pauses the pseudo-terminal's reader: the program writing blocks until we catch up. */
const PAUSE_CHARS = 32 * 1024;

/** The fields of /proc/<pid>/stat this module needs; the command name may hold spaces and parentheses. */
function procStat(pid: number): { ppid: number; sid: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(rest[1]), sid: Number(rest[3]) };
  } catch {
    return undefined;
  }
}

/** Pids of the processes in a session (every job an interactive shell started, in whatever process group). */
export function sessionMembers(sid: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => procStat(pid)?.sid === sid);
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return fs
      .readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)
      .filter((p) => procStat(p)?.ppid === pid);
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

const onPath = new Map<string, string | null>();
/** A program on PATH, looked up once; null when the machine has none. */
function findProgram(name: string): string | null {
  let found = onPath.get(name);
  if (found === undefined) {
    found = null;
    for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(':')) {
      const candidate = path.join(dir || '.', name);
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        found = candidate;
        break;
      } catch {
        // not here
      }
    }
    onPath.set(name, found);
  }
  return found;
}

/** Terminals still running; their shells are detached from the agent, so the agent's exit kills them itself. */
const livePtys = new Set<ScriptPty>();
let exitHooked = false;

/**
 * An interactive shell on a pseudo-terminal made by util-linux `script`, so no native addon is needed:
 * script owns the master side and relays our pipes to it, the shell runs on the slave side as session
 * leader with it as controlling terminal, so the line discipline turns \x03 into SIGINT, readline edits
 * and full-screen programs work.
 */
export class ScriptPty {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #shellPid: Promise<number | undefined>;
  #sink: TerminalSink;
  #pending = '';
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #resizing: Promise<void> = Promise.resolve();
  #closing = false;
  #exited = false;
  #pid: number | undefined;

  constructor(opts: { cwd: string; cols: number; rows: number; sink: TerminalSink }) {
    this.#sink = opts.sink;
    const shell = fs.existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
    const env: Record<string, string> = {};
    // The agent's own settings (enrolment key, gateway) are not the shell user's business.
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('AGENT_')) env[k] = v;
    Object.assign(env, { TERM: 'xterm-256color', SHELL: shell, COLORTERM: 'truecolor' });
    if (shell === '/bin/bash') env.PS1 = '\\u@\\h:\\w\\$ ';
    else env.PS1 = `${os.userInfo().username}@${os.hostname()}$ `;
    // The size is set from inside, before the shell starts, so its first prompt already fits.
    const inner = `stty cols ${opts.cols} rows ${opts.rows} 2>/dev/null; exec ${quote(shell)} -i`;
    const script = findProgram('script');
    if (!script) throw new Error('This device has no util-linux script command, which its shell terminal needs');
    const args = ['-qfec', inner, '/dev/null'];
    // The agent kills its terminals when it exits; when it is killed outright, util-linux setpriv (which
    // execs script, keeping the pid) has the kernel kill script too, and its shell hangs up with the terminal.
    const setpriv = findProgram('setpriv');
    this.#child = setpriv
      ? spawn(setpriv, ['--pdeathsig', 'KILL', '--', script, ...args], { cwd: opts.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(script, args, { cwd: opts.cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    livePtys.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => livePtys.forEach((p) => p.kill()));
    }
    this.#child.stdout.setEncoding('utf8'); // a StringDecoder: a character split across reads stays whole
    this.#child.stderr.setEncoding('utf8');
    this.#child.stdout.on('data', (text: string) => this.#push(text));
    this.#child.stderr.on('data', (text: string) => this.#push(text));
    this.#child.stdin.on('error', () => undefined); // writes racing the shell's exit
    this.#child.on('error', (err) => {
      this.#push(`${err.message}\r\n`);
      this.#end();
    });
    this.#child.on('close', () => this.#end());
    this.#shellPid = this.#findShell();
  }

  /** The shell's pid once script has started it (script's only child; `exec` keeps the pid). */
  async #findShell(): Promise<number | undefined> {
    const pid = this.#child.pid;
    if (pid === undefined) return undefined;
    for (let i = 0; i < 300 && !this.#exited; i++) {
      const [shell] = childrenOf(pid);
      if (shell !== undefined) return (this.#pid = shell);
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  }

  shellPid(): Promise<number | undefined> {
    return this.#shellPid;
  }

  set sink(sink: TerminalSink) {
    this.#sink = sink;
  }

  get running(): boolean {
    return !this.#exited;
  }

  #end(): void {
    if (this.#exited) return;
    this.#exited = true;
    livePtys.delete(this);
    clearTimeout(this.#flushTimer);
    this.#flush();
    this.#sink.ended(this.#closing ? 'closed' : 'exit');
  }

  #push(text: string): void {
    this.#pending += text;
    if (this.#pending.length > PAUSE_CHARS) this.#child.stdout.pause();
    if (this.#flushTimer === undefined) this.#flush();
  }

  // Sends what is pending now and opens a window in which more output only accumulates.
  #flush(): void {
    this.#flushTimer = undefined;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    this.#sink.output(text);
    if (this.#child.stdout.isPaused()) this.#child.stdout.resume();
    if (!this.#exited) this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_MS);
  }

  write(data: string): void {
    if (this.#exited) throw new Error('The shell has exited');
    this.#child.stdin.write(data);
  }

  /** The shell's working directory, read from /proc; undefined before the shell has started or after it ended. */
  cwd(): string | undefined {
    try {
      return this.#pid === undefined ? undefined : fs.readlinkSync(`/proc/${this.#pid}/cwd`);
    } catch {
      return undefined;
    }
  }

  /** Sets the slave's window size with `stty -F`: the kernel then sends SIGWINCH to the foreground job. */
  resize(cols: number, rows: number): Promise<void> {
    this.#resizing = this.#resizing.then(async () => {
      const pid = await this.#shellPid;
      if (pid === undefined || this.#exited) return;
      let pts: string;
      try {
        pts = fs.readlinkSync(`/proc/${pid}/fd/0`);
      } catch {
        return; // exited meanwhile
      }
      await new Promise<void>((resolve) => execFile('stty', ['-F', pts, 'cols', String(cols), 'rows', String(rows)], () => resolve()));
    });
    return this.#resizing;
  }

  /** Kills script and every process of the shell's session, whatever job (process group) it is in. */
  kill(): void {
    this.#closing = true;
    const kill = (pid: number) => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    if (this.#pid !== undefined) sessionMembers(this.#pid).forEach(kill);
    else
      void this.#shellPid.then((sid) => {
        if (sid !== undefined) sessionMembers(sid).forEach(kill);
      });
    if (this.#child.pid !== undefined) kill(-this.#child.pid);
  }
}

/** Real command execution on the agent's machine: a pseudo-terminal shell, or one line at a time through /bin/sh. */
export class LinuxShellProvider implements ShellProvider {
  readonly #opts: LinuxShellOptions;

  constructor(opts: LinuxShellOptions) {
    this.#opts = opts;
  }

  get idleMs(): number {
    return this.#opts.timeoutMs;
  }

  open(cols: number, rows: number): ShellSession {
    if (!this.#opts.allowed) throw new Error('Shell is disabled on this device (start the agent with --allow-shell)');
    fs.mkdirSync(this.#opts.cwd, { recursive: true });
    const user = os.userInfo().username;
    const host = os.hostname();
    const start = fs.realpathSync(this.#opts.cwd);
    let cwd = start;
    let size = { cols, rows };
    const limitMs = Math.min(this.#opts.timeoutMs, INPUT_COMMAND_LIMIT_MS);
    const children = new Set<number>();
    let pty: ScriptPty | undefined;
    return {
      info: { user, host, cwd, prompt: `${user}@${host}` },
      get interactive() {
        return pty?.running === true;
      },
      cwd: () => (pty?.running ? (pty.cwd() ?? start) : cwd),
      startTerminal(sink) {
        if (pty?.running) {
          pty.sink = sink;
          return;
        }
        pty = new ScriptPty({ cwd: start, cols: size.cols, rows: size.rows, sink });
      },
      write(data) {
        if (!pty?.running) throw new Error('No terminal on this session');
        pty.write(data);
      },
      async resize(c, r) {
        size = { cols: c, rows: r };
        await pty?.resize(c, r);
      },
      close() {
        pty?.kill();
        for (const pid of children) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      },
      async run(line, out) {
        // `cd` has to change this session's directory, which a child shell cannot do for us.
        const cd = /^\s*cd(?:\s+(.*?))?\s*$/.exec(line);
        if (cd) {
          const target = path.resolve(cwd, (cd[1] ?? '').replace(/^~(?=\/|$)/, os.homedir()) || os.homedir());
          if (!fs.existsSync(target) || !fs.statSync(target).isDirectory()) {
            out({ output: `cd: ${cd[1] ?? ''}: No such directory\n`, stream: 'stderr' });
            return { exitCode: 1, cwd };
          }
          cwd = target;
          return { exitCode: 0, cwd };
        }
        return new Promise<ShellExitReply>((resolve) => {
          const child = spawn('/bin/sh', ['-c', line], {
            cwd,
            env: { ...process.env, COLUMNS: String(size.cols), LINES: String(size.rows), TERM: 'dumb' },
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          if (child.pid) children.add(child.pid);
          let timedOut = false;
          const timer = setTimeout(() => {
            timedOut = true;
            try {
              if (child.pid) process.kill(-child.pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }, limitMs);
          child.stdout.on('data', (b: Buffer) => out({ output: b.toString('utf8'), stream: 'stdout' }));
          child.stderr.on('data', (b: Buffer) => out({ output: b.toString('utf8'), stream: 'stderr' }));
          child.on('error', (err) => out({ output: `${err.message}\n`, stream: 'stderr' }));
          child.on('close', (code) => {
            clearTimeout(timer);
            if (child.pid) children.delete(child.pid);
            if (timedOut) out({ output: `Command timed out after ${limitMs} ms\n`, stream: 'stderr' });
            resolve({ exitCode: timedOut ? 124 : (code ?? 1), cwd });
          });
        });
      },
    };
  }
}
