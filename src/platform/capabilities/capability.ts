/**
 * What the capability registry (GET /api/v1/capabilities, docs/capabilities.md) says about each route and module,
 * declared where they live:
 * - `@Capability(name, overrides?)` on every route handler: the capability it belongs to and, where the module's
 *   defaults do not fit, its own workflow role, exposure, maturity, authentication, side effects or step-up purpose.
 *   It travels in the OpenAPI document as the `x-capability` extension, so the registry is generated from the same
 *   document the server serves; a route without it fails test/integration/capability-registry.spec.ts.
 * - `declareApplication(...)` once per module (its `capabilities.ts`): the seeds' ApplicationSummary prose and the
 *   business context of each of its capabilities.
 * - `declareAuthenticationProfile(...)` for each way to authenticate a module offers (GET /api/v1/auth/profiles).
 */
import { ApiExtension } from '@nestjs/swagger';

export const CAPABILITY_EXTENSION = 'x-capability';
export const WORKFLOW_ROLES = ['discover-or-read', 'create-or-command', 'revise', 'revoke-or-delete'] as const;
export type WorkflowRole = (typeof WORKFLOW_ROLES)[number];
/** `public`: any caller the route's authentication admits; `restricted`: platform or tenant administrators, auditors; `internal`: operators' probes. */
export type Exposure = 'public' | 'restricted' | 'internal';
export type Maturity = 'stable' | 'beta';

export interface RouteCapability {
  /** The capability (declared in the module's application) this route belongs to. */
  name: string;
  workflowRole?: WorkflowRole;
  exposure?: Exposure;
  maturity?: Maturity;
  /** How the caller authenticates when it is not the bearer token the OpenAPI security says (e.g. a provider key). */
  authentication?: string;
  sideEffects?: string;
  /** The step-up purpose the route requires (POST /api/v1/auth/step-up). */
  stepUp?: string;
  whenToUse?: string;
}

/** The route's capability metadata (see the module comment). */
export const Capability = (name: string, overrides: Omit<RouteCapability, 'name'> = {}): MethodDecorator =>
  ApiExtension(CAPABILITY_EXTENSION, { name, ...overrides }) as MethodDecorator;

export interface CapabilityContext {
  whenToUse: string;
  /** What calling it changes (reads: nothing); routes of the capability that write may say more. */
  sideEffects?: string;
  businessCases?: string[];
  prerequisites?: string[];
  agentGuidance?: string[];
}

/** The seeds' ApplicationSummary prose, and the capabilities of the application. */
export interface ApplicationDeclaration {
  /** The OpenAPI tag of the module's routes. */
  name: string;
  group: string;
  description: string;
  purpose: string;
  audiences: string[];
  businessCases: string[];
  workflow: string[];
  prerequisites: string[];
  agentGuidance: string[];
  relatedApplications: string[];
  /** Position among the applications (and the chapter order of its operations). */
  order: number;
  /** Who answers for it. */
  owners: string[];
  capabilities: Record<string, CapabilityContext>;
}

const applications = new Map<string, ApplicationDeclaration>();

export function declareApplication(app: ApplicationDeclaration): void {
  const known = applications.get(app.name);
  if (known && known !== app) throw new Error(`application ${app.name} is declared twice`);
  applications.set(app.name, app);
}

export const declaredApplications = (): ApplicationDeclaration[] => [...applications.values()].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : 1));

/** The seeds' AuthenticationProfile; `lifetimeSeconds` may depend on the configuration. */
export interface AuthenticationProfileDeclaration {
  id: string;
  principal: string;
  credential: string;
  requestSigning: string;
  lifetimeSeconds?: number | ((config: { sessionTtlSeconds: number }) => number);
}

const profiles = new Map<string, AuthenticationProfileDeclaration>();

export function declareAuthenticationProfile(p: AuthenticationProfileDeclaration): void {
  profiles.set(p.id, p);
}

export const declaredAuthenticationProfiles = (config: { sessionTtlSeconds: number }) =>
  [...profiles.values()]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ lifetimeSeconds, ...p }) => ({ ...p, ...(lifetimeSeconds === undefined ? {} : { lifetimeSeconds: typeof lifetimeSeconds === 'function' ? lifetimeSeconds(config) : lifetimeSeconds }) }));

/**
 * The seeds' AgentIntegrationProfile: the platform's conventions, each a sentence true of every route (docs/api.md
 * has the long form). Served by GET /api/v1/auth/profiles and inside the capability registry.
 */
export const AGENT_INTEGRATION_PROFILE = {
  errorEnvelope: 'Every error is {"success": false, "error": {code, message, request_id, retryable, details[{field, issue}], current_version?}} with an HTTP status fixed by the code.',
  pagination: 'Lists take limit and an opaque cursor and answer next_cursor (nextCursor where the schema spells it so), absent on the last page.',
  idempotency: 'POSTs accept Idempotency-Key: the same key and body within the retention period (24 hours by default) replays the first response with Idempotent-Replay: true, another body is 409 IDEMPOTENCY_KEY_REUSED; responses carrying secrets (sign-in, step-up, authenticator enrollment) are never retained, so there the key is ignored.',
  requestSigning: 'Requests are not signed; authenticate with the bearer token and, for sensitive operations, a one-use step-up token.',
  retryPolicy: 'Retry only errors with retryable: true (429 after Retry-After, 503), with the same Idempotency-Key so nothing happens twice.',
  decimalPolicy: 'Amounts, prices and quantities are decimal strings such as "10.50"; a JSON number in their place is 400 VALIDATION_FAILED.',
} as const;
