import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { filter, type Subscription } from 'rxjs';
import { proxy } from 'valtio';
import { Command, decode, newFlowId, OnlineState, Result, type ShellEndReason, type ShellOpenReply, type ShellOutput, shellOpened, shellOutput } from '../../../../protocol/index.ts';
import { askDevice, replyMessage } from '../../../devices/commands.ts';
import { i18next } from '../../../i18n/index.ts';
import { deviceChannel } from '../../../devices/channel.ts';
import { presence } from '../../../devices/presence.ts';
import { session } from '../../../state/session.ts';
import { shellFlowStore } from './shell-flow-store.ts';
import { OutputCursor } from './shell-output.ts';

export type ShellStatus = 'connecting' | 'open' | 'disconnected' | 'no-info' | 'ended' | 'device-offline';

/** What a view shows around one device's terminal. */
export interface ShellView {
  status: ShellStatus;
  /** The device's reason when it gave no session. */
  detail?: string;
}

/** Each device's shell state by SN; views read it with useSnapshot, the sessions below write it. */
export const shellViews = proxy<Record<string, ShellView>>({});

/** Resizes are sent at most this often while the user drags a window edge. */
const RESIZE_DEBOUNCE_MS = 150;
/**
 * A session no view shows is closed after this long: switching tabs or pages and back keeps the shell
 * (and what it printed), a page left for good does not hold a process on the device until its idle limit.
 */
export const LEAVE_GRACE_MS = 5 * 60_000;
/** One write request carries at most this much; the device takes 64 Ki characters. */
const WRITE_CHUNK = 16 * 1024;

// Where a reload finds the flow to re-attach to (shell-flow-store.ts); the login is the session token.
const flowStore = shellFlowStore(
  () => (typeof sessionStorage === 'undefined' ? undefined : sessionStorage),
  () => session.token ?? '',
);

const red = (text: string) => `\x1b[31m${text}\x1b[0m`;
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One device's shell, shared by every view of it (the shell tab, the web shell page): a persistent
 * terminal and shell flow that outlive the views for LEAVE_GRACE_MS. A device with an interactive
 * terminal gets the keystrokes as typed; an older one gets lines edited here (line mode).
 */
class DeviceShell {
  readonly #sn: string;
  #flowId: string;
  #flowSub: Subscription | undefined;
  /** The flow came from before a reload: the first open re-attaches, or starts afresh if the device refuses. */
  #restored: boolean;
  readonly #terminal = new Terminal({ convertEol: true, cursorBlink: true, fontSize: 13, scrollback: 5000, theme: { background: '#1e1e1e' } });
  readonly #fit = new FitAddon();
  /** xterm opens into this element once; views lend it a place in the page. */
  readonly #host = document.createElement('div');
  readonly #views: HTMLElement[] = [];
  readonly #cursor = new OutputCursor();
  readonly #subs: Subscription[] = [];
  readonly #disposers: (() => void)[] = [];
  readonly #onDisposed: () => void;
  #opened = false;
  #disposed = false;
  #info: ShellOpenReply | undefined;
  #raw = false;
  /** Whether the device holds a session for this flow (so a reconnect re-attaches without a banner line). */
  #attached = false;
  /** Output heard while an open is in flight waits here: the reply's backlog goes first. */
  #heldOutput: ShellOutput[] | undefined;
  #wasOnline = false;
  #resizeTimer: ReturnType<typeof setTimeout> | undefined;
  #leaveTimer: ReturnType<typeof setTimeout> | undefined;
  #writeQueue = '';
  #writing = false;
  // Line mode only.
  #line = '';
  #cwd = '';
  #busy = false;
  #typeahead = '';

  constructor(sn: string, onDisposed: () => void) {
    this.#sn = sn;
    this.#onDisposed = onDisposed;
    const kept = flowStore.get(sn);
    this.#flowId = kept ?? newFlowId('sh');
    this.#restored = kept !== undefined;
    this.#attached = this.#restored;
    this.#host.style.height = '100%';
    this.#terminal.loadAddon(this.#fit);
    shellViews[sn] = { status: 'connecting' };
    const client = deviceChannel();
    this.#follow();
    this.#subs.push(
      client.connection$.subscribe((state) => {
        if (state.status === 'open') {
          if (!this.#wasOnline) void this.#open();
          this.#wasOnline = true;
        } else if (this.#wasOnline) {
          this.#wasOnline = false;
          this.#info = undefined;
          this.#setView({ status: 'disconnected' });
        }
      }),
    );
    // The device going offline (a reboot, a drop, a move to another organisation) is said in the terminal
    // rather than leaving it silent; when it is back the session is opened again (re-attached where the
    // device kept it).
    let heard = presence.get(sn);
    this.#disposers.push(
      presence.subscribe(sn, () => {
        const now = presence.get(sn);
        if (now === heard) return;
        heard = now;
        const status = shellViews[this.#sn]?.status;
        if (now === OnlineState.Offline && (status === 'open' || status === 'connecting')) {
          this.#info = undefined;
          this.#terminal.write(`\r\n\x1b[33m${i18next.t('deviceView.shell.deviceOffline')}\x1b[0m\r\n`);
          this.#setView({ status: 'device-offline' });
        } else if (now === OnlineState.Online && status === 'device-offline' && this.#wasOnline) void this.#open();
      }),
    );
    const input = this.#terminal.onData((data) => this.#input(data));
    const resized = this.#terminal.onResize(({ cols, rows }) => {
      clearTimeout(this.#resizeTimer);
      this.#resizeTimer = setTimeout(() => {
        if (this.#info) void askDevice(Command.Shell, this.#sn, { op: 'resize', cols, rows }, this.#flowId).catch(() => undefined);
      }, RESIZE_DEBOUNCE_MS);
    });
    this.#disposers.push(
      () => input.dispose(),
      () => resized.dispose(),
    );
  }

  // The device's output on this shell's flow.
  #follow(): void {
    this.#flowSub?.unsubscribe();
    this.#flowSub = deviceChannel()
      .flow(this.#flowId)
      .pipe(filter((e) => e.msgId === Command.Shell && e.result === undefined))
      .subscribe((e) => {
        const out = decode(shellOutput, e.data);
        if (out !== undefined) this.#output(out);
      });
  }

  /** Shows the terminal in `view` until the returned function is called; the newest view wins. */
  show(view: HTMLElement): () => void {
    clearTimeout(this.#leaveTimer);
    this.#views.push(view);
    view.appendChild(this.#host);
    if (!this.#opened) {
      this.#terminal.open(this.#host);
      this.#opened = true;
    }
    const observer = new ResizeObserver(() => {
      if (this.#host.parentElement === view) this.#fit.fit();
    });
    observer.observe(view);
    this.#fit.fit();
    // The operator opened the shell to type in it: keys go to the terminal without a click first.
    this.#terminal.focus();
    return () => {
      observer.disconnect();
      this.#views.splice(this.#views.indexOf(view), 1);
      const previous = this.#views.at(-1);
      if (this.#host.parentElement === view) {
        if (previous) {
          previous.appendChild(this.#host);
          this.#fit.fit();
        } else view.removeChild(this.#host);
      }
      if (this.#views.length === 0) this.#leaveTimer = setTimeout(() => this.dispose(), LEAVE_GRACE_MS);
    };
  }

  /** The text selected in the terminal. */
  selection(): string {
    return this.#terminal.getSelection();
  }

  /** Ends the device's session on request; the terminal stays, and Enter starts a new session. */
  end(): void {
    if (!this.#info) return;
    void askDevice(Command.Shell, this.#sn, { op: 'close' }, this.#flowId).catch(() => undefined);
    this.#ended('closed');
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#resizeTimer);
    clearTimeout(this.#leaveTimer);
    if (this.#attached) void askDevice(Command.Shell, this.#sn, { op: 'close' }, this.#flowId).catch(() => undefined);
    flowStore.set(this.#sn, undefined);
    this.#flowSub?.unsubscribe();
    this.#subs.forEach((s) => s.unsubscribe());
    this.#disposers.forEach((d) => d());
    this.#terminal.dispose();
    this.#host.remove();
    Reflect.deleteProperty(shellViews, this.#sn);
    this.#onDisposed();
  }

  #setView(view: ShellView): void {
    if (!this.#disposed) shellViews[this.#sn] = view;
  }

  async #open(): Promise<void> {
    const terminal = this.#terminal;
    this.#setView({ status: 'connecting' });
    if (!this.#attached) terminal.writeln(i18next.t('deviceView.shell.connecting', { sn: this.#sn }));
    this.#heldOutput = [];
    let afresh = false;
    try {
      const since = this.#attached ? this.#cursor.received : undefined;
      const reply = await askDevice(Command.Shell, this.#sn, { op: 'open', cols: terminal.cols, rows: terminal.rows, raw: true, since }, this.#flowId);
      if (this.#disposed) return;
      const restoring = this.#restored;
      this.#restored = false;
      if (restoring && reply.result !== Result.Success) {
        // The flow from before the reload is not ours any more (or the device dropped it): a new session.
        this.#flowId = newFlowId('sh');
        this.#follow();
        this.#attached = false;
        afresh = true;
        return;
      }
      const info = reply.result === Result.Success ? shellOpened(reply.data) : undefined;
      if (info === undefined) {
        this.#info = undefined;
        this.#attached = false;
        this.#setView({ status: 'no-info', detail: reply.result === Result.Success ? undefined : replyMessage(reply) });
        return;
      }
      const resumed = this.#attached;
      this.#info = info;
      this.#attached = true;
      flowStore.set(this.#sn, this.#flowId);
      this.#raw = info.raw === true;
      // A device terminal sends its own line ends; line mode's output is plain text with bare newlines.
      terminal.options.convertEol = !this.#raw;
      if (!resumed) terminal.writeln(i18next.t('deviceView.shell.connected', { prompt: info.prompt, cwd: info.cwd }));
      this.#setView({ status: 'open' });
      if (this.#raw) {
        if (!resumed) this.#cursor.reset();
        terminal.write(this.#cursor.attach(info));
        // The device kept the size the session had; this view may differ.
        if (resumed) void askDevice(Command.Shell, this.#sn, { op: 'resize', cols: terminal.cols, rows: terminal.rows }, this.#flowId).catch(() => undefined);
      } else {
        this.#cwd = info.cwd;
        this.#line = '';
        this.#typeahead = '';
        this.#busy = false;
        this.#prompt();
      }
    } catch (err) {
      if (!this.#disposed) this.#setView({ status: 'disconnected', detail: errorText(err) });
    } finally {
      const held = this.#heldOutput ?? [];
      this.#heldOutput = undefined;
      held.forEach((o) => this.#output(o));
    }
    if (afresh) await this.#open();
  }

  #output(o: ShellOutput): void {
    if (this.#heldOutput) {
      this.#heldOutput.push(o);
      return;
    }
    const text = this.#cursor.take(o);
    if (text) this.#terminal.write(o.stream === 'stderr' ? red(text) : text);
    if (o.ended) this.#ended(o.ended);
  }

  #ended(reason: ShellEndReason): void {
    // Closing from here ends the session at once, and the device then says so too (ended: 'closed'): the
    // session ended once, so it is told once.
    if (shellViews[this.#sn]?.status === 'ended') return;
    this.#info = undefined;
    this.#attached = false;
    flowStore.set(this.#sn, undefined);
    this.#cursor.reset();
    this.#writeQueue = '';
    this.#terminal.write(`\r\n\x1b[33m${i18next.t(`deviceView.shell.ended.${reason}`)} ${i18next.t('deviceView.shell.restart')}\x1b[0m\r\n`);
    this.#setView({ status: 'ended' });
  }

  #input(data: string): void {
    if (shellViews[this.#sn]?.status === 'ended') {
      if (data.includes('\r')) void this.#open();
      return;
    }
    if (!this.#info) return;
    if (this.#raw) {
      this.#writeQueue += data;
      if (!this.#writing) void this.#pumpWrites();
    } else this.#editLine(data);
  }

  // One write in flight at a time, so keystrokes reach the device in order; what is typed meanwhile goes together.
  async #pumpWrites(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#writeQueue && this.#info) {
        const chunk = this.#writeQueue.slice(0, WRITE_CHUNK);
        this.#writeQueue = this.#writeQueue.slice(chunk.length);
        const reply = await askDevice(Command.Shell, this.#sn, { op: 'write', data: chunk }, this.#flowId);
        if (this.#disposed) return;
        if (reply.result !== Result.Success) {
          this.#terminal.write(`\r\n${red(replyMessage(reply))}\r\n`);
          if (reply.result === Result.Fail) this.#ended('closed');
          this.#writeQueue = '';
        }
      }
    } catch (err) {
      // A lost connection has its banner; keys typed meanwhile are gone, as on any dropped terminal.
      if (!this.#disposed && !(err instanceof Error && err.name === 'ConnectionLostError')) this.#terminal.write(`\r\n${red(errorText(err))}\r\n`);
      this.#writeQueue = '';
    } finally {
      this.#writing = false;
    }
  }

  #prompt(): void {
    if (this.#info) this.#terminal.write(`\x1b[32m${this.#info.prompt}\x1b[0m:\x1b[34m${this.#cwd}\x1b[0m$ `);
  }

  // Line mode: the console edits the line and the device runs it; keys typed while one runs are replayed after.
  #editLine(data: string): void {
    for (const ch of data) {
      if (this.#busy) this.#typeahead += ch;
      else if (ch === '\r') void this.#submitLine();
      else if (ch === '\x7f' || ch === '\b') {
        if (this.#line.length > 0) {
          this.#line = this.#line.slice(0, -1);
          this.#terminal.write('\b \b');
        }
      } else if (ch === '\x03') {
        this.#line = '';
        this.#terminal.write('^C\r\n');
        this.#prompt();
      } else if (ch >= ' ' || ch === '\t') {
        this.#line += ch;
        this.#terminal.write(ch);
      }
    }
  }

  async #submitLine(): Promise<void> {
    const command = this.#line;
    this.#line = '';
    this.#terminal.write('\r\n');
    if (command.trim() === '') return this.#prompt();
    this.#busy = true;
    try {
      const reply = await askDevice(Command.Shell, this.#sn, { op: 'input', line: command }, this.#flowId);
      if (reply.result === Result.Success) this.#cwd = reply.data.cwd ?? this.#cwd;
      else this.#terminal.writeln(red(replyMessage(reply)));
    } catch (err) {
      this.#terminal.writeln(red(errorText(err)));
    }
    this.#busy = false;
    this.#prompt();
    const queued = this.#typeahead;
    this.#typeahead = '';
    if (queued) this.#editLine(queued);
  }
}

const shells = new Map<string, DeviceShell>();

function shellOf(sn: string): DeviceShell {
  let shell = shells.get(sn);
  if (!shell) {
    const created = new DeviceShell(sn, () => shells.get(sn) === created && shells.delete(sn));
    shell = created;
    shells.set(sn, shell);
  }
  return shell;
}

/** Shows a device's shell in `view` (starting it, or taking the running one); returns the view's release. */
export function showShell(sn: string, view: HTMLElement): () => void {
  return shellOf(sn).show(view);
}

/** The selected text of a device's terminal ('' when it has none). */
export function shellSelection(sn: string): string {
  return shells.get(sn)?.selection() ?? '';
}

/** Ends a device's shell session at the user's request. */
export function endShell(sn: string): void {
  shells.get(sn)?.end();
}
