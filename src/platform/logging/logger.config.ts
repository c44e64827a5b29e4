/**
 * Structured JSON logs (pino). Credentials never reach a log line: headers that carry them and every field named
 * like a password, token, secret or code are censored wherever they appear (two levels deep covers our bodies).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Params } from 'nestjs-pino';
import pino, { type Logger } from 'pino';
import { currentContext } from '../context/request-context';

const SECRET_FIELDS = [
  'password', 'current_password', 'new_password', 'token', 'access_token', 'refresh_token', 'step_up_token', 'hashed_token',
  'secret', 'client_secret', 'totp_code', 'recovery_code', 'recovery_codes', 'authorization', 'api_key', 'private_key',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`]),
];

const SECRET_QUERY = /([?&](?:token|code|secret|password|key|signature|access_token)=)[^&#]*/gi;

/** Tokens travel in links (activation, contact change): their query values never reach a log line. */
export function redactQuery(url: string): string {
  return url.replace(SECRET_QUERY, '$1[REDACTED]');
}

/** Request headers a log line shows as sent: an allowlist, so a credential in a header we never heard of stays out. */
const LOGGED_HEADERS = ['host', 'user-agent', 'content-type', 'content-length', 'accept', 'x-forwarded-for', 'x-request-id', 'idempotency-key', 'if-match'];
/** Credential headers: the line says one was sent, never what it held. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];

function loggedHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const name of LOGGED_HEADERS) if (headers[name] !== undefined) shown[name] = headers[name];
  for (const name of CREDENTIAL_HEADERS) if (headers[name] !== undefined) shown[name] = '[REDACTED]';
  return shown;
}

/**
 * The application's one pino logger: nestjs-pino's Logger writes through it (LoggerModule with `loggerParams`) and
 * so do the request lines (`logRequest`). Every line logged during a request carries its request id (mixin).
 */
export function createPlatformLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    mixin: () => {
      const ctx = currentContext();
      return ctx ? { request_id: ctx.request_id } : {};
    },
    serializers: {
      req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({ id: req.id, method: req.method, url: redactQuery(req.url), headers: loggedHeaders(req.headers) }),
      res: pino.stdSerializers.res,
      err: pino.stdSerializers.err,
    },
  };
  return stream ? pino(options, stream) : pino(options);
}

export function loggerParams(logger: Logger): Params {
  return {
    // No per-request logger: pino-http's middleware builds two child loggers for every request, serializing and
    // redacting their bindings up front even when nothing is logged, which took a quarter of a trivial route's
    // time. The request line comes from `logRequest` (the platform's response hook) instead, and the request id
    // from the mixin, both computed only when a line is written.
    forRoutes: [],
    pinoHttp: { logger },
  };
}

const UNLOGGED_ROUTES = new Set(['/health/live', '/metrics']);

/** A request its client gave up on before the answer (a long X-Min-Position or read-your-writes wait, say). */
export function logAbortedRequest(logger: Logger, request: FastifyRequest): void {
  if (!logger.isLevelEnabled('info') || UNLOGGED_ROUTES.has(request.url)) return;
  logger.info({ request_id: request.id, req: request }, 'request aborted');
}

/** One line per answered request (info; error for 5xx), with the same fields pino-http wrote. */
export function logRequest(logger: Logger, request: FastifyRequest, reply: FastifyReply): void {
  const failed = reply.statusCode >= 500;
  if (!logger.isLevelEnabled(failed ? 'error' : 'info') || UNLOGGED_ROUTES.has(request.url)) return;
  const line = { request_id: request.id, req: request, res: reply.raw, responseTime: Math.round(reply.elapsedTime) };
  if (failed) logger.error(line, 'request errored');
  else logger.info(line, 'request completed');
}
