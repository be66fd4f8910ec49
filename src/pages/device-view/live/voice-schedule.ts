/**
 * When each decoded piece of voice plays. Pieces are laid back to back on the audio clock, a little
 * ahead of now so network jitter does not leave gaps; when the queue has grown past `maxAheadS` (the tab
 * was hidden, or packets arrived in a burst) it restarts at now, so voice stays live rather than late,
 * as the picture does. Pure: the caller passes the audio clock.
 */
export class VoiceSchedule {
  readonly #leadS: number;
  readonly #maxAheadS: number;
  #nextS = Number.NEGATIVE_INFINITY;
  /** Pieces that restarted the queue (a gap or a jump), for the stats. */
  restarts = 0;

  constructor(leadS = VOICE_LEAD_S, maxAheadS = VOICE_MAX_AHEAD_S) {
    this.#leadS = leadS;
    this.#maxAheadS = maxAheadS;
  }

  /** The start time of a piece `durationS` long arriving at audio time `nowS`. */
  place(nowS: number, durationS: number): number {
    if (this.#nextS < nowS || this.#nextS - nowS > this.#maxAheadS) {
      this.#nextS = nowS + this.#leadS;
      this.restarts++;
    }
    const at = this.#nextS;
    this.#nextS += durationS;
    return at;
  }
}

/** Voice plays this far behind its arrival: two 20 ms packets of jitter absorbed. */
export const VOICE_LEAD_S = 0.04;
/** Past this much queued, voice jumps to now (a quarter second is heard as late against the picture). */
export const VOICE_MAX_AHEAD_S = 0.25;
