import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonCodec, msgpackCodec } from '../codec.ts';
import {
  COMMAND_RIGHTS,
  COMMANDS,
  commandPermission,
  decodeFailure,
  decodeProgress,
  decodeReply,
  decodeRequest,
  isDangerousCommand,
  isMappedCommand,
  type MappedCommand,
  wipesDevice,
} from './command-map.ts';
import { Command } from './commands.ts';
import { array, decode, Invalid, integer, object, optional, string, tagged } from './decode.ts';
import type { AckData, BeginData, FileListReply, FileUploadRequest, ShellRequest, WhitelistRequest } from './payloads.ts';
import { isPermission } from './permissions.ts';
import type { RemoteControlRequest, StartStreamReply } from './stream.ts';

const mapped = Object.keys(COMMANDS).map(Number).filter(isMappedCommand);
const msgIdArb = fc.constantFrom(...mapped);
/** Anything a hostile peer could put in `data`, `__proto__` keys included. */
const hostile = fc.oneof(fc.anything(), fc.jsonValue(), fc.constant(JSON.parse('{"__proto__":{"polluted":1},"op":"open"}')));

const text = fc.string({ maxLength: 40 });
// -0 is left out: JSON carries it as 0, so a round trip through the JSON codec could not give it back.
const num = fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v));
const shellRequest: fc.Arbitrary<ShellRequest> = fc.oneof(
  fc.record({ op: fc.constant('open' as const), cols: num, rows: num, raw: fc.boolean(), since: fc.nat() }, { requiredKeys: ['op'] }),
  fc.record({ op: fc.constant('write' as const), data: text }),
  fc.record({ op: fc.constant('input' as const), line: text }),
  fc.record({ op: fc.constant('resize' as const), cols: num, rows: num }),
  fc.record({ op: fc.constant('close' as const) }),
);
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const remoteControl: fc.Arbitrary<RemoteControlRequest> = fc.oneof(
  fc.record({ action: fc.constant('tap' as const), x: fraction, y: fraction }),
  fc.record({ action: fc.constant('key' as const), key: fc.constantFrom('back' as const, 'home' as const, 'power' as const) }),
  fc.record({ action: fc.constant('text' as const), text: fc.string({ minLength: 1, maxLength: 100 }) }),
);
const sha = fc.stringMatching(/^[0-9a-f]{64}$/);
const fileUpload = fc.record<FileUploadRequest>({ path: text, name: text, size: fc.nat(), sha256: sha });
const whitelist = fc.record<WhitelistRequest>({ action: fc.constantFrom('set', 'cancel', 'get'), packages: fc.array(text) }, { requiredKeys: ['action'] });
const begin = fc.record<BeginData>({ size: fc.nat(), chunkSize: fc.integer({ min: 1 }), window: fc.integer({ min: 1 }), sha256: sha });
const ack = fc.record<AckData>({ next: fc.nat(), done: fc.boolean(), error: text }, { requiredKeys: ['next'] });
const fileList = fc.record<FileListReply>({
  path: text,
  entries: fc.array(fc.record({ name: text, type: fc.constantFrom('file' as const, 'folder' as const), size: fc.nat(), mtime: fc.nat() })),
});
const startStream = fc.record<StartStreamReply>(
  { flowId: fc.string({ minLength: 1, maxLength: 20 }), quality: fc.constantFrom('main', 'sub'), camera: fc.constantFrom('screen', 'front', 'back'), codec: fc.constant('h264'), width: fc.nat(), height: fc.nat(), fps: fc.nat() },
  { requiredKeys: ['flowId', 'quality', 'codec', 'width', 'height', 'fps'] },
);

/** A valid request (or event) of each kind the map decodes, with its command id. */
const requests: fc.Arbitrary<readonly [MappedCommand, unknown]> = fc.oneof(
  shellRequest.map((d) => [Command.Shell, d] as const),
  remoteControl.map((d) => [Command.RemoteControl, d] as const),
  fileUpload.map((d) => [Command.FileUpload, d] as const),
  whitelist.map((d) => [Command.Whitelist, d] as const),
  begin.map((d) => [Command.TransferBegin, d] as const),
  ack.map((d) => [Command.ChunkAck, d] as const),
  fc.record({ watch: fc.boolean() }).map((d) => [Command.DeviceWatch, d] as const),
  fc.record({ flowId: fc.string({ minLength: 1, maxLength: 20 }) }).map((d) => [Command.StopStream, d] as const),
  fc.record({ paths: fc.array(text) }).map((d) => [Command.FileDelete, d] as const),
  fc.record({ enabled: fc.boolean(), port: fc.integer({ min: 1, max: 65535 }) }).map((d) => [Command.ChangeSshConfig, d] as const),
);
/** A valid successful reply of each kind, with its command id. */
const replies: fc.Arbitrary<readonly [MappedCommand, unknown]> = fc.oneof(
  fileList.map((d) => [Command.FileList, d] as const),
  startStream.map((d) => [Command.StartStream, d] as const),
  ack.map((d) => [Command.TransferBegin, d] as const),
  fc.record({ message: text }).map((d) => [Command.PushText, d] as const),
  fc.record({ packages: fc.array(text) }).map((d) => [Command.Whitelist, d] as const),
  fc.record({ enabled: fc.boolean(), port: fc.integer({ min: 0, max: 65535 }) }).map((d) => [Command.ChangeSshConfig, d] as const),
);

describe('the command map (WIRE)', () => {
  it('WIRE-1 a request round-trips through either codec and its decoder, unchanged', () => {
    fc.assert(
      fc.property(requests, fc.constantFrom(jsonCodec, msgpackCodec), ([msgId, data], codec) => {
        const env = codec.decode(codec.encode({ msgId, data }));
        expect(decodeRequest(msgId, env.data)?.data).toEqual(data);
      }),
    );
  });

  it('WIRE-1 a successful reply round-trips through either codec and its decoder, unchanged', () => {
    fc.assert(
      fc.property(replies, fc.constantFrom(jsonCodec, msgpackCodec), ([msgId, data], codec) => {
        const env = codec.decode(codec.encode({ msgId, cid: 'c1', result: 0, data }));
        expect(decodeReply(msgId, env.data)?.data).toEqual(data);
      }),
    );
  });

  it('WIRE-2 a decoder never throws, and what it accepts it accepts again unchanged (no unknown key survives)', () => {
    fc.assert(
      fc.property(msgIdArb, hostile, (msgId, data) => {
        for (const read of [decodeRequest, decodeReply, decodeProgress]) {
          const once = read(msgId, data);
          if (once === undefined) continue;
          expect(read(msgId, once.data)?.data).toEqual(once.data);
          if (typeof once.data === 'object' && once.data !== null) {
            expect(Object.getPrototypeOf(once.data)).toBe(Array.isArray(once.data) ? Array.prototype : Object.prototype);
            expect(Object.hasOwn(once.data, '__proto__')).toBe(false);
          }
        }
        expect(typeof decodeFailure(data)).toBe('object');
      }),
    );
  });

  it('WIRE-3 a request with a required field missing, or of the wrong type, is refused', () => {
    const wrong = fc.oneof(fc.constant(undefined), fc.constant(null), fc.boolean(), fc.object(), fc.constant(Number.NaN), fc.constant(-1), fc.constant(0.5));
    fc.assert(
      fc.property(fileUpload, fc.constantFrom<keyof FileUploadRequest>('name', 'size'), wrong, (req, field, value) => {
        expect(decodeRequest(Command.FileUpload, { ...req, [field]: value })).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(shellRequest, wrong, (req, op) => {
        expect(decodeRequest(Command.Shell, { ...req, op })).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(whitelist, fc.oneof(fc.string(), fc.integer()).filter((a) => a !== 'set' && a !== 'cancel' && a !== 'get'), (req, action) => {
        expect(decodeRequest(Command.Whitelist, { ...req, action })).toBeUndefined();
      }),
    );
    fc.assert(
      fc.property(fileList, fc.nat(), (reply, i) => {
        const entries = [...reply.entries, { name: 'x', type: 'link', size: 1, mtime: 1 }];
        expect(decodeReply(Command.FileList, { ...reply, entries: entries.slice(i % entries.length) })).toBeUndefined();
      }),
    );
  });

  it('WIRE-3 a malformed reply of a command with data is refused; commands without data ignore what comes', () => {
    expect(decodeReply(Command.StartStream, { flowId: 'f', quality: 'best', codec: 'h264', width: 1, height: 1, fps: 1 })).toBeUndefined();
    expect(decodeReply(Command.BaseInfo, { model: 'M' })).toBeUndefined();
    expect(decodeRequest(Command.Reboot, { anything: 1 })).toEqual({ data: undefined });
    expect(decodeRequest(Command.FileList, undefined)).toEqual({ data: { path: '' } });
  });

  it('WIRE-4 every command a console may send needs a catalogued permission key, and only those', () => {
    for (const [msgId, right] of COMMAND_RIGHTS) {
      expect(isPermission(right.permission), String(msgId)).toBe(true);
      expect(commandPermission(msgId)).toBe(right.permission);
      expect(isMappedCommand(msgId)).toBe(true);
    }
    expect(commandPermission(Command.Reboot)).toBe('device_reboot');
    expect(commandPermission(Command.DeviceLogin)).toBeUndefined();
    expect(commandPermission(Command.PushFile)).toBeUndefined();
    expect(commandPermission(Command.DeviceWatch)).toBeUndefined();
    expect(commandPermission(424242)).toBeUndefined();
  });

  it('WIRE-4 reboot, factory reset and clear data are the dangerous commands; the last two wipe the device', () => {
    const dangerous = Object.values(Command).filter(isDangerousCommand);
    expect(dangerous.sort()).toEqual([Command.Reboot, Command.FactoryReset, Command.ClearData].sort());
    expect(Object.values(Command).filter(wipesDevice).sort()).toEqual([Command.FactoryReset, Command.ClearData].sort());
  });
});

describe('decoder combinators (WIRE-2)', () => {
  interface Item {
    readonly id: number;
    readonly name?: string;
    readonly tags: readonly string[];
  }
  const item = object<Item>({ id: integer(0, 10), name: optional(string(5)), tags: array(string(3), 2) });

  it('WIRE-2 object() keeps known fields only, leaves absent optionals absent and refuses out-of-range values', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 15 }), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), (id, name, tags) => {
        const valid = id >= 0 && id <= 10 && (name === undefined || name.length <= 5) && tags.length <= 2 && tags.every((t) => t.length <= 3);
        const out = decode(item, { id, name, tags, extra: true });
        if (!valid) {
          expect(out).toBeUndefined();
          return;
        }
        expect(out).toEqual(name === undefined ? { id, tags } : { id, name, tags });
        expect(out !== undefined && 'name' in out).toBe(name !== undefined);
      }),
    );
  });

  it('WIRE-2 tagged() picks the member by its tag and refuses an unknown one', () => {
    type Shape = { readonly kind: 'a'; readonly n: number } | { readonly kind: 'b' };
    const shape = tagged<Shape, 'kind'>('kind', { a: object({ kind: (v) => (v === 'a' ? 'a' : Invalid), n: integer() }), b: object({ kind: (v) => (v === 'b' ? 'b' : Invalid) }) });
    fc.assert(
      fc.property(fc.string(), fc.integer(), (kind, n) => {
        const out = decode(shape, { kind, n });
        if (kind === 'a') expect(out).toEqual({ kind, n });
        else if (kind === 'b') expect(out).toEqual({ kind });
        else expect(out).toBeUndefined();
      }),
    );
  });
});
