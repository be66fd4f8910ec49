/** WebSocket close codes used by the gateway (4000-4999 are application codes). */
export const CloseCode = {
  Normal: 1000,
  GoingAway: 1001,
  PolicyViolation: 1008,
  MessageTooBig: 1009,
  /** A device's socket that had not logged in, superseded by a newer one of the same device; it may reconnect. */
  TryAgainLater: 1013,
  /** Token or device secret missing, unknown, expired or revoked: the client must not reconnect. */
  Unauthorized: 4001,
  /** The session was ended by logout or kick-out. */
  SessionEnded: 4002,
  /** The peer sent nothing for longer than the heartbeat allows; it may reconnect. */
  HeartbeatTimeout: 4005,
  /** A newer connection for the same device replaced this one. */
  Replaced: 4008,
} as const;
export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode];

/** True when the close code means reconnecting with the same credentials is pointless. */
export function isTerminalClose(code: number): boolean {
  return code === CloseCode.Unauthorized || code === CloseCode.SessionEnded || code === CloseCode.Replaced;
}
