import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiCode, ApiError, Message } from './envelope.ts';

/**
 * Per-route request limits (@fastify/rate-limit). A route opts in with `config.rateLimit`; going over
 * answers the spec's 'You click too frequently！' in the usual envelope.
 */
export async function registerRateLimit(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: () => new ApiError(ApiCode.TooFrequent, Message.TooFrequent),
  });
}
