/**
 * Planned operations on the route table (docs/capabilities.md, "Planned operations"): each operation the capability
 * registry lists as planned is registered as a route of its own that answers 404 NOT_FOUND in the error envelope to
 * anyone, before authentication and before its body is read. Without it, a planned path a live route's template
 * also matches (GET …/price-feeds/providers and the live GET …/price-feeds/{feed_id}) would be answered by that
 * route: 401 to the anonymous, 400 to others. find-my-way gives a static segment precedence over a parameter, so the
 * planned route wins wherever it is declared; a planned operation whose path is exactly a live route's (parameter
 * names aside) stops the app from starting (Fastify refuses the duplicate, and the registry names it first).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { PlatformError } from '../errors';
import { sendError } from './request-lifecycle';

/** Route config marking a planned operation's route: it is not an operation the server serves. */
const PLANNED = 'platformPlannedOperation';

export interface PlannedRoute {
  method: string;
  /** The OpenAPI template, `{param}` segments. */
  path: string;
}

/** True for the route of a planned operation (the served route table leaves them out). */
export function isPlannedRoute(route: Pick<RouteOptions, 'config'>): boolean {
  return (route.config as Record<string, unknown> | undefined)?.[PLANNED] === true;
}

export function installPlannedRoutes(fastify: FastifyInstance, operations: readonly PlannedRoute[]): void {
  for (const operation of operations) {
    const notServed = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      sendError(reply, request, new PlatformError('NOT_FOUND', `${operation.method} ${operation.path} is planned and not served yet (GET /api/v1/capabilities lists it with status planned).`), () => undefined);
    fastify.route({
      method: operation.method as RouteOptions['method'],
      url: operation.path.replace(/\{([^}]+)\}/g, ':$1'),
      config: { [PLANNED]: true },
      // Answered in onRequest: before the body is parsed, so no body (malformed, another media type) changes the answer.
      onRequest: async (request, reply) => notServed(request, reply),
      handler: async (request, reply) => notServed(request, reply),
    });
  }
}
