/** Frame rate over the last second and the latest capture-to-shown latency, fed one shown frame at a time. */
export class FrameMeter {
  #times: number[] = [];
  #latency: number | undefined;
  #shown = 0;

  /** Records a frame shown at `now` (ms, monotonic) that was captured `latencyMs` earlier. */
  shown(now: number, latencyMs: number | undefined): void {
    this.#shown++;
    this.#times.push(now);
    while ((this.#times[0] as number) < now - 1000) this.#times.shift();
    if (latencyMs !== undefined) this.#latency = Math.max(0, latencyMs);
  }

  fps(now: number): number {
    return this.#times.filter((t) => t >= now - 1000).length;
  }

  get latencyMs(): number | undefined {
    return this.#latency;
  }

  get count(): number {
    return this.#shown;
  }
}
