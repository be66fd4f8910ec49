import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ShellExitReply, ShellOpenReply, ShellOutput } from '../../protocol/index.ts';
import type { FileStore } from './file-store.ts';
import { rootSegments } from './file-store.ts';

/** One shell session of a device: runs command lines one at a time and keeps its working directory. */
export interface ShellSession {
  readonly info: ShellOpenReply;
  run(line: string, out: (o: ShellOutput) => void): Promise<ShellExitReply>;
  resize(cols: number, rows: number): void;
  close(): void;
}

/** Opens shell sessions; throws with a reason a person can read when the device allows none. */
export interface ShellProvider {
  open(cols: number, rows: number): ShellSession;
}

export interface LinuxShellOptions {
  /** Off unless the agent was started with --allow-shell (AGENT_ALLOW_SHELL=1). */
  readonly allowed: boolean;
  /** Where sessions start. */
  readonly cwd: string;
  /** A command running longer than this is killed with its children. */
  readonly timeoutMs: number;
}

/** Real command execution on the agent's machine, line by line through /bin/sh. */
export class LinuxShellProvider implements ShellProvider {
  readonly #opts: LinuxShellOptions;

  constructor(opts: LinuxShellOptions) {
    this.#opts = opts;
  }

  open(cols: number, rows: number): ShellSession {
    if (!this.#opts.allowed) throw new Error('Shell is disabled on this device (start the agent with --allow-shell)');
    fs.mkdirSync(this.#opts.cwd, { recursive: true });
    const user = os.userInfo().username;
    const host = os.hostname();
    let cwd = fs.realpathSync(this.#opts.cwd);
    let size = { cols, rows };
    const timeoutMs = this.#opts.timeoutMs;
    const children = new Set<number>();
    return {
      info: { user, host, cwd, prompt: `${user}@${host}` },
      resize(c, r) {
        size = { cols: c, rows: r };
      },
      close() {
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
          }, timeoutMs);
          child.stdout.on('data', (b: Buffer) => out({ output: b.toString('utf8'), stream: 'stdout' }));
          child.stderr.on('data', (b: Buffer) => out({ output: b.toString('utf8'), stream: 'stderr' }));
          child.on('error', (err) => out({ output: `${err.message}\n`, stream: 'stderr' }));
          child.on('close', (code) => {
            clearTimeout(timer);
            if (child.pid) children.delete(child.pid);
            if (timedOut) out({ output: `Command timed out after ${timeoutMs} ms\n`, stream: 'stderr' });
            resolve({ exitCode: timedOut ? 124 : (code ?? 1), cwd });
          });
        });
      },
    };
  }
}

/** A small built-in shell for simulated devices: echo, ls, cd, pwd, cat, uname, date, whoami, help. */
export class SimulatedShellProvider implements ShellProvider {
  readonly #files: FileStore;
  readonly #sn: string;
  readonly #kernel: string;
  readonly #now: () => number;

  constructor(files: FileStore, sn: string, kernel: string, now: () => number) {
    this.#files = files;
    this.#sn = sn;
    this.#kernel = kernel;
    this.#now = now;
  }

  open(cols: number, rows: number): ShellSession {
    const files = this.#files;
    const host = this.#sn.toLowerCase();
    const kernel = this.#kernel;
    const now = this.#now;
    let cwd: string[] = [];
    let size = { cols, rows };
    const abs = () => `/${cwd.join('/')}`;
    const resolve = (arg: string) => rootSegments(arg.startsWith('/') ? arg : [...cwd, arg].join('/'));
    return {
      info: { user: 'shell', host, cwd: '/', prompt: `shell@${host}` },
      resize(c, r) {
        size = { cols: c, rows: r };
      },
      close() {},
      async run(line, out) {
        const [cmd = '', ...args] = line.trim().split(/\s+/).filter(Boolean);
        const ok = (text: string) => (text && out({ output: text.endsWith('\n') ? text : `${text}\n`, stream: 'stdout' }), { exitCode: 0, cwd: abs() });
        const fail = (text: string) => (out({ output: `${text}\n`, stream: 'stderr' }), { exitCode: 1, cwd: abs() });
        try {
          switch (cmd) {
            case '':
              return { exitCode: 0, cwd: abs() };
            case 'echo':
              return ok(args.join(' '));
            case 'pwd':
              return ok(abs());
            case 'whoami':
              return ok('shell');
            case 'uname':
              return ok(args.includes('-a') ? `Linux ${host} ${kernel} #1 SMP PREEMPT aarch64 GNU/Linux` : args.includes('-r') ? kernel : 'Linux');
            case 'date':
              return ok(new Date(now()).toUTCString());
            case 'stty':
              return ok(`rows ${size.rows}; columns ${size.cols};`);
            case 'ls': {
              const target = resolve(args.find((a) => !a.startsWith('-')) ?? '.');
              const entries = await files.list(target.join('/'));
              return ok(entries.map((e) => (e.type === 'folder' ? `${e.name}/` : e.name)).join('  '));
            }
            case 'cd': {
              const target = resolve(args[0] ?? '/');
              const st = await files.stat(target.join('/'));
              if (!st || st.type !== 'folder') return fail(`cd: ${args[0] ?? ''}: No such directory`);
              cwd = target;
              return { exitCode: 0, cwd: abs() };
            }
            case 'cat': {
              if (!args[0]) return fail('cat: missing file operand');
              return ok(new TextDecoder().decode(await files.read(resolve(args[0]).join('/'))));
            }
            case 'help':
              return ok('echo ls cd pwd cat uname date whoami stty help');
            default:
              return { ...fail(`sh: ${cmd}: not found`), exitCode: 127 };
          }
        } catch (err) {
          return fail(`${cmd}: ${err instanceof Error ? err.message : String(err)}`);
        }
      },
    };
  }
}
