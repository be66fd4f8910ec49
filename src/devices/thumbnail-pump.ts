/**
 * The monitor centre's live thumbnails (issue 22): periodic small screenshots (65564 with `maxWidth`) of
 * the tiles on screen, with the bandwidth bounded three ways (docs/DECISIONS.md, "Device wall and group
 * control"): only tiles that are visible and online are asked; at most `maxTiles` of them get pictures at
 * all (the first in wall order); each is refreshed at most every `intervalMs`; and at most `maxInFlight`
 * screenshots are under way at once across the wall. A device that fails is asked again only after
 * `retryMs` (a Linux agent without a screenshot command keeps failing). Pure scheduling: the fetch, the
 * clock, the timer and the picture's URL are injected, so it is tested without a browser.
 */

export interface ThumbnailPumpOptions {
  /** Takes one thumbnail of `sn`; resolves its bytes (PNG), or undefined when the device refused. */
  readonly fetch: (sn: string) => Promise<Uint8Array | undefined>;
  readonly now: () => number;
  readonly setTimer: (run: () => void, ms: number) => unknown;
  readonly clearTimer: (timer: unknown) => void;
  /** Makes a displayable URL of a picture, and lets one go. */
  readonly toUrl: (bytes: Uint8Array) => string;
  readonly revoke: (url: string) => void;
  /** False while the page is hidden (nothing is fetched then). */
  readonly pageShown?: () => boolean;
  readonly intervalMs?: number;
  readonly maxInFlight?: number;
  readonly maxTiles?: number;
  readonly retryMs?: number;
  /** Pictures kept for tiles scrolled away (shown again at once when they return); older ones are let go. */
  readonly keep?: number;
}

/** A tile's picture refreshes at most this often. */
export const THUMBNAIL_INTERVAL_MS = 10_000;
/** Screenshots under way at once across the wall. */
export const THUMBNAIL_IN_FLIGHT = 4;
/** Visible tiles that get pictures; the others show their state colour only. */
export const THUMBNAIL_MAX_TILES = 24;
/** Width asked of the device, in pixels (a tile is about 150 CSS pixels wide). */
export const THUMBNAIL_WIDTH = 160;

interface Entry {
  url?: string;
  /** When the last fetch ended (or failed). */
  at: number;
  failed: boolean;
  inFlight: boolean;
}

export class ThumbnailPump {
  readonly #o: Required<Omit<ThumbnailPumpOptions, 'pageShown'>> & { pageShown: () => boolean };
  /** Visible tiles, by wall order (lower first). */
  readonly #visible = new Map<string, number>();
  readonly #online = new Set<string>();
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #anyListeners = new Set<() => void>();
  #inFlight = 0;
  #timer: unknown;
  #timerAt = Infinity;
  #stopped = false;
  /** Screenshots asked and bytes received since the pump started (the wall shows them; tests read them). */
  fetched = 0;
  bytes = 0;

  constructor(opts: ThumbnailPumpOptions) {
    this.#o = {
      intervalMs: THUMBNAIL_INTERVAL_MS,
      maxInFlight: THUMBNAIL_IN_FLIGHT,
      maxTiles: THUMBNAIL_MAX_TILES,
      retryMs: 60_000,
      keep: 200,
      pageShown: () => true,
      ...opts,
    };
  }

  /** A tile came into view (`order` is its place on the wall) or left it. */
  setVisible(sn: string, visible: boolean, order = 0): void {
    if (visible) this.#visible.set(sn, order);
    else this.#visible.delete(sn);
    this.pump();
  }

  /** The devices online now (only they are asked). */
  setOnline(sns: Iterable<string>): void {
    this.#online.clear();
    for (const sn of sns) this.#online.add(sn);
    this.pump();
  }

  /** The picture of `sn`, when one has arrived. */
  url(sn: string): string | undefined {
    return this.#entries.get(sn)?.url;
  }

  subscribe(sn: string, listener: () => void): () => void {
    let set = this.#listeners.get(sn);
    if (!set) this.#listeners.set(sn, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(sn);
    };
  }

  /** Hears every picture that arrives (the wall's usage line). */
  subscribeAny(listener: () => void): () => void {
    this.#anyListeners.add(listener);
    return () => this.#anyListeners.delete(listener);
  }

  /** Tiles that get pictures now: visible and online, the first `maxTiles` in wall order. */
  eligible(): string[] {
    return [...this.#visible.entries()]
      .filter(([sn]) => this.#online.has(sn))
      .sort((a, b) => a[1] - b[1])
      .slice(0, this.#o.maxTiles)
      .map(([sn]) => sn);
  }

  /** Starts what is due, within the in-flight cap, and sets the timer for the next one due. */
  pump(): void {
    if (this.#stopped) return;
    const now = this.#o.now();
    let nextDue = Infinity;
    if (this.#o.pageShown()) {
      for (const sn of this.eligible()) {
        const e = this.#entries.get(sn);
        if (e?.inFlight) continue;
        const due = e ? e.at + (e.failed ? this.#o.retryMs : this.#o.intervalMs) : now;
        if (due > now) {
          nextDue = Math.min(nextDue, due);
          continue;
        }
        if (this.#inFlight >= this.#o.maxInFlight) break;
        this.#start(sn);
      }
    }
    this.#arm(nextDue, now);
  }

  /** Fetches again after {@link stop} (a page mounted again). */
  start(): void {
    this.#stopped = false;
    this.pump();
  }

  /** Lets every picture go and fetches nothing more (until {@link start}). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
    for (const e of this.#entries.values()) if (e.url) this.#o.revoke(e.url);
    this.#entries.clear();
  }

  #arm(due: number, now: number): void {
    if (due === Infinity || due >= this.#timerAt) return;
    if (this.#timer !== undefined) this.#o.clearTimer(this.#timer);
    this.#timerAt = due;
    this.#timer = this.#o.setTimer(() => {
      this.#timer = undefined;
      this.#timerAt = Infinity;
      this.pump();
    }, Math.max(0, due - now));
  }

  #start(sn: string): void {
    const entry = this.#entries.get(sn) ?? { at: 0, failed: false, inFlight: false };
    entry.inFlight = true;
    this.#entries.delete(sn);
    this.#entries.set(sn, entry); // most recently used last
    this.#inFlight++;
    this.fetched++;
    const done = (bytes: Uint8Array | undefined) => {
      this.#inFlight--;
      entry.inFlight = false;
      entry.at = this.#o.now();
      entry.failed = bytes === undefined;
      if (this.#stopped) return;
      if (bytes) {
        this.bytes += bytes.length;
        if (entry.url) this.#o.revoke(entry.url);
        entry.url = this.#o.toUrl(bytes);
        for (const l of this.#listeners.get(sn) ?? []) l();
        for (const l of this.#anyListeners) l();
      }
      this.#evict();
      this.pump();
    };
    this.#o.fetch(sn).then(done, () => done(undefined));
  }

  /** Keeps at most `keep` pictures, letting go of those least recently fetched that are not on screen. */
  #evict(): void {
    if (this.#entries.size <= this.#o.keep) return;
    for (const [sn, e] of this.#entries) {
      if (this.#entries.size <= this.#o.keep) break;
      if (this.#visible.has(sn) || e.inFlight) continue;
      if (e.url) this.#o.revoke(e.url);
      this.#entries.delete(sn);
    }
  }
}
