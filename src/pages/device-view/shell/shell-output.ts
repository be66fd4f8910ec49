import type { ShellOpenReply, ShellOutput } from '../../../../protocol/index.ts';

/**
 * What of a device terminal's output a console has shown, counted in characters as the device counts
 * them (`offset`), so output heard twice (the open reply's backlog and the flow overlapping after a
 * re-attach) is shown once.
 */
export class OutputCursor {
  /** Characters shown so far; sent as `since` when re-attaching. */
  received = 0;

  /** The part of a chunk not shown yet (all of it when the device gives no offset, as in line mode). */
  take(o: Pick<ShellOutput, 'output' | 'offset'>): string {
    if (typeof o.offset !== 'number') return o.output;
    const skip = this.received - o.offset;
    this.received = Math.max(this.received, o.offset + o.output.length);
    return skip > 0 ? o.output.slice(skip) : o.output;
  }

  /** Takes an open reply: its backlog ends at `offset`, and whatever came before it is the console's already. */
  attach(reply: Pick<ShellOpenReply, 'offset' | 'backlog'>): string {
    const backlog = reply.backlog ?? '';
    const offset = reply.offset ?? 0;
    this.received = offset - backlog.length;
    return this.take({ output: backlog, offset: this.received });
  }

  reset(): void {
    this.received = 0;
  }
}
