import type { FastifyServerOptions } from 'fastify';

/**
 * Secrets that a client may put in a URL, and so in every request log line that names it:
 * - the spec's GET /org/authorizationPassword/{password} carries the password's SHA-256, which is what the
 *   login takes, so a logged hash is as good as the password (platform-core section 7 keeps the path);
 * - query fields named token or password (the console socket's ?token=, or any client that sends them so).
 */
const SECRET_PATH = /(\/org\/authorizationPassword\/)[^?#\s"]*/gi;
const SECRET_QUERY = /([?&](?:token|password)=)[^&#\s"]*/gi;
export const REDACTED = '[redacted]';

/** `text` with the secrets above replaced by [redacted]. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATH, `$1${REDACTED}`).replace(SECRET_QUERY, `$1${REDACTED}`);
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers?: Record<string, string | string[] | undefined>;
  socket?: { remotePort?: number };
}

/** Fastify's own request serializer, with the URL redacted. */
function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactSecrets(req.url),
    version: String(req.headers?.['accept-version'] ?? '') || undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

interface LoggedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

/** An error as pino logs it (type, message, stack, own fields, cause), with every text redacted. */
function serializeError(err: Error, depth = 0): LoggedError {
  const out: LoggedError = { type: err.constructor.name, message: redactSecrets(err.message), stack: redactSecrets(err.stack ?? '') };
  for (const [key, value] of Object.entries(err)) {
    if (key === 'cause') continue;
    out[key] = typeof value === 'string' ? redactSecrets(value) : value;
  }
  if (err.cause instanceof Error && depth < 5) out.cause = serializeError(err.cause, depth + 1);
  else if (err.cause !== undefined) out.cause = typeof err.cause === 'string' ? redactSecrets(err.cause) : err.cause;
  return out;
}

/**
 * The server's request log (LOG_REQUESTS=1): Fastify's pino logger at info, with secrets redacted from
 * request URLs, error texts and plain messages (Fastify's "Route GET:/… not found" names the URL).
 */
export const requestLogOptions = {
  level: 'info',
  serializers: { req: serializeRequest, err: serializeError },
  hooks: {
    logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
      method.apply(
        this,
        args.map((a) => (typeof a === 'string' ? redactSecrets(a) : a)),
      );
    },
  },
} satisfies FastifyServerOptions['logger'];
