import { describe, expect, it } from 'vitest';
import { Command, LINUX_REFUSED_COMMANDS, refusedOnSystem } from './commands.ts';

describe('command ids', () => {
  it('CMD-ID-1 keeps every spec id exactly', () => {
    expect(Command).toMatchObject({
      WebsocketId: 65536,
      PushText: 65549,
      PushFile: 65551,
      Reboot: 65558,
      FactoryReset: 65559,
      Shell: 65563,
      Screenshot: 65564,
      StartStream: 65565,
      RemoteControl: 65568,
      ChangeSshConfig: 65575,
      GrabLog: 65577,
    });
  });

  it('CMD-ID-2 ids are unique, device-to-platform ids stay in 1-12 or 36, and 131072 is unused', () => {
    const ids: number[] = Object.values(Command);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(131072);
    for (const id of ids.filter((i) => i < 65536)) expect(id <= 12 || id === 36).toBe(true);
  });
});

describe('Linux refusals', () => {
  it('CMD-LINUX-1 one list holds the Android-only commands and factory reset, never reboot or live view', () => {
    expect([...LINUX_REFUSED_COMMANDS].sort()).toEqual([Command.Whitelist, Command.Daemon, Command.Uninstall, Command.ClearData, Command.ClearCache].sort());
    for (const allowed of [Command.Reboot, Command.StartStream, Command.RemoteControl, Command.Shell, Command.Screenshot, Command.ChangeSshConfig]) expect(LINUX_REFUSED_COMMANDS.has(allowed)).toBe(false);
  });

  it('CMD-LINUX-2 refuses a listed command on Linux only', () => {
    expect(refusedOnSystem(Command.FactoryReset, 'linux')).toBe(false);
    expect(refusedOnSystem(Command.FactoryReset, 'android')).toBe(false);
    expect(refusedOnSystem(Command.Reboot, 'linux')).toBe(false);
  });
});
