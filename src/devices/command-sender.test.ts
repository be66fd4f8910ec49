import i18next, { type i18n } from 'i18next';
import { describe, expect, it } from 'vitest';
import { Command, type Envelope, finalReply, OnlineState, Result } from '../../protocol/index.ts';
import type { Language } from '../i18n/language.ts';
import { en } from '../i18n/locales/en.ts';
import { zh } from '../i18n/locales/zh.ts';
import { createCommandSender, type HoldAnswer, type SenderPorts } from './command-sender.ts';

/** One console in `lang`, with the real texts, a clock the test moves, and the toasts and sends it made. */
async function consoleIn(lang: Language, answer: (msgId: number, sn: string) => Envelope | Promise<Envelope> = (msgId, sn) => ({ msgId, sn, result: Result.Success })) {
  const texts: i18n = i18next.createInstance();
  await texts.init({ resources: { en: { translation: en }, zh: { translation: zh } }, lng: lang, interpolation: { escapeValue: false } });
  const toasts: { color: string; message: string }[] = [];
  const sent: { msgId: number; sn: string; data: unknown }[] = [];
  const held: { sn: string; msgId: number; ttl: number }[] = [];
  let now = 0;
  let holdAnswer: HoldAnswer = { delivered: false, result: null };
  const ports: SenderPorts = {
    request: async (msgId, sn, data) => {
      sent.push({ msgId, sn, data });
      // The device's raw reply, read as the engine reads one.
      return finalReply(msgId, await answer(msgId, sn));
    },
    hold: async (sn, msgId, _data, ttl) => {
      held.push({ sn, msgId, ttl });
      return holdAnswer;
    },
    toast: (color, message) => toasts.push({ color, message }),
    t: (key, params) => (params ? texts.t(key, params) : texts.t(key)),
    language: () => lang,
    now: () => now,
  };
  return {
    sender: createCommandSender(ports),
    toasts,
    sent,
    held,
    wait: (ms: number) => (now += ms),
    answerHoldWith: (a: HoldAnswer) => (holdAnswer = a),
  };
}

const online = { sn: 'SN-1', onlineState: OnlineState.Online, systemType: 'android' };
const offline = { ...online, onlineState: OnlineState.Offline };

describe('sendCommand, the console device layer', () => {
  it('refuses a second click of the same command on the same device within 1 s, saying so once, in both languages', async () => {
    for (const [lang, text] of [
      ['en', 'You click too frequently！'],
      ['zh', '您点击太频繁了！'],
    ] as const) {
      const c = await consoleIn(lang);
      expect((await c.sender.sendCommand(online, Command.Reboot)).kind).toBe('reply');
      c.wait(999);
      expect(await c.sender.sendCommand(online, Command.Reboot)).toEqual({ kind: 'refused' });
      expect(c.sent).toHaveLength(1);
      expect(c.toasts.filter((t) => t.message === text)).toHaveLength(1);
      // Another device, another command, or the same click a second later go through.
      expect((await c.sender.sendCommand({ ...online, sn: 'SN-2' }, Command.Reboot)).kind).toBe('reply');
      expect((await c.sender.sendCommand(online, Command.PushText, { text: 'hi' })).kind).toBe('reply');
      c.wait(1);
      expect((await c.sender.sendCommand(online, Command.Reboot)).kind).toBe('reply');
      expect(c.sent.map((s) => `${s.msgId}:${s.sn}`)).toEqual([`${Command.Reboot}:SN-1`, `${Command.Reboot}:SN-2`, `${Command.PushText}:SN-1`, `${Command.Reboot}:SN-1`]);
    }
  });

  it('shares one guard between buttons given the same key, and lets non-click sends through', async () => {
    const c = await consoleIn('en');
    expect(c.sender.clickAllowed('bulk:reboot')).toBe(true);
    expect(c.sender.clickAllowed('bulk:reboot')).toBe(false);
    expect(await c.sender.sendCommand(online, Command.Reboot, undefined, { guard: 'bulk:reboot' })).toEqual({ kind: 'refused' });
    await c.sender.sendCommand(online, Command.Shell, { op: 'input', line: 'ls' }, { guard: false, voice: 'none' });
    await c.sender.sendCommand(online, Command.Shell, { op: 'input', line: 'ls' }, { guard: false, voice: 'none' });
    expect(c.sent).toHaveLength(2);
    expect(c.toasts.map((t) => t.message)).toEqual(['You click too frequently！', 'You click too frequently！']);
  });

  it('toasts the result once with its text, in the list voice and in the device view voice, in both languages', async () => {
    const en1 = await consoleIn('en');
    await en1.sender.sendCommand(online, Command.Reboot);
    expect(en1.toasts).toEqual([{ color: 'green', message: 'Reboot on SN-1: Success' }]);

    const zh1 = await consoleIn('zh');
    await zh1.sender.sendCommand(online, Command.Reboot);
    expect(zh1.toasts).toEqual([{ color: 'green', message: 'SN-1 重启：成功' }]);

    // A failure carries the server's message, by its key, in the user's language.
    const refuse = (msgId: number, sn: string): Envelope => ({ msgId, sn, result: Result.Fail, data: { message: 'Permission denied or Session expire' } });
    const en2 = await consoleIn('en', refuse);
    await en2.sender.sendCommand(online, Command.ClearCache, {}, { voice: 'view' });
    expect(en2.toasts).toEqual([{ color: 'red', message: 'Permission denied or Session expire' }]);
    const zh2 = await consoleIn('zh', refuse);
    await zh2.sender.sendCommand(online, Command.Reboot);
    expect(zh2.toasts).toEqual([{ color: 'red', message: 'SN-1 重启：权限不足或会话已过期' }]);

    const done = await consoleIn('en', (msgId, sn) => ({ msgId, sn, result: Result.Success, data: { message: 'cache cleared' } }));
    await done.sender.sendCommand(online, Command.ClearCache, {}, { voice: 'view' });
    expect(done.toasts).toEqual([{ color: 'green', message: 'Done: cache cleared' }]);
  });

  it('tells a command waiting for four-eyes approval (result 7) in blue, not as an error, in both languages', async () => {
    const waiting = (msgId: number, sn: string): Envelope => ({ msgId, sn, result: Result.AwaitingApproval, data: { key: 'approval.pending', params: { id: 12 }, message: 'Waiting for approval by another account (request 12)', approvalId: 12 } });
    const en1 = await consoleIn('en', waiting);
    await en1.sender.sendCommand(online, Command.FactoryReset);
    expect(en1.toasts).toEqual([{ color: 'blue', message: 'Remote reset on SN-1: Waiting for approval by another account (request 12)' }]);
    const zh1 = await consoleIn('zh', waiting);
    await zh1.sender.sendCommand(online, Command.ClearData, {}, { voice: 'view' });
    expect(zh1.toasts).toEqual([{ color: 'blue', message: '等待其他账号审批（申请 12）' }]);
  });

  it('refuses an offline device and a Linux device an Android-only command without sending, in the spec words', async () => {
    const c = await consoleIn('en');
    expect(await c.sender.sendCommand(offline, Command.Reboot)).toEqual({ kind: 'refused' });
    expect(await c.sender.sendCommand({ ...online, systemType: 'linux' }, Command.ClearData, {}, { voice: 'view' })).toEqual({ kind: 'refused' });
    expect(c.sent).toEqual([]);
    expect(c.toasts.map((t) => t.message)).toEqual(['Reboot on SN-1: The equipment is offline', 'Linux devices cannot do this']);
    // Destructive commands from the list may skip the offline check, so the gateway's own answer shows.
    expect((await c.sender.sendCommand(offline, Command.FactoryReset, {}, { checkOnline: false })).kind).toBe('reply');
  });

  it('holds a command for an offline device when asked to, and says so once', async () => {
    const c = await consoleIn('zh');
    // Refused at once without the hold; that click did nothing, so the held one right after it is no repeat.
    expect(await c.sender.sendCommand(offline, Command.Reboot, undefined, { voice: 'view' })).toEqual({ kind: 'refused' });
    expect(c.toasts).toEqual([{ color: 'red', message: '设备不在线' }]);
    c.toasts.length = 0;
    expect(await c.sender.sendCommand(offline, Command.Reboot, undefined, { hold: 86_400, voice: 'view' })).toEqual({ kind: 'held' });
    expect(c.held).toEqual([{ sn: 'SN-1', msgId: Command.Reboot, ttl: 86_400 }]);
    expect(c.sent).toEqual([]);
    expect(c.toasts).toEqual([{ color: 'blue', message: '设备不在线：指令将在设备上线后下发' }]);

    // The device came back meanwhile: the server delivered it at once and the reply is told as usual.
    c.wait(1_000);
    c.answerHoldWith({ delivered: true, result: Result.Success, data: { message: 'ok' } });
    const outcome = await c.sender.sendCommand(offline, Command.Reboot, undefined, { hold: 60, voice: 'view' });
    expect(outcome).toMatchObject({ kind: 'reply', ok: true });
    expect(c.toasts.at(-1)).toEqual({ color: 'green', message: '完成：ok' });
    // An online device is sent to at once, whatever the hold.
    c.wait(1_000);
    await c.sender.sendCommand(online, Command.Reboot, undefined, { hold: 60 });
    expect(c.sent).toHaveLength(1);
    expect(c.held).toHaveLength(2);
  });

  it('tells a send that never reached the device (socket down, timeout) as a failure', async () => {
    const c = await consoleIn('en', () => Promise.reject(new Error('Request Timeout')));
    expect(await c.sender.sendCommand(online, Command.Reboot)).toEqual({ kind: 'failed' });
    expect(c.toasts).toEqual([{ color: 'red', message: 'Request Timeout' }]);
  });
});
