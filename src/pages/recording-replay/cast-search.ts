/** Where a search text appears in a recorded shell session: the player time at which the output holding it has been drawn. */
export interface CastMatch {
  /** Seconds on the player's timeline (idle gaps cut to the player's limit). */
  readonly time: number;
  /** A little of the output around the match, escape sequences removed. */
  readonly context: string;
}

// CSI, OSC (to BEL or ST) and two-character escapes: what a terminal draws no text for.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|[\u0000-\u0008\u000b-\u001f\u007f]/g;

/**
 * Finds `query` (ignoring case) in the output of an asciicast v2 recording, across event boundaries. Times
 * follow the player's: every gap between events longer than `idleTimeLimit` counts as that limit, as
 * asciinema-player plays it. At most `limit` matches.
 */
export function searchCast(cast: string, query: string, idleTimeLimit = Infinity, limit = 200): CastMatch[] {
  const needle = query.toLowerCase();
  if (!needle) return [];
  let text = '';
  const ends: number[] = [];
  const times: number[] = [];
  let last = 0;
  let played = 0;
  for (const line of cast.split('\n').slice(1)) {
    if (!line.trim()) continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      continue;
    }
    if (!Array.isArray(ev) || typeof ev[0] !== 'number') continue;
    played += Math.min(Math.max(0, ev[0] - last), idleTimeLimit);
    last = ev[0];
    if (ev[1] !== 'o' || typeof ev[2] !== 'string') continue;
    text += ev[2].replace(ESCAPES, '');
    ends.push(text.length);
    times.push(played);
  }
  const lower = text.toLowerCase();
  const found: CastMatch[] = [];
  for (let at = lower.indexOf(needle); at >= 0 && found.length < limit; at = lower.indexOf(needle, at + needle.length)) {
    // The event holding the match's last character: once it is drawn, the whole match is on screen.
    const endAt = at + needle.length;
    let lo = 0;
    let hi = ends.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((ends[mid] as number) >= endAt) hi = mid;
      else lo = mid + 1;
    }
    found.push({ time: times[lo] ?? 0, context: text.slice(Math.max(0, at - 20), endAt + 20).replace(/\s+/g, ' ').trim() });
  }
  return found;
}
