/**
 * Builds the Nest application on Fastify with every platform convention installed. `main.ts` listens on it; the
 * e2e tests use it unchanged (with their own DATA_DIR), so what is tested is what runs.
 */
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'nestjs-pino';
import { AppModule, type AppModuleOptions } from './app.module';
import { newId } from './platform/context/request-context';
import { CommandPipelineGuard } from './platform/http/command-pipeline';
import { IdempotencyStore } from './platform/http/idempotency.store';
import { PlatformExceptionFilter } from './platform/http/platform-exception.filter';
import { assertAcceptableJson, assertUtf8ContentType } from './platform/http/json-body';
import { installRequestLifecycle, requestIdFrom, sendError } from './platform/http/request-lifecycle';
import { platformClientErrorHandler } from './platform/http/client-errors';
import { PlatformValidationPipe } from './platform/http/validation';
import { installSecurityHeaders } from './platform/http/security-headers';
import { buildOpenApiDocument, ServedOpenApiDocument } from './platform/http/openapi';
import { isPlannedRoute } from './platform/http/planned-routes';
import { prepareDataDir } from './platform/security/data-dir';
import { MetricsService } from './platform/observability/metrics.service';
import { createPlatformLogger, logAbortedRequest, logRequest } from './platform/logging/logger.config';

export async function createApp(options: AppModuleOptions): Promise<NestFastifyApplication> {
  // Before anything opens a file there: an unsafe DATA_DIR is refused with a message saying what to do.
  prepareDataDir(options.config.dataDir);
  const pinoLogger = createPlatformLogger(options.config.logLevel, options.logStream);
  const { http } = options.config;
  const adapter = new FastifyAdapter({
    bodyLimit: options.config.bodyLimitBytes,
    // Slow clients: the headers, then the whole request, must arrive in time (408 in the envelope, then closed);
    // Node checks those deadlines every connectionsCheckingInterval (30 s by default, far too coarse for them).
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(http.headersTimeoutMs / 4))),
    },
    requestTimeout: http.requestTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    connectionTimeout: http.socketIdleTimeoutMs,
    genReqId: (req: { headers: Record<string, string | string[] | undefined> }) => requestIdFrom(req.headers['x-request-id'], newId),
    logger: false,
    // Errors the router raises before any route runs (a malformed URL) get the envelope too.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => void sendError(reply, request, error, () => undefined),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // request.ip: the right-most X-Forwarded-For address that is not a trusted proxy, or the peer when none is set.
    ...(options.config.trustedProxies.length > 0 ? { trustProxy: options.config.trustedProxies } : {}),
    clientErrorHandler: platformClientErrorHandler(newId, pinoLogger),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ ...options, logger: pinoLogger }), adapter, { bodyParser: false, bufferLogs: true, abortOnError: false });
  const logger = app.get(Logger);
  app.useLogger(logger);

  const fastify = app.getHttpAdapter().getInstance();
  // Past the cap Node closes a new connection on arrival, so one node's sockets and memory stay bounded.
  fastify.server.maxConnections = http.maxConnections;
  installJsonOnly(fastify, options.config.bodyLimitBytes);
  const metrics = app.get(MetricsService);
  const pipeline = app.get(CommandPipelineGuard);
  installRequestLifecycle(fastify, {
    idempotency: app.get(IdempotencyStore),
    observe: (method, route, status, seconds) => metrics.httpRequests.observe({ method, route, status: String(status) }, seconds),
    log: (request, reply) => logRequest(pinoLogger, request, reply),
    logAborted: (request) => logAbortedRequest(pinoLogger, request),
    settle: (request) => pipeline.settle(request),
    serverTiming: options.config.serverTiming,
  });
  // After the lifecycle's hooks: a CORS preflight answered by the plugin still gets a request id and context.
  await installSecurityHeaders(app, options.config.corsAllowedOrigins);

  app.useGlobalFilters(app.get(PlatformExceptionFilter));
  app.useGlobalPipes(app.get(PlatformValidationPipe));
  // After the auth guard (an APP_GUARD, registered when the module was scanned): idempotency keys are per caller.
  // Route-level guards run after this one: a future one that sets the caller must move into the auth guard instead.
  app.useGlobalGuards(pipeline);

  const document = buildOpenApiDocument(app);
  const served = app.get(ServedOpenApiDocument);
  served.document = document;
  // The route table as the server registers it (during init below), for the capability registry's route test; the
  // planned operations' 404 routes (planned-routes.ts) are not operations it serves.
  fastify.addHook('onRoute', (route) => {
    if (isPlannedRoute(route)) return;
    for (const method of [route.method].flat()) served.routes.push({ method: String(method), url: route.url });
  });
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'api/v1/openapi.json', raw: ['json'] });

  app.enableShutdownHooks();
  try {
    await app.init();
    await fastify.ready();
  } catch (error) {
    // A failed start (bad ADMIN_PASSWORD, unreachable store…) must not leave projections and timers running.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

/** JSON is the only body format: keep the raw bytes (idempotency fingerprints) and drop Fastify's text/plain. */
function installJsonOnly(fastify: FastifyInstance, bodyLimit: number): void {
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) => {
    request.rawBody = body;
    try {
      assertUtf8ContentType(request.headers['content-type']);
    } catch (error) {
      return done(error as Error);
    }
    parseJson(request, body.toString('utf8'), (error: Error | null, parsed?: unknown) => {
      if (error) return done(error);
      try {
        assertAcceptableJson(parsed);
      } catch (invalid) {
        return done(invalid as Error);
      }
      done(null, parsed);
    });
  });
}
