/**
 * A run's change notifications for the view: every change bumps the version, and listeners hear about
 * them at most once per animation frame, however many results arrived in it.
 */
export class RunPublisher {
  readonly #listeners = new Set<() => void>();
  #version = 0;
  #frame = 0;

  /** Bumped on every change; the view re-renders when it moves. */
  get version(): number {
    return this.#version;
  }

  /** Records a change and schedules one publication for this frame. */
  changed(): void {
    this.#version++;
    if (this.#frame !== 0) return;
    const publish = () => {
      this.#frame = 0;
      for (const l of this.#listeners) l();
    };
    this.#frame = typeof requestAnimationFrame === 'function' ? requestAnimationFrame(publish) : (setTimeout(publish, 16) as unknown as number);
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets every listener (the run is disposed). */
  clear(): void {
    this.#listeners.clear();
  }
}
