import { DEFAULT_FLEET, Fleet } from '../../agent/simulator/fleet.ts';
import { seededRandom } from '../../agent/simulator/prng.ts';
import { seedOf, SimulatedLoad } from '../../agent/simulator/telemetry.ts';
import { wsTransport } from '../../agent/ws-transport.ts';
import { Command, type Envelope, Subprotocol, systemClock, type TransportFactory } from '../../protocol/index.ts';
import { LightDevice } from './light-device.ts';
import type { SwarmReply, SwarmRequest } from './swarm-messages.ts';
import { loopbackSource, sourcesFor } from './swarm-process.ts';

// The simulated fleet of the gateway bench, forked by it so that devices and server do not share an
// event loop. It is the real simulator (Fleet of virtual devices, one status a minute each) with its
// connections spread over loopback source addresses: one source address has about 28,000 ephemeral
// ports towards one server port, and the kernel's search for a free one grows with the ports already
// taken on it (TIME_WAIT included), so a few hundred devices per address (see SOCKETS_PER_SOURCE).
const env = process.env;
const count = Number(env.SWARM_DEVICES);
const sources = sourcesFor(count);
const block = Number(env.SWARM_FIRST_SOURCE ?? 2);
// Writes batched per turn: a device's uploads of one turn leave in one write (see blast).
const transports = Array.from({ length: sources }, (_, k) => wsTransport({ localAddress: loopbackSource(block, k), batchWrites: true }));
let next = 0;
const transport: TransportFactory = (url, subprotocols, sink) => (transports[next++ % sources] as TransportFactory)(url, subprotocols, sink);

/** What the swarm's requests need of a device, full or light. */
interface SwarmDevice {
  readonly sn: string;
  readonly loggedIn: boolean;
  send(env: Envelope): void;
  /** A light device's note that a status went out for it (its own status of the minute then waits). */
  statusSent?(now: number): void;
  dispose(): void;
}

const fleetOptions = {
  ...DEFAULT_FLEET,
  gatewayUrl: String(env.GATEWAY_URL),
  enrollKey: String(env.ENROLL_KEY),
  snPrefix: env.SWARM_SN_PREFIX ?? 'SIM',
  churnEveryMs: 0,
  // 1,000 devices per 100 ms: a fast start, still spread so the bench measures holding, not one burst.
  // SWARM_RAMP sets another number per 100 ms: a node that logs in fewer devices a second than the swarms
  // start gets handshakes its devices give up on (10 s), and the fleet's retries then cost more than its logins.
  rampBatch: Number(env.SWARM_RAMP ?? 1_000),
  rampEveryMs: 100,
  transport,
  // msgpack offered first when asked (the gateway prefers it); JSON is the spec's default.
  subprotocols: env.SWARM_CODEC === 'msgpack' ? [Subprotocol.Msgpack, Subprotocol.Json] : [Subprotocol.Json],
  clock: systemClock,
  // Secrets live as long as this process; each device keeps its own for reconnecting after a restart.
  secrets: { load: () => ({}), save: () => undefined },
};

// SWARM_DEVICE=light: the bench's light devices (light-device.ts), except the swarm's first device, which
// stays a full simulated device: file transfers need its simulated file system. Otherwise the full fleet.
const light = env.SWARM_DEVICE === 'light';
const fleet = new Fleet({ ...fleetOptions, count: light ? Math.min(1, count) : count });
const random = seededRandom(fleetOptions.seed + 1);
const width = Math.max(5, String(count).length);
const lights = light
  ? Array.from({ length: Math.max(0, count - 1) }, (_, k) =>
      new LightDevice({
        gatewayUrl: fleetOptions.gatewayUrl,
        enrollKey: fleetOptions.enrollKey,
        sn: `${fleetOptions.snPrefix}${String(k + 2).padStart(width, '0')}`,
        localAddress: loopbackSource(block, (k + 1) % sources),
        codec: env.SWARM_CODEC === 'msgpack' ? 'msgpack' : 'json',
        random,
      }),
    )
  : [];
const devices: SwarmDevice[] = [...fleet.devices.map((d) => ({ sn: d.sn, get loggedIn() { return d.loggedIn; }, send: (e: Envelope) => d.engine.send(e), dispose: () => d.dispose() })), ...lights];
/**
 * Set while a blast runs. The ingest rows count uploads absorbed against the blast's uploads sent, so the
 * light devices' own statuses wait meanwhile; a blasted device's status of the minute is the blast's (statusSent),
 * so none falls due while the node drains the blast either.
 */
let blasting = false;
// One timer for the light devices' statuses (a minute) and heartbeats (300 s), not one per device.
const heartbeats = setInterval(() => {
  if (blasting) return;
  const now = Date.now();
  for (const d of lights) {
    try {
      d.tick(now);
    } catch {
      // reconnecting
    }
  }
}, 10_000);
if (env.SWARM_DEBUG) setInterval(() => {
  const out = lights.filter((d) => !d.loggedIn);
  process.stderr.write(`swarm ${fleetOptions.snPrefix}: ${out.length} light devices not logged in: ${out.slice(0, 5).map((d) => `${d.sn} last close ${d.lastClose}`).join(', ')}\n`);
}, 15_000).unref();
const startLights = () => {
  for (let i = 0; i < lights.length; i += fleetOptions.rampBatch) {
    const batch = lights.slice(i, i + fleetOptions.rampBatch);
    setTimeout(() => batch.forEach((d) => d.start()), ((i + 1) / fleetOptions.rampBatch) * fleetOptions.rampEveryMs);
  }
};
const stopAll = () => {
  clearInterval(heartbeats);
  fleet.stop();
  for (const d of lights) d.dispose();
};

const send = (reply: SwarmReply) => process.send?.(reply);

/**
 * Sends status uploads round-robin over the logged-in devices as fast as this process can for `seconds`,
 * `burst` at a time per device: a device's burst leaves in one write and usually reaches the gateway in
 * one read. With burst 1 every upload is its own write, which caps what one process can send on loopback.
 */
function blast(seconds: number, burst: number): void {
  blasting = true;
  const online = devices.filter((d) => d.loggedIn);
  const loads = online.map((d) => new SimulatedLoad(seededRandom(seedOf(d.sn))));
  let sent = 0;
  let k = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1_000;
  const tick = () => {
    // A few hundred devices per turn, then yield so the sockets write out and the process does not just queue.
    const now = Date.now();
    for (let n = 0; n < 400; n++, k = (k + 1) % online.length) {
      for (let b = 0; b < burst; b++) {
        try {
          online[k]?.send({ msgId: Command.StatusUpload, data: loads[k]?.next(false) });
          online[k]?.statusSent?.(now);
          sent++;
        } catch {
          // dropped meanwhile: not counted as sent
        }
      }
    }
    if (performance.now() < end) setImmediate(tick);
    else {
      blasting = false;
      send({ kind: 'blasted', sent, ms: performance.now() - t0 });
    }
  };
  tick();
}

process.on('message', (req: SwarmRequest) => {
  if (req.kind === 'blast') blast(req.seconds, req.burst);
  else if (req.kind === 'online') send({ kind: 'online', count: devices.filter((d) => d.loggedIn).length });
  else {
    for (const d of devices.slice(req.count)) d.dispose();
    send({ kind: 'kept', count: Math.min(req.count, devices.length) });
  }
});
process.on('disconnect', () => {
  stopAll();
  process.exit(0);
});
process.on('SIGTERM', () => {
  stopAll();
  process.exit(0);
});
fleet.start();
startLights();
send({ kind: 'ready' });
