/**
 * The OpenAPI document, generated from the controllers and the DTO classes the validation pipe uses, so it cannot
 * drift from what the server enforces. Built the same way for `/api/v1/openapi.json` and for `npm run openapi`
 * (which writes docs/openapi.json without listening). Conventions applied here, in one place:
 * - every operation needs the bearer token unless its route is @Public(), which gets `security: []`;
 * - the operationId is the controller method's name (unique across the API, checked here), so a generated client
 *   reads `placeOrder`, `cancelOrders`, `listNotifications`;
 * - one tag per module, described.
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { PUBLIC_EXTENSION } from './public.decorator';

/** The tags the modules use (ApiTags on each controller) and what each covers. */
export const OPENAPI_TAGS: Record<string, string> = {
  identity: 'Accounts, activation, sessions, step-up, authenticators, contact changes, closure, tenants and workspaces.',
  trading: 'Markets, orders (seed MTF routes and the canonical order model), cancellation, order book, fills and positions.',
  'ai-wallets': 'AI-agent wallet bindings, spending policies, budgets, intents, approvals and the workload token.',
  'agentic-memory': 'Memory collections, items, requests, clarifications and signed manifests.',
  notifications: "The caller's notification inbox.",
  audit: 'Raw stream events with their commitments, signed checkpoints and auditor grants.',
  health: 'Liveness and readiness.',
};


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
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item) as Array<Record<string, unknown>>) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      if (operation[PUBLIC_EXTENSION]) {
        operation.security = [];
        delete operation[PUBLIC_EXTENSION];
      }
      for (const tag of (operation.tags as string[] | undefined) ?? []) used.add(tag);
    }
  }
  // Proprietary: no license URL to give.
  document.info.license = { name: 'Proprietary' };
  // Nest's bearer scheme claims JWT; the tokens are opaque.
  const bearer = document.components?.securitySchemes?.bearer as { bearerFormat?: string } | undefined;
  if (bearer) delete bearer.bearerFormat;
  document.tags = [...used].sort().map((name) => ({ name, description: OPENAPI_TAGS[name] ?? name }));
  return document;
}
