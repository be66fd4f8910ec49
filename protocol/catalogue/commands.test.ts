import { describe, expect, it } from 'vitest';
import { Command, COMMAND_RIGHTS, commandPermission, isDangerousCommand, LINUX_REFUSED_COMMANDS, refusedOnSystem, wipesDevice } from './commands.ts';
import { isPermission } from './permissions.ts';

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

describe('command rights', () => {
  it('every command a console may send needs a catalogued permission key', () => {
    for (const [msgId, right] of Object.entries(COMMAND_RIGHTS)) {
      expect(isPermission(right.permission), msgId).toBe(true);
      expect(commandPermission(Number(msgId))).toBe(right.permission);
    }
    expect(commandPermission(Command.Reboot)).toBe('device_reboot');
    expect(commandPermission(Command.DeviceLogin)).toBeUndefined();
    expect(commandPermission(Command.PushFile)).toBeUndefined();
    expect(commandPermission(424242)).toBeUndefined();
  });

  it('reboot, factory reset and clear data are the dangerous commands; the last two wipe the device', () => {
    const dangerous = Object.values(Command).filter(isDangerousCommand);
    expect(dangerous.sort()).toEqual([Command.Reboot, Command.FactoryReset, Command.ClearData].sort());
    expect(Object.values(Command).filter(wipesDevice).sort()).toEqual([Command.FactoryReset, Command.ClearData].sort());
  });
});
