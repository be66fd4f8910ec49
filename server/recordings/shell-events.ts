import { Command, type Envelope } from '../../protocol/index.ts';
import type { Recordings } from './recorder.ts';

/** A device's shell output on a flow, into its recording; the terminal's last message ends it. */
export function recordShellOutput(recordings: Recordings, sn: string, env: Envelope): void {
  if (env.msgId !== Command.Shell || env.flowId === undefined || env.result !== undefined) return;
  const d = env.data as { output?: unknown; ended?: unknown } | null | undefined;
  if (typeof d?.output === 'string') recordings.output(sn, env.flowId, d.output);
  if (typeof d?.ended === 'string') void recordings.end(sn, env.flowId);
}

/** A console's shell request on a flow (not `open`), into its recording: typed input, a line, a resize. */
export function recordShellRequest(recordings: Recordings, sn: string, flowId: string, data: unknown): void {
  const d = data as { op?: unknown; data?: unknown; line?: unknown; cols?: unknown; rows?: unknown } | null | undefined;
  if (d?.op === 'write' && typeof d.data === 'string') recordings.input(sn, flowId, d.data);
  else if (d?.op === 'input' && typeof d.line === 'string') recordings.input(sn, flowId, `${d.line}\r`);
  else if (d?.op === 'resize' && typeof d.cols === 'number' && typeof d.rows === 'number') recordings.resize(sn, flowId, d.cols, d.rows);
}
