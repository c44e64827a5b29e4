/**
 * The OpenAPI document, generated from the controllers and the DTO classes the validation pipe uses, so it cannot
 * drift from what the server enforces. Built the same way for `/api/v1/openapi.json` and for `npm run openapi`
 * (which writes docs/openapi.json without listening). Conventions applied here, in one place:
 * - every operation needs the bearer token unless its route is @Public(), which gets `security: []`, or, when it
 *   takes a credential of its own (@ApiSecurity), that scheme's requirement (the price providers' X-Provider-Key);
 * - the operationId is the controller method's name (unique across the API, checked here), so a generated client
 *   reads `placeOrder`, `cancelOrders`, `listNotifications`;
 * - one tag per module, described.
 */
import { Injectable, type INestApplication } from '@nestjs/common';
import { ApiExtension, ApiProperty, ApiPropertyOptional, ApiResponse, ApiSchema, DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { STATUS_OF } from '../errors';
import { PUBLIC_EXTENSION, SECRET_RESPONSE_EXTENSION } from './public.decorator';
import { CLOSED_SHAPES } from './validation';

/** The tags the modules use (ApiTags on each controller) and what each covers. */
export const OPENAPI_TAGS: Record<string, string> = {
  identity: 'Accounts, activation, sessions, step-up, authenticators, contact changes, closure, tenants and workspaces.',
  trading: 'Markets, orders (seed MTF routes and the canonical order model), cancellation, order book, fills and positions.',
  'ai-wallets': 'AI-agent wallet bindings, spending policies, budgets, intents, approvals and the workload token.',
  'agentic-memory': 'Memory collections, items, requests, clarifications and signed manifests.',
  commerce: 'Merchants and their review, catalogues, invoices, payments, watch-only wallets and settlement intents.',
  arena: 'Arena administration: trading competitions between a tenant\'s people on the platform\'s markets, with leaderboards frozen at the season\'s end.',
  'asset-collections': 'A catalogue of asset collections platform admins keep; ACTIVE ones listed publicly, with a recomputable metadata hash.',
  news: 'News administration: a tenant\'s articles, drafted, scheduled, published and archived.',
  billing: 'Billing accounts and their credit pools, the product catalogue, subscriptions, top-ups, adjustments and usage rated from the event log.',
  transfers: 'Outbound transfers of settled funds: screening, travel-rule envelopes, governance binding, compliance cancellation, the recipient key directory.',
  notifications: "The caller's notification inbox.",
  audit: 'Raw stream events with their commitments, signed checkpoints and auditor grants.',
  health: 'Liveness and readiness.',
  capabilities: 'The capability registry: every operation of this platform, its contract and business context, generated from the served routes.',
};

/**
 * The price providers' push key (`hcpk_…`, shown once at registration), sent as the X-Provider-Key header to the
 * provider's quotes route instead of a session: an apiKey scheme, so a generated client sends it.
 */
export const PROVIDER_KEY_SCHEME = 'providerKey';

/** Marker: error statuses a route gives beyond the platform's conventions (see applyConventions). */
const ERRORS_EXTENSION = 'x-platform-errors';

/**
 * The error statuses only this route gives, beyond those every route of its kind declares (400, 401/403 when
 * secured, 404 with a path id, 409/422 on commands, 413/415 with a body, 500, 503): e.g. 401 on sign-in, 429 where a
 * throttle applies, 404 for an id in the query or body. Each is the error envelope.
 */
export const ApiErrors = (...statuses: Array<401 | 402 | 403 | 404 | 409 | 422 | 429>): MethodDecorator => ApiExtension(ERRORS_EXTENSION, statuses) as MethodDecorator;

const READ_BACK_PENDING = 'Done, but a read model the command affects had not caught up within READ_YOUR_WRITES_TIMEOUT_MS';

/**
 * The 202 of a command whose answer is read back from a read model that had not caught up: its body is what the
 * command itself knows (`type`), not the record; X-Position read back as X-Min-Position gives the record. Without
 * this the 202 declares the same body as the 200/201 (a command that answers from its own result).
 */
export const ApiPendingReadBack = (type: new () => object): MethodDecorator =>
  ApiResponse({ status: 202, type, description: `${READ_BACK_PENDING}: what the command knows; send X-Position as X-Min-Position to read the record back.` });

/**
 * The document this app serves at /api/v1/openapi.json (set once it is built): what the capability registry is
 * generated from; and the routes the HTTP server really registered (its route table, what the registry is tested
 * against).
 */
@Injectable()
export class ServedOpenApiDocument {
  document: OpenAPIObject | null = null;
  readonly routes: Array<{ method: string; url: string }> = [];
}

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Trading and Account Platform Interface')
    .setDescription(
      'Order-book trading, identity, AI-agent wallets, commerce, billing, agentic memory and notifications. Every error uses one envelope (ErrorEnvelope); see docs/api.md for the conventions (idempotency, read-your-writes, pagination).',
    )
    .setVersion('1')
    .addServer('/', 'This server')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'An opaque session token from POST /api/v1/auth/sessions (or a workload token from POST /api/v1/auth/token).' }, 'bearer')
    .addSecurityRequirements('bearer')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Provider-Key', description: "A price provider's push key (hcpk_…, shown once when the provider was registered): the only credential of its quotes route, instead of a session." }, PROVIDER_KEY_SCHEME)
    .build();
  const ids = new Map<string, string>();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey: string, methodKey: string) => {
      const seen = ids.get(methodKey);
      if (seen !== undefined && seen !== controllerKey) {
        throw new Error(`operationId ${methodKey} is used by ${seen} and ${controllerKey}: give one of the methods a name of its own`);
      }
      ids.set(methodKey, controllerKey);
      return methodKey;
    },
  });
  const used = new Set<string>();
  addConventionComponents(document);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item) as Array<[string, Record<string, unknown>]>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const isPublic = operation[PUBLIC_EXTENSION] === true;
      // A public route takes no session; one with a credential of its own (@ApiSecurity) requires that instead.
      if (isPublic && !(Array.isArray(operation.security) && operation.security.length > 0)) operation.security = [];
      const extra = ((operation[ERRORS_EXTENSION] as number[] | undefined) ?? []).map(String);
      applyConventions(path, method, operation as unknown as OperationShape, { isPublic, secretResponse: operation[SECRET_RESPONSE_EXTENSION] === true, extra });
      delete operation[ERRORS_EXTENSION];
      delete operation[PUBLIC_EXTENSION];
      delete operation[SECRET_RESPONSE_EXTENSION];
      for (const tag of (operation.tags as string[] | undefined) ?? []) used.add(tag);
      refuseClientNameClash(document, operation as { operationId?: string; requestBody?: RequestBodyShape });
    }
  }
  // The shapes the seeds mark "no extra fields" (the server refuses unknown fields there) say so.
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (CLOSED_SHAPES.has(name)) (schema as { additionalProperties?: boolean }).additionalProperties = false;
  }
  // Proprietary: no license URL to give.
  document.info.license = { name: 'Proprietary' };
  // Nest's bearer scheme claims JWT; the tokens are opaque.
  const bearer = document.components?.securitySchemes?.bearer as { bearerFormat?: string } | undefined;
  if (bearer) delete bearer.bearerFormat;
  document.tags = [...used].sort().map((name) => ({ name, description: OPENAPI_TAGS[name] ?? name }));
  return document;
}

interface RequestBodyShape {
  content?: Record<string, { schema?: { $ref?: string } }>;
}

/**
 * A generated client names an operation's parameters `<OperationId>Request`: that must not be the name of a schema
 * other than the operation's own body (for its own body the generators rename the parameters themselves).
 */
function refuseClientNameClash(document: OpenAPIObject, operation: { operationId?: string; requestBody?: RequestBodyShape }): void {
  const id = operation.operationId;
  if (!id) return;
  const clash = `${id[0].toUpperCase()}${id.slice(1)}Request`;
  const own = operation.requestBody?.content?.['application/json']?.schema?.$ref?.split('/').pop();
  if (document.components?.schemas?.[clash] && own !== clash) throw new Error(`operationId ${id} would clash with the schema ${clash} in a generated client: rename the method`);
}

interface OperationShape {
  parameters?: Array<Record<string, unknown>>;
  requestBody?: unknown;
  responses: Record<string, { description?: string; content?: unknown; headers?: Record<string, unknown> }>;
}

/** One response per error status, each the error envelope with the codes it can carry (docs/api.md, "Errors"). */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  '400': { name: 'ValidationFailed', description: 'VALIDATION_FAILED: a field, parameter, header or the body is not valid; `details` names each.' },
  '401': { name: 'Unauthenticated', description: 'UNAUTHENTICATED: no bearer token, or one that is unknown, expired or revoked.' },
  '402': { name: 'CreditsRequired', description: 'CREDITS_REQUIRED: the tenant\'s billing account has run out of credits; `details` give `available_credits` and `required_credits` (docs/billing.md).' },
  '403': { name: 'Forbidden', description: 'FORBIDDEN or STEP_UP_REQUIRED: the caller may not do this, or must step up first.' },
  '404': { name: 'NotFound', description: "NOT_FOUND: no such resource for this caller (another account's or tenant's is the same 404)." },
  '409': { name: 'Conflict', description: 'VERSION_CONFLICT (`current_version` says the version now), STATE_CONFLICT, or IDEMPOTENCY_KEY_REUSED (the key came with another body).' },
  '413': { name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: the body is over BODY_LIMIT_BYTES.' },
  '415': { name: 'UnsupportedMediaType', description: 'UNSUPPORTED_MEDIA_TYPE: the body must be application/json (UTF-8).' },
  '422': { name: 'RuleViolation', description: 'RULE_VIOLATION: well-formed, but a business rule refuses it; `details` says which.' },
  '429': { name: 'RateLimited', description: 'RATE_LIMITED: too many attempts; retry after Retry-After seconds.' },
  '500': { name: 'Internal', description: 'INTERNAL: the server failed; the envelope names no internals, the log has the request id.' },
  '503': { name: 'ServiceUnavailable', description: 'SERVICE_UNAVAILABLE: the read models have not reached X-Min-Position in time, or a store is unreachable; retry after Retry-After.' },
};

function addConventionComponents(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {});
  schemas.ErrorDetail = {
    type: 'object',
    additionalProperties: false,
    required: ['field', 'issue'],
    properties: { field: { type: 'string', example: 'quantity' }, issue: { type: 'string', example: 'must be a positive decimal string' } },
  };
  schemas.ErrorEnvelope = {
    type: 'object',
    additionalProperties: false,
    description: 'The one error envelope of every refusal (docs/api.md).',
    required: ['success', 'error'],
    properties: {
      success: { type: 'boolean', enum: [false] },
      error: {
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message', 'request_id', 'retryable', 'details'],
        properties: {
          code: { type: 'string', enum: Object.keys(STATUS_OF) },
          message: { type: 'string' },
          request_id: { type: 'string', description: 'The X-Request-Id of the request.' },
          retryable: { type: 'boolean', description: 'True when the same request may succeed later (429 after Retry-After, 503).' },
          details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } },
          current_version: {
            oneOf: [{ type: 'integer', nullable: true }, { type: 'string', pattern: '^[0-9]+$' }],
            description: 'On VERSION_CONFLICT: the version the resource is at now (a decimal string beyond 2^53); null when it does not exist.',
          },
        },
      },
    },
  };
  components.headers = {
    ...(components.headers ?? {}),
    XRequestId: { description: "The request's id (the client's X-Request-Id when valid, else generated); also in the error envelope and the logs.", schema: { type: 'string' } },
    XPosition: { description: 'Commit position of the events the command appended; send it as X-Min-Position to read your write through another node.', schema: { type: 'string', pattern: '^[0-9]+$' } },
    RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  };
  components.parameters = {
    ...(components.parameters ?? {}),
    IdempotencyKey: {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'Makes a POST safe to retry: the same key and body within the retention period replay the first response (Idempotent-Replay: true); another body is 409 IDEMPOTENCY_KEY_REUSED.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
    },
    XMinPosition: {
      name: 'X-Min-Position',
      in: 'header',
      required: false,
      description: 'Serve this request only once every read model has passed this global position (a command answer\'s X-Position); 503 if not in time.',
      schema: { type: 'string', pattern: '^[0-9]+$' },
    },
    XRequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Your id for the request (8-128 of A-Z a-z 0-9 . _ : -), echoed back; one is generated otherwise.', schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' } },
  };
  components.responses = {
    ...(components.responses ?? {}),
    ...Object.fromEntries(
      Object.entries(ERROR_RESPONSES).map(([status, r]) => [
        r.name,
        {
          description: r.description,
          headers: { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' }, ...(status === '503' || status === '429' ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      ]),
    ),
  };
}

/**
 * What every operation shares, from the platform's conventions: the X-Request-Id and X-Min-Position headers; on a
 * POST the Idempotency-Key (not where the answer carries a secret: it is never retained there); on a command the
 * 202 answer of read-your-writes and X-Position; and the errors the platform's edge gives on any route of the kind
 * (a module adds the ones only its route gives with @ApiResponse).
 */
function applyConventions(path: string, method: string, operation: OperationShape, marks: { isPublic: boolean; secretResponse: boolean; extra: string[] }): void {
  const command = method !== 'get';
  const params = (operation.parameters ??= []);
  params.push({ $ref: '#/components/parameters/XRequestId' }, { $ref: '#/components/parameters/XMinPosition' });
  if (method === 'post' && !marks.secretResponse) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  const responses = operation.responses;
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('2')) continue;
    if (!response.description) response.description = command ? 'Done; the read models this command affects include it.' : 'OK';
    response.headers = { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' }, ...(command ? { 'X-Position': { $ref: '#/components/headers/XPosition' } } : {}), ...(response.headers ?? {}) };
  }
  const success = Object.keys(responses).find((s) => s === '200' || s === '201');
  if (command && success && !responses['202']) {
    responses['202'] = {
      description: `${READ_BACK_PENDING}: the same body; send X-Position as X-Min-Position to read it back.`,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' }, 'X-Position': { $ref: '#/components/headers/XPosition' } },
      ...(responses[success].content ? { content: responses[success].content } : {}),
    };
  }
  const statuses = ['400', ...(marks.isPublic ? [] : ['401', '403']), ...(path.includes('{') ? ['404'] : []), ...(command ? ['409', '422'] : []), ...(operation.requestBody ? ['413', '415'] : []), ...marks.extra, '500', '503'].sort();
  for (const status of statuses) responses[status] ??= { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` } as never;
}

/** The schema of one page of a list (the platform's pagination: `items`, `limit`, `next_cursor` when there is more). */
export const pageOf = <T>(item: new () => T, name: string) => {
  @ApiSchema({ name })
  class Page {
    @ApiProperty({ type: [item] }) items!: T[];
    @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
    @ApiPropertyOptional({ description: 'Opaque; omitted when the list is complete.' }) next_cursor?: string;
  }
  return Page;
};
