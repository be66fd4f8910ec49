import type { ResultCode } from './catalogue/enums.ts';

/**
 * One protocol message. `msgId` is the command id; a reply echoes the request's `msgId` and `cid` and
 * carries `result`. Messages of a flow (stream, shell session, transfer, push job) carry its `flowId`.
 */
export interface Envelope {
  readonly msgId: number;
  /** Correlation id chosen by the requester and echoed by the reply. */
  readonly cid?: string;
  readonly flowId?: string;
  /** Serial number of the device the message concerns. */
  readonly sn?: string;
  readonly result?: ResultCode;
  readonly data?: unknown;
  readonly jsessionId?: string;
}

/** True when the envelope answers a request (it carries both a correlation id and a result). */
export function isReply(env: Envelope): env is Envelope & { cid: string; result: ResultCode } {
  return env.cid !== undefined && env.result !== undefined;
}
