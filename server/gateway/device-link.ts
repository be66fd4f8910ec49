import { type Clock, type Correlator, type Envelope, Result } from '../../protocol/index.ts';
import type { Peer } from './peer.ts';

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

  /** Fails every command still waiting for this link (it closed). */
  failWaiting(err: Error): void {
    const cids = this.waiting;
    this.waiting = undefined;
    if (cids) for (const cid of cids) this.commands.fail(cid, err);
  }
}
