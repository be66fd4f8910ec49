import { Command, decodeFailure, type Envelope, failureText, type FinalReply, finalReply, type SendOf, LINUX_CANNOT, labelOf, OnlineState, refusedOnSystem, Result, resultLabels, type ResultCode } from '../../protocol/index.ts';
import type { Language } from '../i18n/language.ts';
import { ClickGuard } from './click-guard.ts';

/** The device a command is for, as the page knows it. */
export interface CommandTarget {
  readonly sn: string;
  /** Online as the page last heard (live presence applied); undefined when the page does not know. */
  readonly onlineState?: number;
  /** 'android' or 'linux'; undefined when the page does not know. */
  readonly systemType?: string;
}

/** How the outcome is told: the device list's 'Reboot on SN: Success', or the device view's 'Done: …'. */
export type CommandVoice = 'row' | 'view';

export interface SendOptions {
  /**
   * Seconds to hold the command on the server for an offline device, delivered once when it returns
   * (issue 5); without it an offline device is refused at once.
   */
  readonly hold?: number;
  /**
   * The repeated-click guard: by default one key per (command, device); a string names another key (two
   * buttons sharing one guard); false for sends that are not clicks (a terminal's keystrokes).
   */
  readonly guard?: boolean | string;
  /** How the outcome is told (default 'row'); 'none' tells nothing (the caller reads the reply). */
  readonly voice?: CommandVoice | 'none';
  /**
   * Refuse an offline device before sending (default true). Destructive commands from the list pass false,
   * so that the gateway's own answer shows.
   */
  readonly checkOnline?: boolean;
  /** The command's name in a 'row' outcome, when the page names it otherwise than the list's actions. */
  readonly label?: string;
  /** The flow a command belongs to (a shell session's later messages). */
  readonly flowId?: string;
}

/** What became of a send: answered (with the reply), held for later, or refused or failed before a reply. */
export type SendOutcome<K extends number = number> = { readonly kind: 'reply'; readonly ok: boolean; readonly reply: FinalReply<K> } | NoReply;
/** A send that ended without a reply: held for later, or refused or failed before one. */
type NoReply = { readonly kind: 'held' } | { readonly kind: 'refused' } | { readonly kind: 'failed' };

/** Holding on the server: delivered at once when the device was online after all, or held. */
export interface HoldAnswer {
  readonly delivered: boolean;
  readonly result: number | null;
  readonly data?: unknown;
}

/** Everything the sender reaches outside itself; the console wires the worker engine, REST, i18n and toasts. */
export interface SenderPorts {
  readonly request: <K extends number>(msgId: K, sn: string, data: SendOf<K> | undefined, flowId?: string) => Promise<FinalReply<K>>;
  /** Holds a command for an offline device (POST /device-ops/command); rejects when the server refused it (the request layer said why). */
  readonly hold: (sn: string, msgId: number, data: unknown, ttlSeconds: number) => Promise<HoldAnswer>;
  readonly toast: (color: 'green' | 'red' | 'orange' | 'blue', message: string) => void;
  readonly t: (key: string, params?: Record<string, unknown>) => string;
  readonly language: () => Language;
  /** Milliseconds on a monotonic clock, for the click guard. */
  readonly now?: () => number;
  /** Called when a command was held, so lists of held commands reload. */
  readonly onHeld?: (sn: string, msgId: number) => void;
}

/** The label key of each command as the console's actions name it ('Reboot', 'Send message', ...). */
const ACTION_LABEL: Readonly<Partial<Record<number, string>>> = {
  [Command.Reboot]: 'fleet.action.reboot',
  [Command.FactoryReset]: 'fleet.action.reset',
  [Command.ClearData]: 'fleet.action.clear',
  [Command.PushText]: 'fleet.action.message',
  [Command.Whitelist]: 'fleet.action.whitelist',
  [Command.StartStream]: 'fleet.action.liveView',
};

/**
 * The console's one way to send a command to a device from a click and tell the user what became of it
 * (devices-and-commerce sections 6 and 8): the repeated-click guard ('You click too frequently！' within
 * 1 s), the refusals said without a round trip (a Linux device and an Android-only command, an offline
 * device unless the command is held), the send through the worker engine or the hold on the server, and
 * one toast with the outcome in the user's language.
 */
export function createCommandSender(ports: SenderPorts) {
  const guard = new ClickGuard(undefined, ports.now);
  const { t } = ports;

  /** Text of a result code in the user's language; a failure's own message (by its key when it has one) first. */
  function resultText(result: number | undefined, data?: unknown): string {
    const lang = ports.language();
    const serverMessage = result === Result.Success || typeof data !== 'object' || data === null ? undefined : failureText(lang, data);
    if (serverMessage !== undefined) return serverMessage;
    const label = result === undefined ? undefined : labelOf(resultLabels, result as ResultCode);
    return label ? label[lang] : String(result);
  }

  /** A failed reply in the spec's words: offline and Linux refusals get the spec's messages. */
  function replyMessage(reply: Pick<Envelope, 'result' | 'data'>): string {
    const message = decodeFailure(reply.data).message;
    if (reply.result === Result.DeviceOffline) return t('deviceView.offline');
    if (message === LINUX_CANNOT) return t('deviceView.linuxCannot');
    return resultText(reply.result, reply.data);
  }

  /** The label of a command as the console's actions name it. */
  function commandLabel(msgId: number): string {
    const key = ACTION_LABEL[msgId];
    return key ? t(key) : String(msgId);
  }

  /** False, and the spec's 'You click too frequently！' once, when the same click came less than 1 s ago. */
  function clickAllowed(key: string): boolean {
    if (guard.allow(key)) return true;
    ports.toast('orange', t('fleet.msg.tooFrequent'));
    return false;
  }

  /** Tells one outcome in the chosen voice. */
  function tell(voice: CommandVoice | 'none', msgId: number, sn: string, reply: Pick<Envelope, 'result' | 'data'>, label?: string): void {
    if (voice === 'none') return;
    // Waiting for a second account's approval (issue 23) is not a failure: said in blue, in the user's language.
    if (reply.result === Result.AwaitingApproval) {
      const text = resultText(reply.result, reply.data);
      ports.toast('blue', voice === 'row' ? t('fleet.msg.result', { command: label ?? commandLabel(msgId), sn, result: text }) : text);
      return;
    }
    const ok = reply.result === Result.Success;
    if (voice === 'row') {
      ports.toast(ok ? 'green' : 'red', t('fleet.msg.result', { command: label ?? commandLabel(msgId), sn, result: resultText(reply.result, reply.data) }));
      return;
    }
    const message = decodeFailure(reply.data).message;
    ports.toast(ok ? 'green' : 'red', ok ? t('deviceView.done', { message: typeof message === 'string' ? message : resultText(reply.result) }) : replyMessage(reply));
  }

  /** Tells a refusal made before sending. */
  function refuse(voice: CommandVoice | 'none', msgId: number, sn: string, why: 'linux' | 'offline', label?: string): NoReply {
    if (voice === 'row') ports.toast('red', t('fleet.msg.result', { command: label ?? commandLabel(msgId), sn, result: t(why === 'linux' ? 'fleet.msg.linux' : 'fleet.msg.offline') }));
    else if (voice === 'view') ports.toast('red', t(why === 'linux' ? 'deviceView.linuxCannot' : 'deviceView.offline'));
    return { kind: 'refused' };
  }

  /**
   * True, with the refusal told, when `device` cannot take `msgId` now (a Linux device and an Android-only
   * command, an offline device): for actions that open a page or dialog before anything is sent.
   */
  function refusedBeforeSending(device: CommandTarget, msgId: number, voice: CommandVoice = 'row'): boolean {
    if (device.systemType !== undefined && refusedOnSystem(msgId, device.systemType)) return (refuse(voice, msgId, device.sn, 'linux'), true);
    if (device.onlineState !== undefined && device.onlineState !== OnlineState.Online) return (refuse(voice, msgId, device.sn, 'offline'), true);
    return false;
  }

  function failed(voice: CommandVoice | 'none', err: unknown): NoReply {
    if (voice !== 'none') ports.toast('red', err instanceof Error ? err.message : String(err));
    return { kind: 'failed' };
  }

  /** Sends `msgId` with `data` to `device` after the guards, and tells the outcome (see {@link SendOptions}). */
  async function sendCommand<K extends number>(device: CommandTarget, msgId: K, data?: SendOf<K>, opts: SendOptions = {}): Promise<SendOutcome<K>> {
    const voice = opts.voice ?? 'row';
    // Refusals first: a click the console refused did nothing, so it does not count against the guard.
    if (device.systemType !== undefined && refusedOnSystem(msgId, device.systemType)) return refuse(voice, msgId, device.sn, 'linux', opts.label);
    const offline = device.onlineState !== undefined && device.onlineState !== OnlineState.Online;
    if (offline && !opts.hold && opts.checkOnline !== false) return refuse(voice, msgId, device.sn, 'offline', opts.label);
    const guardKey = opts.guard === undefined || opts.guard === true ? `${msgId}:${device.sn}` : opts.guard;
    if (guardKey !== false && !clickAllowed(guardKey)) return { kind: 'refused' };
    if (offline && opts.hold) {
      try {
        const answer = await ports.hold(device.sn, msgId, data ?? {}, opts.hold);
        if (answer.delivered) {
          // Delivered at once: the server relayed the device's reply; it is read as the engine reads one (WIRE-2).
          const reply = finalReply(msgId, { msgId, sn: device.sn, result: (answer.result ?? Result.Fail) as ResultCode, data: answer.data });
          tell(voice, msgId, device.sn, reply, opts.label);
          return { kind: 'reply', ok: reply.result === Result.Success, reply };
        }
        if (voice !== 'none') ports.toast('blue', t('deviceView.remote.heldToast'));
        ports.onHeld?.(device.sn, msgId);
        return { kind: 'held' };
      } catch {
        return { kind: 'failed' }; // the request layer has shown the server's message
      }
    }
    try {
      const reply = await ports.request(msgId, device.sn, data, opts.flowId);
      tell(voice, msgId, device.sn, reply, opts.label);
      return { kind: 'reply', ok: reply.result === Result.Success, reply };
    } catch (err) {
      return failed(voice, err);
    }
  }

  return { sendCommand, refusedBeforeSending, clickAllowed, resultText, replyMessage, commandLabel, tell };
}

export type CommandSender = ReturnType<typeof createCommandSender>;
