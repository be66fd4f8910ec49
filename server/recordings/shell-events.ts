import { Command, decode, type Envelope, type ShellRequest, shellOutput } from '../../protocol/index.ts';
import type { Recordings } from './recorder.ts';

/** A device's shell output on a flow, into its recording; the terminal's last message ends it. */
export function recordShellOutput(recordings: Recordings, sn: string, env: Envelope): void {
  if (env.msgId !== Command.Shell || env.flowId === undefined || env.result !== undefined) return;
  const d = decode(shellOutput, env.data);
  if (d === undefined) return;
  recordings.output(sn, env.flowId, d.output);
  if (d.ended !== undefined) void recordings.end(sn, env.flowId);
}

/** A console's shell request on a flow (not `open`), into its recording: typed input, a line, a resize. */
export function recordShellRequest(recordings: Recordings, sn: string, flowId: string, d: ShellRequest): void {
  if (d.op === 'write') recordings.input(sn, flowId, d.data);
  else if (d.op === 'input') recordings.input(sn, flowId, `${d.line}\r`);
  else if (d.op === 'resize') recordings.resize(sn, flowId, d.cols, d.rows);
}
