import type { FakeNetwork, FakeSocket } from './fake-transport.ts';
import type { Frame } from '../transport.ts';

/**
 * Joins the newest sockets of two fake networks, as a gateway would: frames one side has sent are
 * delivered to the other. `pass` may drop frames. Returns how many frames moved.
 */
export class Relay {
  readonly #cursor = new WeakMap<FakeSocket, number>();
  readonly #a: FakeNetwork;
  readonly #b: FakeNetwork;

  constructor(a: FakeNetwork, b: FakeNetwork) {
    this.#a = a;
    this.#b = b;
  }

  /** Moves every frame sent so far, both ways. */
  step(pass: (frame: Frame) => boolean = () => true): number {
    return this.#move(this.#a.last, this.#b.last, pass) + this.#move(this.#b.last, this.#a.last, pass);
  }

  #move(from: FakeSocket, to: FakeSocket, pass: (frame: Frame) => boolean): number {
    const start = this.#cursor.get(from) ?? 0;
    const frames = from.sent.slice(start);
    this.#cursor.set(from, from.sent.length);
    let moved = 0;
    for (const f of frames) {
      if (to.closed || !pass(f)) continue;
      to.deliver(f);
      moved++;
    }
    return moved;
  }
}
