/**
 * Structured JSON logs (pino). Credentials never reach a log line: headers that carry them and every field named
 * like a password, token, secret or code are censored wherever they appear (two levels deep covers our bodies).
 */
import type { Params } from 'nestjs-pino';

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

export function loggerParams(level: string, stream?: NodeJS.WritableStream): Params {
  return {
    pinoHttp: {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      // The request id Fastify assigned (from X-Request-Id or generated) ties log lines to the error envelope.
      genReqId: (req) => (req as unknown as { id: string }).id,
      customProps: (req) => ({ request_id: (req as unknown as { id: string }).id }),
      serializers: {
        req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({ id: req.id, method: req.method, url: redactQuery(req.url), headers: loggedHeaders(req.headers) }),
      },
      autoLogging: { ignore: (req) => req.url === '/health/live' || req.url === '/metrics' },
      ...(stream ? { stream } : {}),
    },
  };
}
