import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import type { SwarmReply, SwarmRequest } from './swarm-messages.ts';

/** The bench's handle on the forked device swarm: ask a question, wait for its answer. */
export class SwarmProcess {
  readonly child: ChildProcess;
  readonly #waiting: ((reply: SwarmReply) => boolean)[] = [];

  constructor(env: { gatewayUrl: string; enrollKey: string; devices: number }) {
    this.child = fork(path.resolve(import.meta.dirname, 'device-swarm.ts'), [], {
      env: { ...process.env, GATEWAY_URL: env.gatewayUrl, ENROLL_KEY: env.enrollKey, SWARM_DEVICES: String(env.devices) },
      execArgv: ['--max-old-space-size=8192'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: SwarmReply) => {
      const i = this.#waiting.findIndex((accept) => accept(reply));
      if (i >= 0) this.#waiting.splice(i, 1);
    });
  }

  /** Resolves with the next reply of `kind` (after sending `request`, when given). */
  next<K extends SwarmReply['kind']>(kind: K, request?: SwarmRequest): Promise<Extract<SwarmReply, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`device swarm exited (${code ?? 'signal'})`));
      this.child.once('exit', onExit);
      this.#waiting.push((reply) => {
        if (reply.kind !== kind) return false;
        this.child.off('exit', onExit);
        resolve(reply as Extract<SwarmReply, { kind: K }>);
        return true;
      });
      if (request) this.child.send(request);
    });
  }

  stop(): void {
    this.child.kill('SIGTERM');
  }
}
