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
  /** Platform -> console: a four-eyes request of this console's account was approved, rejected or expired. */
  ApprovalDecided: 196613,
  /**
   * Console -> platform: the devices of this console's group-control session (issue 22), the whole set each
   * time; an empty list ends the session (so does the console going away).
   */
  GroupControlSession: 196614,
  /** Platform -> console: a watched device came under (or left) another console's group control. */
  DeviceGroupControl: 196615,
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

// Who may send each command (permission key, dangerous, wipes) is in command-map.ts, beside its payload types.
