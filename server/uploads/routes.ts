import type { FastifyInstance } from 'fastify';

/**
 * The resumable upload endpoints (tus) as a route plugin: the service comes from the uploads plugin, and the
 * body parser they need (application/offset+octet-stream, read by tus itself) stays in this context.
 */
export async function uploadRoutes(app: FastifyInstance): Promise<void> {
  app.uploads.register(app, app.liveCallers);
}
