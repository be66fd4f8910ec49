import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_PERMISSIONS } from '../../protocol/index.ts';

/**
 * The console's device layer is the one way to a device (issue 17 part 5): no page component imports the
 * realtime engine or calls `engine()`; they use src/devices/ (sendCommand, the presence store, hooks).
 * And the command -> permission-key map is written once, in protocol/catalogue/commands.ts
 * (`COMMAND_RIGHTS`): a hand copy anywhere else in the code fails here.
 */
const root = path.resolve(import.meta.dirname, '..', '..');

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel, keep));
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

/** Why a page component talks to the engine directly, or undefined when it does not. */
export function engineUse(source: string): string | undefined {
  const imported = /from\s+'[^']*\/realtime\/[^']*'|import\(\s*'[^']*\/realtime\/[^']*'\s*\)/.exec(source);
  if (imported) return `imports ${imported[0]}`;
  const called = /\bengine\(\)/.exec(source);
  return called ? 'calls engine()' : undefined;
}

const commandKeys = new Set(COMMAND_PERMISSIONS.values());
const keyLiteral = /'([a-z_]+)'/g;

/** The lines of `source` that write a command's permission key by hand, as a map would. */
export function handWrittenRights(source: string): string[] {
  const found: string[] = [];
  for (const line of source.split('\n')) {
    const keys = [...line.matchAll(keyLiteral)].map((m) => m[1] ?? '').filter((k) => commandKeys.has(k));
    if (keys.length === 0) continue;
    // A command paired with its key ([Command.Reboot, 'device_reboot'], { msgId: Command.Reboot, key: 'device_reboot' }),
    // an entry of a map by name (reboot: 'device_reboot'), or a list of several keys (a tab's keys).
    if (/Command\.\w+/.test(line) || /^\s*['\w]+\s*:\s*'[a-z_]+',?\s*$/.test(line) || keys.length >= 3) found.push(line.trim());
  }
  return found;
}

/**
 * Lines that name several command keys without being a command -> key map. The gateway's flow keys are
 * the keys whose flows it drops when a console loses them (to derive from the flow commands' entries in
 * COMMAND_RIGHTS by server/gateway's owner).
 */
const KNOWN = new Set(["server/gateway/console-endpoint.ts: const FLOW_PERMISSIONS = ['device_shell', 'device_file', 'device_file_export', 'device_capture'] as const;"]);

describe('console layers', () => {
  it('no page component imports the realtime engine or calls engine(); they go through src/devices', () => {
    const pages = filesUnder('src', (f) => f.endsWith('.tsx'));
    expect(pages.length).toBeGreaterThan(50);
    const offenders = pages.map((f) => [f, engineUse(fs.readFileSync(path.join(root, f), 'utf8'))]).filter(([, why]) => why !== undefined);
    expect(offenders).toEqual([]);
  });

  it('outside src/devices only the session bootstrap (connect at login, stop at logout) imports src/realtime', () => {
    const code = filesUnder('src', (f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !f.startsWith(path.join('src', 'devices')) && !f.startsWith(path.join('src', 'realtime')));
    const importers = code.filter((f) => engineUse(fs.readFileSync(path.join(root, f), 'utf8')) !== undefined);
    expect(importers).toEqual([path.join('src', 'state', 'bootstrap.ts')]);
  });

  it('the engine check catches an import of src/realtime and a direct call', () => {
    expect(engineUse(`import { engine } from '../../realtime/realtime.ts';`)).toMatch(/imports/);
    expect(engineUse(`const { presence } = await import('../realtime/realtime.ts');`)).toMatch(/imports/);
    expect(engineUse(`const sub = engine().batches$.subscribe(f);`)).toBe('calls engine()');
    expect(engineUse(`import { sendCommand } from '../../devices/commands.ts';\nvoid sendCommand(device, Command.Reboot);`)).toBeUndefined();
  });

  it('no command -> permission map is written outside protocol/catalogue', () => {
    const code = ['src', 'server', 'agent', 'workers'].flatMap((dir) => filesUnder(dir, (f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f)));
    const offenders = code.flatMap((f) => handWrittenRights(fs.readFileSync(path.join(root, f), 'utf8')).map((line) => `${f}: ${line}`));
    expect(offenders.filter((o) => !KNOWN.has(o))).toEqual([]);
  });

  it('the map check catches the hand copies the console and the gateway used to keep', () => {
    // The gateway's old map, remote management's old actions, the row actions' and the tabs' old keys.
    expect(handWrittenRights(`const permissions = new Map<number, string>([\n  [Command.Reboot, 'device_reboot'],\n]);`)).toHaveLength(1);
    expect(handWrittenRights(`  reset: { msgId: Command.FactoryReset, key: 'device_reset', danger: true },`)).toHaveLength(1);
    expect(handWrittenRights(`export const ROW_ACTION_KEY = {\n  remark: 'device_remark',\n  reboot: 'device_reboot',\n  clear: 'device_clear',\n};`)).toEqual([`reboot: 'device_reboot',`, `clear: 'device_clear',`]);
    expect(handWrittenRights(`  wholeTest: ['device_base_info', 'device_system_info', 'device_runtime', 'device_file', 'device_capture'],`)).toHaveLength(1);
    // Asking whether the user holds a key is not a map.
    expect(handWrittenRights(`{can('device_reboot') && (`)).toEqual([]);
    expect(handWrittenRights(`const mayOta = can('device_system_info');`)).toEqual([]);
  });
});
