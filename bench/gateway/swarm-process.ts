import path from 'node:path';
import { ForkedProcess } from './forked.ts';
import type { SwarmReply, SwarmRequest } from './swarm-messages.ts';

/** The bench's handle on one forked device swarm. */
export class SwarmProcess extends ForkedProcess<SwarmRequest, SwarmReply> {
  /**
   * Several swarms can share one server: give each its own `snPrefix` (serial numbers stay unique) and
   * `firstSource` (its loopback source addresses start at 127.0.0.<firstSource>), since one process holds
   * at most about 19,900 sockets under this machine's open-file limit. `device` 'light': the bench's light
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
