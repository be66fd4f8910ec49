/** Stable error codes of the protocol layer; PROTOCOL.md lists the same codes. */
export const ErrorCode = {
  Decode: 'DECODE',
  Timeout: 'TIMEOUT',
  ConnectionLost: 'CONNECTION_LOST',
  NotConnected: 'NOT_CONNECTED',
  TokenRejected: 'TOKEN_REJECTED',
  QueueOverflow: 'QUEUE_OVERFLOW',
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base of every error the protocol layer raises. */
export class ProtocolError extends Error {
  readonly code: ErrorCodeValue;
  constructor(code: ErrorCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
    this.code = code;
  }
}

/** A frame that is not a valid envelope. Raised by codecs, never past the decoder boundary. */
export class DecodeError extends ProtocolError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Decode, message, options);
    this.name = 'DecodeError';
  }
}

/** A request whose reply did not arrive within its timeout. */
export class RequestTimeoutError extends ProtocolError {
  constructor(msgId: number, timeoutMs: number) {
    super(ErrorCode.Timeout, `Request ${msgId} timed out after ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** The connection closed while a request was pending, or a send was attempted while closed. */
export class ConnectionLostError extends ProtocolError {
  constructor(code: typeof ErrorCode.ConnectionLost | typeof ErrorCode.NotConnected = ErrorCode.ConnectionLost) {
    super(code, code === ErrorCode.NotConnected ? 'Not connected' : 'Connection lost');
    this.name = 'ConnectionLostError';
  }
}

/** A request asked to be held while disconnected, but the hold queue is full. */
export class QueueOverflowError extends ProtocolError {
  constructor(held: number) {
    super(ErrorCode.QueueOverflow, `Send queue full (${held} requests held while disconnected)`);
    this.name = 'QueueOverflowError';
  }
}

/** The server refused the credentials (close 4001, 4002 or 4008): the engine will not reconnect on its own. */
export class TokenRejectedError extends ProtocolError {
  constructor() {
    super(ErrorCode.TokenRejected, 'The server rejected the token; log in again');
    this.name = 'TokenRejectedError';
  }
}
