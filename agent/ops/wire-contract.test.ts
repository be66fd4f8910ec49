import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Command, decodeReply } from '../../protocol/index.ts';
import { simulatedBackend } from '../simulator/simulated-backend.ts';
import { simulatedInfo } from '../simulator/virtual-device.ts';
import type { DeviceBackend } from './device-handlers.ts';
import { linuxBackend, linuxBackendConfig } from './linux-backend.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wire-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** What each backend answers for the information commands, read by the console's decoder for that command. */
async function answers(backend: DeviceBackend): Promise<[number, unknown][]> {
  return [
    [Command.BaseInfo, await backend.baseInfo()],
    [Command.SystemInfo, await backend.systemInfo()],
    [Command.RuntimeQuery, await backend.runtime(50)],
    [Command.OtaList, await backend.otaList()],
    [Command.AppList, await backend.appList()],
    [Command.FileList, { path: '', entries: await backend.files.list('') }],
  ];
}

describe('device backends and the command map', () => {
  const backends: [string, () => DeviceBackend][] = [
    ['simulated android', () => simulatedBackend('SIM-WIRE-1', { ...simulatedInfo(() => 0.3), systemType: 'android' }, () => 1_700_000_000_000)],
    ['simulated linux', () => simulatedBackend('SIM-WIRE-2', { ...simulatedInfo(() => 0.6), systemType: 'linux' }, () => 1_700_000_000_000)],
    ['this Linux machine', () => linuxBackend(linuxBackendConfig({ AGENT_FILE_ROOT: path.join(tmp, 'files') }, [], tmp, () => undefined))],
  ];
  for (const [name, make] of backends) {
    it(`WIRE-1 every answer of the ${name} backend is one the console's decoder reads, unchanged`, async () => {
      fs.mkdirSync(path.join(tmp, 'files'), { recursive: true });
      for (const [msgId, data] of await answers(make())) {
        const read = decodeReply(msgId, JSON.parse(JSON.stringify(data)));
        expect(read, String(msgId)).toBeDefined();
        expect(read?.data, String(msgId)).toEqual(JSON.parse(JSON.stringify(data)));
      }
    });
  }
});
