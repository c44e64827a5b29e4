/**
 * Response headers a browser reads for safety, set by the libraries made for it: helmet (nosniff, referrer policy,
 * CSP, frame-ancestors, HSTS…) and @fastify/cors (off unless CORS_ALLOWED_ORIGINS lists origins). Every API
 * answer is personal or financial, and some carry credentials (sign-in, step-up, tokens, TOTP secrets, recovery
 * codes), so none may be stored by a browser or a shared cache: `Cache-Control: no-store` unless a route says
 * otherwise. The docs page (Swagger UI) is the one HTML page: its CSP allows its own scripts, styles and images.
 */
import cors from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** The JSON API: nothing to load, nothing may frame it. */
const API_CSP = {
  useDefaults: false,
  directives: { defaultSrc: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"], frameAncestors: ["'none'"] },
};

/** Swagger UI: its bundle and init script, its inline styles, data: icons, and fetches of the document and "Try it out". */
const DOCS_CSP = {
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  },
};

/** Request headers a browser client may send cross-origin, and response headers its script may read. */
const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Min-Position', 'X-Request-Id', 'X-Correlation-Id'];
const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'X-Position', 'X-Next-Cursor', 'Idempotent-Replay', 'Retry-After', 'Location'];

export const DOCS_PREFIX = '/docs';

/** The docs page and its assets (Swagger UI), as a route's URL names them. */
const isDocsRoute = (url: string): boolean => url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`) || url.startsWith(`${DOCS_PREFIX}-`);

/**
 * The headers helmet sets for `options`, worked out once. The headers depend on the options only, and
 * @fastify/helmet builds helmet's middleware again for every request (parsing the CSP directives each time): 17-38 µs
 * of every answer on a 2-vCPU machine (issue 30). Helmet's middleware only sets and removes headers.
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name];
    },
  };
  helmet(options)({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

export async function installSecurityHeaders(app: NestFastifyApplication, corsAllowedOrigins: string[]): Promise<void> {
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  const options: HelmetOptions = {
    contentSecurityPolicy: API_CSP,
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' }, // what frame-ancestors 'none' says, for browsers that only read X-Frame-Options
    // An API answers other origins only through CORS; the resource policy must not undo an allow-listed origin.
    crossOriginResourcePolicy: { policy: corsAllowedOrigins.length > 0 ? 'cross-origin' : 'same-origin' },
  };
  const apiHeaders = helmetHeaders(options);
  // The docs page gets its own CSP; every other answer (404s included) the API's.
  const docsHeaders = helmetHeaders({ ...options, contentSecurityPolicy: DOCS_CSP });
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.headers(isDocsRoute(request.routeOptions?.url ?? '') ? docsHeaders : apiHeaders);
    done();
  });
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (!isDocsRoute(request.routeOptions?.url ?? '') && !reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    return payload;
  });
  if (corsAllowedOrigins.length > 0) {
    await app.register(cors, {
      origin: corsAllowedOrigins,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: CORS_REQUEST_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      // Bearer tokens, not cookies: a browser never sends credentials on its own.
      credentials: false,
      maxAge: 600,
      strictPreflight: true,
    });
  }
}
