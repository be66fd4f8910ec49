import { Command, decodeRequest, type Envelope } from '../../../../protocol/index.ts';

/** A command someone else sent to the device this page shows, as the gateway reported it (196612). */
export interface WatchedOutcome {
  readonly msgId: number;
  /** The command's name in the catalogue (`Reboot`), or its number when unknown. */
  readonly command: string;
  readonly result: number;
  readonly by: string;
  readonly time: number;
}

const commandNames = new Map<number, string>(Object.entries(Command).map(([name, id]) => [id, name]));

/** How many outcomes the activity list keeps, newest first. */
export const WATCHED_OUTCOMES_KEPT = 20;

/** The outcomes for `sn` in a batch of gateway messages, oldest first; malformed ones are skipped. */
export function outcomesIn(batch: readonly Envelope[], sn: string): WatchedOutcome[] {
  const found: WatchedOutcome[] = [];
  for (const env of batch) {
    if (env.msgId !== Command.DeviceCommandOutcome || env.sn !== sn) continue;
    const d = decodeRequest(Command.DeviceCommandOutcome, env.data)?.data;
    if (d === undefined) continue;
    found.push({ msgId: d.msgId, command: commandNames.get(d.msgId) ?? String(d.msgId), result: d.result, by: d.by, time: d.time });
  }
  return found;
}

/** Adds new outcomes (oldest first) to a newest-first list capped at {@link WATCHED_OUTCOMES_KEPT}. */
export function keepNewest(list: readonly WatchedOutcome[], arrived: readonly WatchedOutcome[]): WatchedOutcome[] {
  return [...arrived].reverse().concat(list).slice(0, WATCHED_OUTCOMES_KEPT);
}
