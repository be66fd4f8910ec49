import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiCode, ApiError } from './envelope.ts';

/**
 * Per-route request limits (@fastify/rate-limit). A route opts in with `config.rateLimit`; going over
 * answers the spec's 'You click too frequently！' in the usual envelope.
 */
export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => new ApiError(ApiCode.TooFrequent, 'common.tooFrequent'),
  });
}

/**
 * The client as limits see it: an IPv4 address as it is, an IPv6 address by its /64. One subscriber or
 * host usually holds a whole /64, so keying by the full address would give one attacker 2^64 budgets.
 * (Behind a reverse proxy every client has the proxy's address; see docs/DECISIONS.md.)
 */
export function addressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(ip)) return ip;
  const [head = '', tail] = ip.replace(/%.*$/, '').split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // An embedded IPv4 address (::1.2.3.4) takes two groups.
  const width = (parts: string[]) => parts.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const front = groups(head);
  const back = groups(tail);
  const all = tail === undefined ? front : [...front, ...Array<string>(8 - width(front) - width(back)).fill('0'), ...back];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Route config for a per-address budget, counted in the onRequest hook (before the body is read) and
 * answered with 'You click too frequently！' when spent.
 */
export function perAddressLimit(max: number, timeWindow: number): { rateLimit: RateLimitOptions } {
  return { rateLimit: { hook: 'onRequest', max, timeWindow, keyGenerator: (req) => addressKey(req.ip) } };
}

/** The same state-changing call may repeat this many times within HOT_ACTION_WINDOW_MS. */
export const HOT_ACTION_MAX = 3;
export const HOT_ACTION_WINDOW_MS = 2_000;

/**
 * The key of a hot action: the caller (or, before a session exists, the address), the route and the
 * request's content. A double or triple click sends the same request again and is refused; a script
 * working through different targets is not slowed down, and two people never share a budget.
 */
function hotActionKey(req: FastifyRequest): string {
  const who = req.caller ? `a${req.caller.accountId}` : `ip${req.ip}`;
  const content = createHash('sha256')
    .update(JSON.stringify(req.params ?? null))
    .update(JSON.stringify(req.body ?? null))
    .digest('base64url');
  return `${who}|${req.routeOptions.url ?? ''}|${content}`;
}

/**
 * Route config for a state-changing "hot" action (platform-core section 8, 'You click too frequently！').
 * Runs after the guard and body parsing, so the key knows the caller and the request's content.
 * Use as `config: { permission: KEY, ...hotAction }`.
 */
export const hotAction: { rateLimit: RateLimitOptions } = {
  rateLimit: { hook: 'preHandler', max: HOT_ACTION_MAX, timeWindow: HOT_ACTION_WINDOW_MS, keyGenerator: hotActionKey },
};

/** Route config for a per-caller budget of `max` requests per `timeWindow` ms (the caller's account, else its address). */
export function perCallerLimit(max: number, timeWindow: number): { rateLimit: RateLimitOptions } {
  return { rateLimit: { hook: 'preHandler', max, timeWindow, keyGenerator: (req) => (req.caller ? `a${req.caller.accountId}` : `ip${req.ip}`) } };
}

/**
 * Route config for uploads, whose content is a stream the key cannot include: a per-caller budget that a
 * person attaching files never reaches and a loop quickly does.
 */
export const uploadLimit: { rateLimit: RateLimitOptions } = perCallerLimit(30, 60_000);
