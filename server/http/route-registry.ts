import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';

/** A registered route as the contract test reads it (tests/integration/rest-contract.test.ts). */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: FastifySchema | undefined;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/**
 * Records every route with its schema objects, as given (not copies): Fastify has no public list of
 * routes with their schemas once it is ready. Register before the routes.
 */
export function registerRouteRegistry(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  registries.set(app, routes);
  app.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, schema: route.schema });
  });
}

/** The routes registered on an app built with {@link registerRouteRegistry}. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return registries.get(app) ?? [];
}
