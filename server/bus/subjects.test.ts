import fc from 'fast-check';
import { Packr } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { type Envelope, Result, type ResultCode, STREAM_CAMERAS, STREAM_QUALITIES, systemClock } from '../../protocol/index.ts';
import { FakeClock } from '../../protocol/testing/fake-clock.ts';
import { RightsBus } from '../accounts/rights-bus.ts';
import { CaptchaStore } from '../auth/captcha.ts';
import type { DeviceHolders } from '../devices/device-holders.ts';
import { ClusterMembership } from '../gateway/cluster-membership.ts';
import type { DeviceOperationRow } from '../gateway/device-operation-tables.ts';
import { DeviceWatchers } from '../gateway/device-watchers.ts';
import { SubjectHandlers } from './handlers.ts';
import { MeshBus } from './mesh-bus.ts';
import { BUS_SUBJECTS, type BusKind, type BusMap, type BusSubject, decodeOn, Subject } from './subjects.ts';

/*
 * The bus contract (server/bus/subjects.ts):
 *  BUS-1 every subject's decoder accepts what its publishers produce, after either transport between
 *        processes (msgpack on NATS, the structured clone of Node's IPC), unchanged.
 *  BUS-2 a decoder never throws; what it accepts it accepts again unchanged, with no unknown key; a message
 *        missing a required field, or with one of the wrong type, is refused.
 *  BUS-3 the buses decode at the edge: a handler is given only what its subject's decoder accepted, and a
 *        refused message is logged and dropped.
 */

// The NATS bus's own packer settings (server/bus/nats-bus.ts), and Node's IPC (advanced serialization).
const packr = new Packr({ useRecords: false, mapsAsObjects: true });
const TRANSPORTS: readonly (readonly [string, (m: unknown) => unknown])[] = [
  ['in process', (m) => m],
  ['msgpack (NATS)', (m) => packr.unpack(packr.pack(m))],
  ['structured clone (IPC)', (m) => structuredClone(m)],
];

/**
 * Bytes as the receiving side holds them (msgpack hands back a Buffer): compared by content. -0 and 0 are
 * one number on the wire (msgpack carries -0 as the integer 0, as JSON writes it "0"), so they compare equal.
 */
function plain(value: unknown): unknown {
  if (Object.is(value, -0)) return 0;
  if (value instanceof Uint8Array) return [...value];
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, plain(v)]));
  return value;
}

/** Whether a JSON value has a `__proto__` key anywhere (fast-check generates them to find prototype pollution). */
function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (typeof value !== 'object' || value === null) return false;
  return Object.keys(value).some((k) => k === '__proto__' || hasProtoKey((value as Record<string, unknown>)[k]));
}

/**
 * Any JSON value but one with a `__proto__` key, which msgpackr renames `__proto_` on reading (so that no
 * object it builds gets a prototype from the wire): a round trip through NATS does not keep it, by design.
 * The test below says what happens to one instead.
 */
const json = fc.jsonValue().filter((v) => !hasProtoKey(v));
const id = fc.string({ minLength: 1, maxLength: 40 });
const text = fc.string({ maxLength: 40 });
const int = fc.integer({ min: -1_000_000, max: 1_000_000 });
const nat = fc.nat();
const num = fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v));
const intOrNull = fc.option(int, { nil: null });
const result = fc.constantFrom<ResultCode>(...Object.values(Result));
const bytes = fc.uint8Array({ maxLength: 64 });
const ids = fc.array(int, { maxLength: 5 });
const envelope: fc.Arbitrary<Envelope> = fc.record(
  { msgId: nat, cid: id, flowId: id, sn: id, result, data: json.map((v) => plain(v)) },
  { requiredKeys: ['msgId'] },
);
const flowPayload = fc.oneof(fc.record({ frame: bytes }), fc.record({ env: envelope }));
const streamKey = { sn: id, quality: fc.constantFrom(...STREAM_QUALITIES), camera: fc.constantFrom(...STREAM_CAMERAS) };
const heldRow: fc.Arbitrary<DeviceOperationRow> = fc.record({
  id: int,
  sn: id,
  org_id: int,
  msg_id: nat,
  data: text,
  state: fc.constantFrom('waiting' as const, 'delivering' as const, 'done' as const, 'expired' as const, 'cancelled' as const),
  result: intOrNull,
  reply: fc.option(text, { nil: null }),
  account_id: intOrNull,
  created_at: int,
  expires_at: int,
  delivered_at: intOrNull,
  finished_at: intOrNull,
});

/** Any message of each subject kind, as its type allows (the compiler holds this to {@link BusMap}). */
const MESSAGES: { readonly [K in BusKind]: fc.Arbitrary<BusMap[K]> } = {
  deviceCommand: fc.record({ from: id, cid: id, msgId: nat, flowId: id, data: json }, { requiredKeys: ['from', 'cid', 'msgId'] }),
  nodeReplies: fc.record({ cid: id, sn: id, msgId: nat, result, data: json }, { requiredKeys: ['cid', 'sn', 'msgId', 'result'] }),
  presence: fc.record({ node: id, sn: id, orgId: int, online: fc.boolean(), time: num }),
  sessionEnded: fc.record({ node: id, tokenHash: id }),
  rightsChanged: fc.record({ node: id, seq: nat, accounts: ids, roles: ids, orgs: ids, all: fc.boolean() }, { requiredKeys: ['node', 'seq'] }),
  nodeAlive: fc.record({ node: id, leaving: fc.boolean() }, { requiredKeys: ['node'] }),
  deviceOutcome: fc.record({ node: id, outcome: fc.record({ msgId: nat, result: nat, by: text, time: num }) }),
  deviceRevoked: fc.record({ node: id, sn: id }),
  deviceMoved: fc.record({ node: id, seq: nat, sns: fc.array(id, { maxLength: 5 }), orgId: int }),
  flowToDevice: fc.tuple(id, flowPayload).map(([flowId, p]) => ({ flowId, ...p })),
  flowToConsole: fc.tuple(id, id, flowPayload).map(([flowId, sn, p]) => ({ flowId, sn, ...p })),
  streamControl: fc.record({ op: fc.constantFrom('watch' as const, 'leave' as const), node: id, ...streamKey }),
  streamToNode: fc.oneof(
    fc.record({ op: fc.constant('started' as const), ...streamKey, result, data: json }, { requiredKeys: ['op', 'sn', 'quality', 'camera', 'result'] }),
    fc.record({ op: fc.constant('frame' as const), ...streamKey, frame: bytes, key: fc.boolean() }, { requiredKeys: ['op', 'sn', 'quality', 'camera', 'frame'] }),
    fc.record({ op: fc.constant('gone' as const), ...streamKey }),
  ),
  heldFinished: fc.record({ node: id, row: heldRow }),
  campaignProgress: fc.record({
    node: id,
    targets: fc.array(fc.record({ campaignId: int, orgId: int, sn: id, pushResult: num, downloadState: num, progress: num, installResult: num, message: text, updateTime: num }), { maxLength: 3 }),
    campaigns: fc.array(fc.record({ id: int, orgId: int, state: fc.string({ maxLength: 20 }) }), { maxLength: 3 }),
  }),
  captchaIssued: fc.record({ id, mac: text, expiresAt: num, owner: text }),
  captchaSpent: fc.record({ id }),
  approvalDecided: fc.record({
    node: id,
    accountId: int,
    event: fc.record(
      {
        id: int,
        state: fc.constantFrom('approved' as const, 'rejected' as const, 'expired' as const),
        kind: fc.constantFrom('command' as const, 'bulk' as const, 'campaign' as const),
        msgId: int,
        targetCount: nat,
        decidedBy: text,
        reason: text,
        contentName: text,
      },
      { requiredKeys: ['id', 'state', 'kind', 'msgId', 'targetCount', 'decidedBy', 'reason'] },
    ),
  }),
};

/** The fields of each kind a message cannot go without. */
const REQUIRED: { readonly [K in BusKind]: readonly string[] } = {
  deviceCommand: ['from', 'cid', 'msgId'],
  nodeReplies: ['cid', 'sn', 'msgId', 'result'],
  presence: ['node', 'sn', 'orgId', 'online', 'time'],
  sessionEnded: ['node', 'tokenHash'],
  rightsChanged: ['node', 'seq'],
  nodeAlive: ['node'],
  deviceOutcome: ['node', 'outcome'],
  deviceRevoked: ['node', 'sn'],
  deviceMoved: ['node', 'seq', 'sns', 'orgId'],
  flowToDevice: ['flowId'],
  flowToConsole: ['flowId', 'sn'],
  streamControl: ['op', 'node', 'sn', 'quality'],
  streamToNode: ['op', 'sn', 'quality'],
  heldFinished: ['node', 'row'],
  campaignProgress: ['node', 'targets', 'campaigns'],
  captchaIssued: ['id', 'mac', 'expiresAt', 'owner'],
  captchaSpent: ['id'],
  approvalDecided: ['node', 'accountId', 'event'],
};

const KINDS = Object.keys(BUS_SUBJECTS) as BusKind[];
const kindArb = fc.constantFrom(...KINDS);
/** A message of a kind, the kind chosen first. */
const anyMessage = kindArb.chain((kind) => MESSAGES[kind].map((message): { kind: BusKind; message: object } => ({ kind, message })));
/** Anything a foreign publisher could put on a subject, `__proto__` keys included. */
const hostile = fc.oneof(fc.anything(), json, fc.constant(JSON.parse('{"__proto__":{"polluted":1},"node":"n","id":"x"}')));
/** A value no field of any payload accepts (`opaque` fields are never required). */
const wrong = fc.oneof(fc.constant(null), fc.constant({ wrong: true }), fc.constant(Symbol.for('wrong')), fc.constant(Number.NaN));

describe('the bus subjects (BUS)', () => {
  it('BUS-1 every subject kind has its decoder and its subject, and no two subjects share a name', () => {
    expect(Object.keys(MESSAGES).sort()).toEqual([...KINDS].sort());
    const all: BusSubject[] = Object.values(Subject).map((s) => (typeof s === 'function' ? s('X') : s));
    expect(all.map((s) => s.kind).sort()).toEqual([...KINDS].sort());
    expect(new Set(all.map((s) => s.name)).size).toBe(all.length);
  });

  it('BUS-1 any message of its type round-trips through each transport and its decoder, unchanged', () => {
    fc.assert(
      fc.property(anyMessage, ({ kind, message }) => {
        for (const [, carry] of TRANSPORTS) {
          const decoded = decodeOn(BUS_SUBJECTS, kind, carry(message));
          expect(decoded, kind).toBeDefined();
          expect(plain(decoded)).toEqual(plain(message));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('BUS-1 a `__proto__` key in a command\'s data never becomes a prototype on any transport (NATS renames it)', () => {
    const message = { from: 'admin', cid: 'c1', msgId: 4, data: JSON.parse('{"__proto__": {"polluted": true}, "keep": 1}') as unknown };
    for (const [name, carry] of TRANSPORTS) {
      const decoded = decodeOn(BUS_SUBJECTS, 'deviceCommand', carry(message)) as { data: Record<string, unknown> } | undefined;
      expect(decoded, name).toBeDefined();
      expect(Object.getPrototypeOf(decoded?.data), name).toBe(Object.prototype);
      expect((decoded?.data as { polluted?: unknown }).polluted, name).toBeUndefined();
      expect(decoded?.data.keep, name).toBe(1);
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('BUS-1 what the publishers of rights, challenges, outcomes and beats publish is accepted by its decoder', async () => {
    const refused: string[] = [];
    const bus = new MeshBus(BUS_SUBJECTS, { warn: (obj) => refused.push(JSON.stringify(obj)) });
    const heard: { kind: string; message: unknown }[] = [];
    for (const s of [Subject.rightsChanged, Subject.captchaIssued, Subject.captchaSpent, Subject.deviceOutcome('SN1'), Subject.nodeAlive]) {
      bus.subscribe(s, (message) => heard.push({ kind: s.kind, message }));
    }
    // Rights: a change with every field, and one with none; the publisher waits for its own echo.
    const rights = new RightsBus(bus, 'node-a');
    await rights.changed({ accounts: [1, 2], roles: [3], orgs: [4], all: true });
    await rights.changed({});
    // Challenges: issued, then spent.
    const captcha = new CaptchaStore(systemClock, bus);
    const challenge = captcha.issue('192.0.2.1');
    captcha.check(challenge?.id ?? '', 'wrong');
    // A command's outcome for watchers on other nodes.
    new DeviceWatchers(bus, 'node-a').commandEnded('SN1', 4, Result.Success, 'admin', 1_000, undefined);
    // A node's beat and its goodbye.
    const holders = { release: async () => [], releaseAllBut: async () => [] } as unknown as DeviceHolders;
    const membership = new ClusterMembership({ bus, nodeId: 'node-a', clock: new FakeClock(0), holders, onReleased: () => undefined, log: { warn: () => undefined, info: () => undefined } });
    membership.start();
    await membership.stop();
    rights.close();
    // The publisher's own handlers hear its messages at the end of its turn, as its peers would.
    await new Promise((r) => setImmediate(r));

    expect(refused).toEqual([]);
    expect(heard.map((h) => h.kind)).toEqual(['rightsChanged', 'rightsChanged', 'captchaIssued', 'captchaSpent', 'deviceOutcome', 'nodeAlive', 'nodeAlive']);
    expect(heard[0]?.message).toEqual({ node: 'node-a', seq: 1, accounts: [1, 2], roles: [3], orgs: [4], all: true });
    expect(heard[4]?.message).toEqual({ node: 'node-a', outcome: { msgId: 4, result: Result.Success, by: 'admin', time: 1_000 } });
    expect(heard[6]?.message).toEqual({ node: 'node-a', leaving: true });
  });

  it('BUS-2 a decoder never throws, and what it accepts it accepts again unchanged (no unknown key survives)', () => {
    fc.assert(
      fc.property(kindArb, hostile, (kind, value) => {
        const once = decodeOn(BUS_SUBJECTS, kind, value);
        if (once === undefined) return;
        expect(decodeOn(BUS_SUBJECTS, kind, once)).toEqual(once);
        expect(Object.getPrototypeOf(once)).toBe(Object.prototype);
        expect(Object.hasOwn(once, '__proto__')).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('BUS-2 a message with a required field missing, or of the wrong type, is refused', () => {
    const withField = anyMessage.chain(({ kind, message }) => fc.constantFrom(...REQUIRED[kind]).map((field) => ({ kind, message, field })));
    fc.assert(
      fc.property(withField, fc.boolean(), wrong, ({ kind, message, field }, drop, value) => {
        const broken = Object.fromEntries(Object.entries(message).flatMap(([k, v]): [string, unknown][] => (k !== field ? [[k, v]] : drop ? [] : [[k, value]])));
        if (!drop) broken[field] = value;
        expect(decodeOn(BUS_SUBJECTS, kind, broken), `${kind}.${field}`).toBeUndefined();
      }),
      { numRuns: 1_000 },
    );
  });

  it('BUS-2 a flow message carries a frame or an envelope; a stream message has a known op; a held row a known state', () => {
    expect(decodeOn(BUS_SUBJECTS, 'flowToDevice', { flowId: 'f' })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'flowToDevice', { flowId: 'f', env: { msgId: 1, stray: 1 } })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'flowToConsole', { flowId: 'f', env: { msgId: 1 } })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'flowToDevice', { flowId: 'f', frame: 'not bytes' })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'streamToNode', { op: 'pause', sn: 'S', quality: 'main' })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'streamToNode', { op: 'frame', sn: 'S', quality: 'main' })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'streamControl', { op: 'watch', sn: 'S', quality: 'hd', node: 'n' })).toBeUndefined();
    const row = fc.sample(heldRow, 1)[0];
    expect(decodeOn(BUS_SUBJECTS, 'heldFinished', { node: 'n', row: { ...row, state: 'lost' } })).toBeUndefined();
    expect(decodeOn(BUS_SUBJECTS, 'nodeReplies', { cid: 'c', sn: 'S', msgId: 4, result: 9 })).toBeUndefined();
  });

  it('BUS-2 a stream message without a camera is of the screen (the meaning before cameras)', () => {
    expect(decodeOn(BUS_SUBJECTS, 'streamControl', { op: 'watch', sn: 'S', quality: 'sub', node: 'n' })).toEqual({ op: 'watch', sn: 'S', quality: 'sub', node: 'n', camera: 'screen' });
  });

  it('BUS-3 a handler is given only what its subject\'s decoder accepted; a refused message is logged and dropped', () => {
    const logged: { obj: object; msg: string }[] = [];
    const table = new SubjectHandlers(BUS_SUBJECTS, { warn: (obj, msg) => logged.push({ obj, msg }) });
    const heard: string[] = [];
    table.add(Subject.presence, (m) => heard.push(`${m.sn} ${m.orgId}`));
    table.deliver(Subject.presence.name, { node: 'n', sn: 'A', online: true, time: 1 });
    table.deliver(Subject.presence.name, { node: 'n', sn: 'B', orgId: '7', online: true, time: 1 });
    table.deliver(Subject.presence.name, { node: 'n', sn: 'C', orgId: 7, online: true, time: 1 });
    expect(heard).toEqual(['C 7']);
    expect(logged).toEqual([
      { obj: { subject: 'presence' }, msg: 'malformed bus message dropped' },
      { obj: { subject: 'presence' }, msg: 'malformed bus message dropped' },
    ]);
  });
});
