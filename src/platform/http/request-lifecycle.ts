/**
 * Per-request plumbing on the Fastify instance: request ids, the request context, read-your-writes, the
 * idempotency record's completion and metrics. Errors Fastify raises before routing (body parsing, content type,
 * size) reach Nest's handler and so the platform exception filter like any other.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ANONYMOUS_ACTOR, createRequestContext, runWithContext, type RequestContext } from '../context/request-context';
import type { IdempotencyStore } from './idempotency.store';
import { mapError } from './error-envelope';
import { markStage, serverTimingHeader, startTiming } from '../observability/server-timing';

const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

export interface IdempotencyInFlight {
  scope: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    platformContext: RequestContext;
    idempotency?: IdempotencyInFlight;
    /** Set when the command's projections did not catch up within the bounded wait. */
    projectionsPending?: boolean;
    rawBody?: Buffer;
  }
}

export function requestIdFrom(header: unknown, fallback: () => string): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : fallback();
}

export interface LifecycleDeps {
  idempotency: IdempotencyStore;
  observe(method: string, route: string, status: number, seconds: number): void;
  /** The request's log line (see logging/logger.config). */
  log(request: FastifyRequest, reply: FastifyReply): void;
  /** The line of a request its client abandoned before the answer. */
  logAborted(request: FastifyRequest): void;
  /** Before any answer leaves: read-your-writes for what the request appended (CommandPipelineGuard.settle). */
  settle(request: FastifyRequest): Promise<void>;
  /** SERVER_TIMING: answer a Server-Timing header with the request's stages. */
  serverTiming?: boolean;
}

export function installRequestLifecycle(fastify: FastifyInstance, deps: LifecycleDeps): void {
  fastify.decorateRequest('platformContext', null as unknown as RequestContext);

  // Every route handler (Nest's guards, pipes and handler) runs inside its request's context: event metadata, ids
  // and read-your-writes positions come from it. Installed before Nest registers its routes.
  fastify.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function inRequestContext(this: unknown, request: FastifyRequest, reply: FastifyReply) {
      markStage('parse', request.platformContext);
      return runWithContext(request.platformContext, () => handler.call(this as FastifyInstance, request, reply));
    };
  });

  fastify.addHook('onRequest', async (request, reply) => {
    request.platformContext = createRequestContext({ request_id: String(request.id), actor: ANONYMOUS_ACTOR });
    if (deps.serverTiming) startTiming(request.platformContext);
    const correlation = request.headers['x-correlation-id'];
    if (typeof correlation === 'string' && REQUEST_ID.test(correlation)) request.platformContext.correlation_id = correlation;
    reply.header('X-Request-Id', String(request.id));
  });

  fastify.addHook('onSend', async (request, reply, payload) => {
    markStage('serialize', request.platformContext);
    // A rejection here would reach Fastify's fallback error path, which cannot answer from an onSend hook and brings
    // the process down (seen when the app closes under in-flight requests: the read-model database is gone). The
    // command has succeeded either way: an answer whose projections could not be awaited is a pending one (202).
    await deps.settle(request).catch(() => {
      request.projectionsPending = true;
    });
    markStage('read-your-writes', request.platformContext);
    const ctx = request.platformContext;
    // Successful commands only: on a refusal the header would tell an observer that something was recorded (e.g. a
    // failed sign-in of a known address).
    if (ctx?.commit_position !== null && ctx?.commit_position !== undefined && reply.statusCode < 300) {
      reply.header('X-Position', ctx.commit_position.toString());
      if (request.projectionsPending && reply.statusCode < 300) reply.code(202);
    }
    const pending = request.idempotency;
    if (pending) {
      request.idempotency = undefined;
      // The same for the retained response: failing to keep it leaves the key in flight (a retry is told so), never a crash.
      try {
        if (reply.statusCode >= 200 && reply.statusCode < 300) {
          const headers: Record<string, string> = { 'content-type': String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8') };
          const position = reply.getHeader('x-position');
          if (position !== undefined) headers['x-position'] = String(position);
          await deps.idempotency.complete(pending.scope, pending.key, { status: reply.statusCode, headers, body: typeof payload === 'string' ? payload : '' });
        } else {
          await deps.idempotency.abandon(pending.scope, pending.key);
        }
      } catch {
        // The store is unreachable (shutting down): the key's in-flight mark expires on its own.
      }
      markStage('idempotency-record', ctx);
    }
    if (ctx?.timing) reply.header('Server-Timing', serverTimingHeader(ctx.timing));
    return payload;
  });

  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    deps.observe(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    deps.log(request, reply);
  });

  fastify.addHook('onRequestAbort', async (request) => {
    deps.logAborted(request);
  });
}

export function sendError(reply: FastifyReply, request: FastifyRequest, error: unknown, logError: (error: unknown, request: FastifyRequest) => void): FastifyReply {
  const mapped = mapError(error, String(request.id));
  if (mapped.internal) logError(error, request);
  reply.header('X-Request-Id', String(request.id));
  for (const [k, v] of Object.entries(mapped.headers)) reply.header(k, v);
  return reply.code(mapped.status).type('application/json; charset=utf-8').send(mapped.body);
}
