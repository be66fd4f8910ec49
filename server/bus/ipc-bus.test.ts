import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { primaryPort } from './ipc-bus.ts';

/**
 * A worker's process object whose channel broke after `connected` was last read, answering a send as Node
 * does (child_process's target._send): the EPIPE goes to the send's callback when there is one, else it
 * is emitted as 'error', which ended the worker when nobody listened.
 */
class BrokenChannel extends EventEmitter {
  connected = true;
  sent: unknown[] = [];
  send(message: unknown, _handle?: unknown, _options?: unknown, callback?: (err: Error | null) => void): boolean {
    this.sent.push(message);
    const err = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    if (typeof callback === 'function') callback(err);
    else this.emit('error', err);
    return false;
  }
}

describe("a worker's channel to its primary", () => {
  it('takes a write that fails because the primary is gone (EPIPE) without an error event', () => {
    const proc = new BrokenChannel();
    const errors: unknown[] = [];
    proc.on('error', (err) => errors.push(err));
    const port = primaryPort<{ readonly dcc: string }>(proc as unknown as NodeJS.Process);
    port.send({ dcc: 'worker.ready' });
    port.flush();
    expect(proc.sent).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
