import { Command, Result, type ShellEndReason, type ShellOutput, type ShellRequest } from '../../protocol/index.ts';
import type { CommandOutcome, DeviceSession } from '../device-session.ts';
import type { ShellProvider, ShellSession, TerminalSink } from './shell.ts';

/** Terminal output kept per session for a console that re-attaches after losing its socket: a few screens of a busy terminal. */
export const BACKLOG_CHARS = 64 * 1024;
/** Sessions one device holds at once; each interactive one is a process tree on a real device. */
export const MAX_SHELL_SESSIONS = 16;
/** One `write` carries at most this much (a large paste arrives in several). */
export const MAX_WRITE_CHARS = 64 * 1024;
const MAX_LINE_CHARS = 8192;

/** Runs `fn` after `ms`; returns the cancel. Injected so tests drive the idle limit without waiting. */
export type Schedule = (fn: () => void, ms: number) => () => void;

const realSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/** The part of a device session the shell uses: sending output on a flow. */
export type FlowSender = Pick<DeviceSession, 'sendOnFlow'>;

interface Entry {
  readonly session: ShellSession;
  device: FlowSender;
  /** Terminal output characters sent so far; the next chunk's `offset`. */
  offset: number;
  /** The last BACKLOG_CHARS of terminal output. */
  backlog: string;
  /** Line commands running: a session is not idle while one runs. */
  busy: number;
  cancelIdle?: () => void;
}

const ok = (data?: unknown): CommandOutcome => ({ result: Result.Success, data });
const fail = (message: string): CommandOutcome => ({ result: Result.Fail, data: { message } });
const bad = (message: string): CommandOutcome => ({ result: Result.MessageError, data: { message } });
/** A terminal side: a whole number of cells in 1-999, else `dflt`. */
const dims = (v: number | undefined, dflt: number) => (v !== undefined && Number.isInteger(v) && v > 0 && v < 1000 ? v : dflt);

/**
 * The shell sessions of one device, one per flow (65563, PROTOCOL.md DOPS-2): opens and re-attaches them,
 * streams terminal output with offsets and keeps a backlog for re-attaching consoles, and closes a session
 * idle (no request, no output) for the provider's idle limit.
 */
export class ShellSessions {
  readonly #provider: ShellProvider;
  readonly #schedule: Schedule;
  readonly #entries = new Map<string, Entry>();

  constructor(provider: ShellProvider, schedule: Schedule = realSchedule) {
    this.#provider = provider;
    this.#schedule = schedule;
  }

  /** Sessions open now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Ends every session (the device's connection is going away for good); terminals say `closed` if they still can. */
  closeAll(): void {
    for (const flowId of [...this.#entries.keys()]) this.#close(flowId);
  }

  // Ends a session on request: the terminal's last message is `ended: 'closed'` (sent before the reply,
  // so a console hears how its terminal ended whichever of the two it waits for). A session that is gone
  // already was announced when it went (`exit` or `idle`), and a line-mode session has no terminal to end.
  #close(flowId: string): void {
    const entry = this.#remove(flowId);
    if (!entry) return;
    const interactive = entry.session.interactive;
    entry.session.close();
    if (interactive) this.#announceEnd(flowId, entry, 'closed');
  }

  /** One 65563 request on flow `flowId`, its data decoded by the command map (typed() in device-session.ts). */
  readonly handle = async (d: ShellRequest, flowId: string | undefined, device: FlowSender): Promise<CommandOutcome> => {
    if (!flowId) return bad('flowId is required');
    const entry = this.#entries.get(flowId);
    if (entry) {
      entry.device = device;
      this.#touch(flowId, entry);
    }
    switch (d.op) {
      case 'open':
        return this.#open(flowId, entry, device, d);
      case 'write': {
        if (!entry?.session.interactive) return fail('No shell session on this flow; open one first');
        const data = d.data;
        if (data.length > MAX_WRITE_CHARS) return bad(`data must be a string of at most ${MAX_WRITE_CHARS} characters`);
        entry.session.write(data);
        return ok({});
      }
      case 'input': {
        if (!entry) return fail('No shell session on this flow; open one first');
        const line = d.line;
        if (line.length > MAX_LINE_CHARS) return bad(`line must be a string of at most ${MAX_LINE_CHARS} characters`);
        if (line.trim() === '') return bad('Shell command cannot be empty');
        entry.busy++;
        entry.cancelIdle?.();
        try {
          return ok(await entry.session.run(line, (o) => entry.device.sendOnFlow(flowId, Command.Shell, o)));
        } finally {
          entry.busy--;
          this.#touch(flowId, entry);
        }
      }
      case 'resize': {
        const cols = dims(d.cols, 80);
        const rows = dims(d.rows, 24);
        await entry?.session.resize(cols, rows);
        return ok({ cols, rows });
      }
      case 'close':
        this.#close(flowId);
        return ok({});
    }
  };

  #open(flowId: string, existing: Entry | undefined, device: FlowSender, d: Extract<ShellRequest, { op: 'open' }>): CommandOutcome {
    let entry = existing;
    if (!entry) {
      if (this.#entries.size >= MAX_SHELL_SESSIONS) return fail('Too many shell sessions on this device; close one first');
      // Throws, with a reason for the console, when the device allows no shell.
      entry = { session: this.#provider.open(dims(d.cols, 80), dims(d.rows, 24)), device, offset: 0, backlog: '', busy: 0 };
      this.#entries.set(flowId, entry);
      this.#touch(flowId, entry);
    }
    const { session } = entry;
    if (d.raw === true && !session.interactive) {
      entry.offset = 0;
      entry.backlog = '';
      session.startTerminal(this.#sink(flowId, entry));
    }
    if (!session.interactive) return ok({ ...session.info, cwd: session.cwd() });
    const since = d.since !== undefined && Number.isInteger(d.since) && d.since >= 0 ? Math.min(d.since, entry.offset) : 0;
    const held = entry.offset - entry.backlog.length;
    return ok({ ...session.info, cwd: session.cwd(), raw: true, offset: entry.offset, backlog: entry.backlog.slice(Math.max(0, since - held)) });
  }

  #sink(flowId: string, entry: Entry): TerminalSink {
    const current = () => this.#entries.get(flowId) === entry;
    return {
      output: (text) => {
        if (!current()) return; // closed: whatever the dying process still printed has no reader
        const message: ShellOutput = { output: text, offset: entry.offset };
        entry.offset += text.length;
        entry.backlog = (entry.backlog + text).slice(-BACKLOG_CHARS);
        entry.device.sendOnFlow(flowId, Command.Shell, message);
        this.#touch(flowId, entry);
      },
      ended: (reason) => {
        if (!current()) return;
        this.#remove(flowId);
        this.#announceEnd(flowId, entry, reason);
      },
    };
  }

  #announceEnd(flowId: string, entry: Entry, reason: ShellEndReason): void {
    const message: ShellOutput = { output: '', offset: entry.offset, ended: reason };
    entry.device.sendOnFlow(flowId, Command.Shell, message);
  }

  // Restarts the idle countdown; a session running a line command waits for it instead.
  #touch(flowId: string, entry: Entry): void {
    entry.cancelIdle?.();
    entry.cancelIdle = undefined;
    if (entry.busy > 0) return;
    entry.cancelIdle = this.#schedule(() => {
      if (this.#entries.get(flowId) !== entry) return;
      const interactive = entry.session.interactive;
      this.#remove(flowId);
      entry.session.close();
      if (interactive) this.#announceEnd(flowId, entry, 'idle');
    }, this.#provider.idleMs);
  }

  #remove(flowId: string): Entry | undefined {
    const entry = this.#entries.get(flowId);
    if (!entry) return undefined;
    entry.cancelIdle?.();
    this.#entries.delete(flowId);
    return entry;
  }
}
