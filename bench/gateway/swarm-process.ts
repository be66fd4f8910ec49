import path from 'node:path';
import { ForkedProcess } from './forked.ts';
import type { SwarmReply, SwarmRequest } from './swarm-messages.ts';

/**
 * Sockets per loopback source address. A bind to a source address with port 0 makes the kernel search
 * that address's ports for a free one, and the ports it skips include sockets left in TIME_WAIT by
 * earlier runs (and by other benches on the same addresses): with 2 addresses for 10,000 devices and a
 * previous run's 10,000 TIME_WAIT sockets on them, 10,000 connects cost 9.4 s of system time against
 * 0.1 s spread over 20 addresses (/tmp probe: connect 10,000 sockets, bind vs spread, same machine).
 * A few hundred per address keeps every search short, whatever the earlier runs left.
 */
export const SOCKETS_PER_SOURCE = 500;

/**
 * Source address `k` of the swarm with source block `block`: 127.<block>.<k / 250>.<2 + k % 250>, so
 * swarms with different blocks never share an address (the whole of 127.0.0.0/8 is loopback).
 */
export function loopbackSource(block: number, k: number): string {
  return `127.${block}.${Math.floor(k / 250)}.${2 + (k % 250)}`;
}

/** Source addresses for `sockets` sockets (two at least, so the spreading is always exercised). */
export const sourcesFor = (sockets: number): number => Math.max(2, Math.ceil(sockets / SOCKETS_PER_SOURCE));

/** The bench's handle on one forked device swarm. */
export class SwarmProcess extends ForkedProcess<SwarmRequest, SwarmReply> {
  /**
   * Several swarms can share one server: give each its own `snPrefix` (serial numbers stay unique) and
   * `firstSource` (its block of loopback source addresses, 127.<firstSource>.x.y: see {@link loopbackSource}),
   * since one process holds at most about 19,900 sockets under this machine's open-file limit. `device` 'light': the bench's light
   * devices (light-device.ts) but for the swarm's first, a full simulated one; default 'full'.
   */
  constructor(env: { gatewayUrl: string; enrollKey: string; devices: number; snPrefix?: string; firstSource?: number; codec?: 'json' | 'msgpack'; device?: 'light' | 'full' }) {
    super(
      path.resolve(import.meta.dirname, 'device-swarm.ts'),
      {
        GATEWAY_URL: env.gatewayUrl,
        ENROLL_KEY: env.enrollKey,
        SWARM_DEVICES: String(env.devices),
        SWARM_SN_PREFIX: env.snPrefix ?? 'SIM',
        SWARM_FIRST_SOURCE: String(env.firstSource ?? 2),
        SWARM_CODEC: env.codec ?? 'json',
        SWARM_DEVICE: env.device ?? 'full',
      },
      ['--max-old-space-size=8192'],
    );
  }
}
