import { type Clock, type Correlator, type Envelope, type PendingHandlers, Result } from '../../protocol/index.ts';
import type { Peer } from './peer.ts';
import { readReply, type RelayedData, type RelayedReply, transcodeReply } from './reply-relay.ts';

/**
 * A command's handlers that can take its final reply as JSON text (reply-relay.ts): a console command whose
 * console speaks JSON. `relaysJson` says whether it would now.
 */
export interface JsonReplyTarget extends PendingHandlers {
  /** The JSON of the answer to `reply` up to its data (no closing brace); undefined when this one does not relay JSON. */
  replyHead(reply: RelayedReply): string | undefined;
  /** The final reply, the answer written as JSON (in place of `result`). */
  relayed(reply: RelayedReply, data: RelayedData): void;
}

const isJsonReplyTarget = (h: PendingHandlers | undefined): h is JsonReplyTarget => h !== undefined && 'relayed' in h;

// Its own file so that what holds device links (flows, liveness, the console endpoint) needs no import of
// device-endpoint.ts, which imports them: no cycle between the gateway's modules.
/** Where a device socket is: connected, then logged in after its login message (command 1). */
export class DeviceLink {
  readonly peer: Peer;
  readonly sn: string;
  readonly orgId: number;
  /**
   * The node's correlator of commands to devices, shared by every link: its expiry queue and one timer
   * per timeout value serve all of them, where a correlator per link armed a timer for nearly every command.
   */
  readonly commands: Correlator;
  /** Correlation ids of this link's commands that may still wait in `commands` (failed when the link closes). */
  waiting: Set<string> | undefined;
  loggedIn = false;
  /** When this link's login was recorded (latest_online_time); 0 before login. */
  onlineSince = 0;
  /** When the device last sent anything; the liveness sweep closes links silent for too long. */
  lastRx: number;
  /** True when this login enrolled the device (its first); later logins are reconnects. */
  enrolled = false;

  constructor(peer: Peer, sn: string, orgId: number, clock: Clock, commands: Correlator) {
    this.peer = peer;
    this.sn = sn;
    this.orgId = orgId;
    this.commands = commands;
    this.lastRx = clock.now();
  }

  /**
   * Routes a device's reply to the command waiting for it; false when none does. Only a command sent on
   * this socket: the correlator is shared by every device, and a device answering another's cid (of
   * another organisation, say) must not settle that command with forged data.
   */
  resolve(reply: Envelope): boolean {
    const cid = reply.cid;
    if (cid === undefined || !this.commands.resolve(reply, this)) return false;
    if (reply.result !== Result.Pushing) this.waiting?.delete(cid);
    return true;
  }

  /**
   * Relays a final reply in a msgpack frame to a console command that takes JSON, without decoding its
   * data; false (nothing done) when the frame is anything else, which is then decoded as usual.
   */
  relayReply(frame: Buffer): boolean {
    const reply = readReply(frame);
    if (!reply) return false;
    const handlers = this.commands.handlersOf(reply.cid, this);
    const head = isJsonReplyTarget(handlers) ? handlers.replyHead(reply) : undefined;
    if (head === undefined || !handlers) return false;
    const data = transcodeReply(frame, reply, head);
    if (!data) return false;
    this.peer.counted(reply.msgId);
    this.commands.cancel(reply.cid);
    this.waiting?.delete(reply.cid);
    (handlers as JsonReplyTarget).relayed(reply, data);
    return true;
  }

  /** Fails every command still waiting for this link (it closed). */
  failWaiting(err: Error): void {
    const cids = this.waiting;
    this.waiting = undefined;
    if (cids) for (const cid of cids) this.commands.fail(cid, err);
  }
}
