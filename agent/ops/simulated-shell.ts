import type { ShellExitReply, ShellOutput } from '../../protocol/index.ts';
import type { FileStore } from './file-store.ts';
import { rootSegments } from './file-store.ts';
import type { ShellProvider, ShellSession, TerminalSink } from './shell.ts';

/** The longest `sleep` a simulated shell does: enough to try Ctrl-C, short enough not to hold a test. */
const MAX_SLEEP_S = 300;
const HISTORY_LINES = 100;
/** As the real agent's default (DEFAULT_SHELL_IDLE_MS), so a fleet of simulated consoles behaves like real ones. */
const SIMULATED_IDLE_MS = 10 * 60_000;

/**
 * A small built-in shell for simulated devices: echo, ls, cd, pwd, cat, uname, date, whoami, stty, sleep,
 * clear, help. Its terminal is a line editor good enough for the console: echo, backspace, Ctrl-C, Ctrl-U,
 * Ctrl-D, history on the arrow keys, and type-ahead while a command runs.
 */
export class SimulatedShellProvider implements ShellProvider {
  readonly idleMs = SIMULATED_IDLE_MS;
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

    // One command line, shared by line mode and the terminal; `signal` is the terminal's Ctrl-C.
    const exec = async (line: string, out: (o: ShellOutput) => void, signal?: AbortSignal): Promise<ShellExitReply> => {
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
            return ok(args[0] === 'size' ? `${size.rows} ${size.cols}` : `speed 38400 baud; rows ${size.rows}; columns ${size.cols};`);
          case 'clear':
            out({ output: '\x1b[H\x1b[2J', stream: 'stdout' });
            return { exitCode: 0, cwd: abs() };
          case 'sleep': {
            const seconds = Number(args[0]);
            if (!Number.isFinite(seconds) || seconds < 0) return fail(`sleep: invalid time interval '${args[0] ?? ''}'`);
            const interrupted = await new Promise<boolean>((done) => {
              const timer = setTimeout(() => done(false), Math.min(seconds, MAX_SLEEP_S) * 1000);
              signal?.addEventListener('abort', () => (clearTimeout(timer), done(true)), { once: true });
            });
            return { exitCode: interrupted ? 130 : 0, cwd: abs() };
          }
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
            return ok('echo ls cd pwd cat uname date whoami stty sleep clear exit help');
          default:
            return { ...fail(`sh: ${cmd}: not found`), exitCode: 127 };
        }
      } catch (err) {
        return fail(`${cmd}: ${err instanceof Error ? err.message : String(err)}`);
      }
    };

    // The terminal: a line editor in front of exec.
    let sink: TerminalSink | undefined;
    let ended = false;
    let line = '';
    let typeahead = '';
    let running: AbortController | undefined;
    let escape: 0 | 1 | 2 = 0; // 1 after ESC, 2 inside a CSI/SS3 sequence
    const history: string[] = [];
    let historyAt = 0;
    const out = (text: string) => sink?.output(text);
    const prompt = () => out(`\x1b[32mshell@${host}\x1b[0m:\x1b[34m${abs()}\x1b[0m$ `);
    const replaceLine = (text: string) => {
      out('\b \b'.repeat(line.length) + text);
      line = text;
    };
    const end = (reason: 'exit' | 'closed') => {
      if (ended) return;
      ended = true;
      running?.abort();
      sink?.ended(reason);
    };
    const runLine = (command: string) => {
      const controller = new AbortController();
      running = controller;
      void exec(command, (o) => out(o.stream === 'stderr' ? `\x1b[31m${o.output.replace(/\n/g, '\r\n')}\x1b[0m` : o.output.replace(/\n/g, '\r\n')), controller.signal).then(() => {
        running = undefined;
        if (ended) return;
        if (controller.signal.aborted) out('^C\r\n');
        prompt();
        const rest = typeahead;
        typeahead = '';
        feed(rest);
      });
    };
    const feed = (data: string) => {
      for (let i = 0; i < data.length && !ended; i++) {
        const ch = data[i] as string;
        if (running) {
          // A real terminal's line discipline acts on Ctrl-C at once and holds the rest for the shell.
          if (ch === '\x03') running.abort();
          else typeahead += ch;
          continue;
        }
        if (escape === 1) {
          escape = ch === '[' || ch === 'O' ? 2 : 0;
          continue;
        }
        if (escape === 2) {
          if (ch >= '@' && ch <= '~') {
            escape = 0;
            if (ch === 'A' && historyAt > 0) replaceLine(history[--historyAt] ?? '');
            else if (ch === 'B' && historyAt < history.length) replaceLine(history[++historyAt] ?? '');
          }
          continue;
        }
        if (ch === '\x1b') escape = 1;
        else if (ch === '\r' || ch === '\n') {
          if (ch === '\n' && data[i - 1] === '\r') continue;
          const command = line;
          line = '';
          out('\r\n');
          if (command.trim() !== '') {
            history.push(command);
            if (history.length > HISTORY_LINES) history.shift();
          }
          historyAt = history.length;
          if (command.trim() === 'exit') return end('exit');
          if (command.trim() === '') {
            prompt();
            continue;
          }
          typeahead = data.slice(i + 1);
          return runLine(command);
        } else if (ch === '\x7f' || ch === '\b') {
          if (line.length > 0) {
            line = line.slice(0, -1);
            out('\b \b');
          }
        } else if (ch === '\x03') {
          line = '';
          historyAt = history.length;
          out('^C\r\n');
          prompt();
        } else if (ch === '\x04') {
          if (line === '') {
            out('exit\r\n');
            return end('exit');
          }
        } else if (ch === '\x15') replaceLine('');
        else if (ch === '\x0c') {
          out('\x1b[H\x1b[2J');
          prompt();
          out(line);
        } else if (ch >= ' ') {
          line += ch;
          out(ch);
        }
      }
    };

    return {
      info: { user: 'shell', host, cwd: '/', prompt: `shell@${host}` },
      cwd: abs,
      get interactive() {
        return sink !== undefined && !ended;
      },
      startTerminal(next) {
        const fresh = sink === undefined || ended;
        sink = next;
        if (!fresh) return;
        ended = false;
        line = '';
        prompt();
      },
      write(data) {
        if (sink === undefined || ended) throw new Error('No terminal on this session');
        feed(data);
      },
      async resize(c, r) {
        size = { cols: c, rows: r };
      },
      close() {
        if (sink) end('closed');
      },
      run: (line, out) => exec(line, out),
    };
  }
}
