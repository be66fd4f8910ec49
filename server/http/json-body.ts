import type { FastifyInstance } from 'fastify';
import { MAX_NESTING, nestedDeeperThan } from '../../protocol/index.ts';

/** A JSON body nested deeper than the wire allows (PROTOCOL.md ENV-5). */
export class BodyTooDeepError extends Error {
  readonly statusCode = 400;
  constructor() {
    super(`The request body is nested deeper than ${MAX_NESTING} levels`);
    this.name = 'BodyTooDeepError';
  }
}

/**
 * Fastify's own JSON body parser (with its __proto__ and constructor refusals), followed by the wire's
 * nesting cap. JSON.parse copes with any depth, but a value thousands of levels deep overflows the stack
 * when it is sent on (JSON.stringify, msgpack) or walked, which answered 500; refused here, it answers
 * 40001 before any route or validation sees it.
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    parse(req, text, (err, value) => {
      if (err) return done(err, undefined);
      // Any body of n levels is at least 2n characters long, so most skip the walk.
      if (text.length > 2 * MAX_NESTING && nestedDeeperThan(value, MAX_NESTING)) return done(new BodyTooDeepError(), undefined);
      return done(null, value);
    });
  });
}
