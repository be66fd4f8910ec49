/**
 * A flowId a console may open a flow with: what a chunk header can carry (CHUNK-1: 1-64 bytes of
 * `A-Z a-z 0-9 _ . : -`). A flow named otherwise could carry envelopes but never its file's or terminal's
 * chunks, so the gateway refuses it up front (result 2) instead of forwarding it to the device.
 */
export const FLOW_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The `data.message` of that refusal. */
export const FLOW_ID_MESSAGE = 'flowId must be 1-64 characters of A-Z a-z 0-9 _ . : -';

export function isValidFlowId(flowId: string): boolean {
  return FLOW_ID_PATTERN.test(flowId);
}
