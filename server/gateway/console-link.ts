import type { Caller } from '../accounts/caller.ts';
import type { RightsHolder, SessionRights } from './console-rights.ts';
import type { Peer } from './peer.ts';

// Its own file so that what holds console links (flows, stream fan-out, device watchers) needs no import of
// console-endpoint.ts, which imports them: no cycle between the gateway's modules.
/**
 * A logged-in console socket and the session behind it. Its caller is the session's rights as this process
 * last loaded them, never fixed at connect: a change to the account's role, organisation or session reaches
 * it (console-rights.ts), and commands are checked against it one by one.
 */
export class ConsoleLink implements RightsHolder {
  readonly peer: Peer;
  #rights: SessionRights;
  /** Set by serveConsole: lets go of what the lost rights had granted. */
  onNarrowed: (before: Caller, after: Caller) => void = () => undefined;

  constructor(peer: Peer, rights: SessionRights) {
    this.peer = peer;
    this.#rights = rights;
  }

  get caller(): Caller {
    return this.#rights.caller;
  }

  get rights(): SessionRights {
    return this.#rights;
  }

  /** @internal serveConsole, when the session's rights turned out to be another socket's copy. */
  useRights(rights: SessionRights): void {
    this.#rights = rights;
  }

  close(code: number, reason: string): void {
    this.peer.ws.close(code, reason);
  }

  narrowed(before: Caller, after: Caller): void {
    this.onNarrowed(before, after);
  }
}
