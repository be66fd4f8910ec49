/**
 * Command ids carried in an envelope's `msgId`.
 *
 * Spec ids (devices-and-commerce section 7) are kept exactly. The spec names device-to-platform ids
 * 1-12 and 36 without saying what each means, and names several platform-to-device commands without a
 * number; the meanings and numbers marked "ours" are assigned here, documented in PROTOCOL.md, and never
 * reuse a spec id. 131072 is a spec constant of unknown meaning and is left unused.
 */
export const Command = {
  // device -> platform (spec range 1-12 and 36; meanings ours)
  DeviceLogin: 1,
  Heartbeat: 2,
  StatusUpload: 3,
  RuntimeInfo: 4,
  PushProgress: 5,
  LocationUpload: 6,
  LogUpload: 7,
  AbnormalEvent: 8,

  // platform -> device (spec)
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

  // platform -> device (ours: named by the spec without a number)
  OtaList: 65600,
  FileList: 65601,
  FileUpload: 65602,
  FileDownload: 65603,
  FileDelete: 65604,
  AppList: 65605,
  Uninstall: 65606,
  ClearData: 65607,
  ClearCache: 65608,
  Whitelist: 65609,
  Daemon: 65610,
  StopStream: 65611,
  BaseInfo: 65612,
  SystemInfo: 65613,
  /** A runtime sample (processes, CPU, memory) on request; 4 is the device's own upload. */
  RuntimeQuery: 65614,

  // binary transfers, either direction (ours)
  ChunkAck: 65620,
  TransferBegin: 65621,

  // platform -> console events (ours, 0x30000 range so they cannot meet a device command)
  DevicePresence: 196609,
  /** A command held for an offline device reached its end (answered or expired). */
  HeldCommandDone: 196610,
  /** Console -> platform: start (`data.watch` true) or stop hearing the outcomes of commands to a device. */
  DeviceWatch: 196611,
  /** Platform -> console: a command to a watched device ended (sent by anyone, on any node). */
  DeviceCommandOutcome: 196612,
} as const;

export type CommandId = (typeof Command)[keyof typeof Command];

/**
 * The one list of commands Linux devices cannot do: they answer result 1 'Linux devices cannot do this'
 * (devices-and-commerce section 6), and the console refuses them before sending: the Android app and app
 * data commands. Factory reset, live view and control are not here: a Linux terminal resets, streams and
 * takes input through hooks its operator configures on the agent (issue 5), and says so when one is unset.
 */
export const LINUX_REFUSED_COMMANDS: ReadonlySet<number> = new Set<number>([
  Command.Whitelist,
  Command.Daemon,
  Command.Uninstall,
  Command.ClearData,
  Command.ClearCache,
]);

/** True when a device of `systemType` refuses command `msgId` ('Linux devices cannot do this'). */
export function refusedOnSystem(msgId: number, systemType: string): boolean {
  return systemType === 'linux' && LINUX_REFUSED_COMMANDS.has(msgId);
}

const commandIds: ReadonlySet<number> = new Set(Object.values(Command));

/** True when `id` is a command id this protocol defines. */
export function isKnownCommand(id: number): id is CommandId {
  return commandIds.has(id);
}

/** What a console needs to send one command: its permission key, and whether it disrupts or wipes the device. */
export interface CommandRight {
  readonly permission: string;
  /** Reboot, factory reset, clear data: the gateway lets the same one reach a device once a second. */
  readonly dangerous?: true;
  /** Factory reset, clear data: they wipe what is on the device, and the console shows and asks them in red. */
  readonly wipes?: true;
}

/**
 * The one command -> permission-key map (devices-and-commerce section 6), read by the gateway's check of
 * every console command, held command and REST device command, and by the console's row actions, device
 * view tabs and remote management. A command not listed here is refused with result 3.
 */
export const COMMAND_RIGHTS: Readonly<Partial<Record<CommandId, CommandRight>>> = {
  [Command.Reboot]: { permission: 'device_reboot', dangerous: true },
  [Command.FactoryReset]: { permission: 'device_reset', dangerous: true, wipes: true },
  [Command.ClearData]: { permission: 'device_clear', dangerous: true, wipes: true },
  [Command.ClearCache]: { permission: 'device_clear' },
  [Command.BaseInfo]: { permission: 'device_base_info' },
  [Command.SystemInfo]: { permission: 'device_system_info' },
  [Command.OtaList]: { permission: 'device_system_info' },
  [Command.RuntimeQuery]: { permission: 'device_runtime' },
  [Command.Shell]: { permission: 'device_shell' },
  [Command.ChangeSshConfig]: { permission: 'device_ssh' },
  [Command.Screenshot]: { permission: 'device_capture' },
  [Command.GrabLog]: { permission: 'device_capture' },
  [Command.FileList]: { permission: 'device_file' },
  [Command.FileUpload]: { permission: 'device_file' },
  [Command.FileDownload]: { permission: 'device_file_export' },
  [Command.FileDelete]: { permission: 'device_file_delete' },
  [Command.PushText]: { permission: 'device_message' },
  [Command.Whitelist]: { permission: 'device_whitelist' },
  [Command.Daemon]: { permission: 'device_app' },
  [Command.AppList]: { permission: 'device_app' },
  [Command.Uninstall]: { permission: 'device_app' },
  [Command.StartStream]: { permission: 'device_live_view' },
  [Command.StopStream]: { permission: 'device_live_view' },
  [Command.RemoteControl]: { permission: 'device_live_control' },
};

/** {@link COMMAND_RIGHTS} as msgId -> permission key. */
export const COMMAND_PERMISSIONS: ReadonlyMap<number, string> = new Map(
  Object.entries(COMMAND_RIGHTS).flatMap(([msgId, right]): [number, string][] => (right ? [[Number(msgId), right.permission]] : [])),
);

/** The permission key command `msgId` needs, or undefined when consoles may not send it. */
export function commandPermission(msgId: number): string | undefined {
  return COMMAND_PERMISSIONS.get(msgId);
}

/** True for the commands that disrupt or wipe a whole device (reboot, factory reset, clear data). */
export function isDangerousCommand(msgId: number): boolean {
  return isKnownCommand(msgId) && COMMAND_RIGHTS[msgId]?.dangerous === true;
}

/** True for the commands that wipe what is on the device (factory reset, clear data). */
export function wipesDevice(msgId: number): boolean {
  return isKnownCommand(msgId) && COMMAND_RIGHTS[msgId]?.wipes === true;
}
