/**
 * Who is calling. The global guard resolves the bearer token through the identity module's PrincipalResolver;
 * other modules read the principal (and never parse tokens themselves).
 */
import { applyDecorators, createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../errors';
import type { OneUseSpend } from '../command/command-executor';

export interface Principal {
  profile_uuid: string;
  tenant_uuid: string;
  session_id: string;
  platform_role: 'ADMIN' | null;
  /**
   * Set when the caller is an AI agent authenticated with its binding's workload token (client credentials), not a
   * person: then profile_uuid is the workload client id, and the guard lets it reach @WorkloadAllowed() routes only.
   */
  workload?: WorkloadIdentity;
}

export interface WorkloadIdentity {
  client_id: string;
  binding_uuid: string;
  workspace_uuid: string;
  /**
   * The person who answers for the agent: its binding's owner (the binding record's `owner_profile_uuid`, fixed when
   * the binding is created). The guard puts it on the request context (`on_behalf_of`), so the agent's events name
   * that person in their envelope and billing bills them (docs/billing.md).
   */
  owner_profile_uuid: string;
}

/** Workload (agent) bearer tokens start so; the guard resolves them through WORKLOAD_PRINCIPAL_RESOLVER. */
export const WORKLOAD_TOKEN_PREFIX = 'hcwt_';
export const WORKLOAD_PRINCIPAL_RESOLVER = Symbol('WORKLOAD_PRINCIPAL_RESOLVER');

/** Marks a route an agent's workload token may call (the handler still checks the binding is the agent's own). */
export const WORKLOAD_ALLOWED = 'platform:workloadAllowed';
export const WorkloadAllowed = (): MethodDecorator & ClassDecorator => SetMetadata(WORKLOAD_ALLOWED, true);

/**
 * Marks a route only platform admins may call. The auth guard answers anyone else `403 FORBIDDEN` as soon as it knows
 * the caller — before any pipe validates the request, so a non-admin learns nothing from a body or id error, and never
 * a 404 that would say the route does not exist (an anonymous caller is still 401). The OpenAPI document marks the
 * operation `x-platform-admin: true` and declares its 403 so; the capability registry adds a note.
 */
export const PLATFORM_ADMIN_ONLY = 'platform:platformAdminOnly';
export const PLATFORM_ADMIN_EXTENSION = 'x-platform-admin';
export const PlatformAdminOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    SetMetadata(PLATFORM_ADMIN_ONLY, true),
    ApiExtension(PLATFORM_ADMIN_EXTENSION, true),
    ApiResponse({
      status: 403,
      description: 'FORBIDDEN: platform admins only; anyone else is refused before the request is validated. STEP_UP_REQUIRED: an admin without the step-up the route needs.',
      schema: { $ref: '#/components/schemas/ErrorEnvelope' },
      headers: { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } },
    }),
  );

export interface PrincipalResolver {
  /** The principal of a live session with this token hash, or null (unknown, expired, revoked). */
  resolve(tokenHash: string): Promise<Principal | null>;
}

/**
 * Step-up for other modules, one mechanism: `authorize` checks, without spending it, that the token is a live
 * step-up of the purpose for the caller's session (403 STEP_UP_REQUIRED otherwise) and returns its OneUseSpend; the
 * handler passes that to CommandExecutor.execute(…, { spend }), which spends the token only when the action decides
 * events, right before their append, and gives it back if the append fails. The request body was validated before
 * the handler ran, so a 400, 404, 409 or 422 never costs the caller a fresh step-up.
 */
export interface StepUpVerifier {
  authorize(token: unknown, purpose: string, principal: Principal): Promise<OneUseSpend>;
}

export const PRINCIPAL_RESOLVER = Symbol('PRINCIPAL_RESOLVER');
export const STEP_UP_VERIFIER = Symbol('STEP_UP_VERIFIER');

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

export class StepUpRequired extends PlatformError {
  constructor(purpose: string) {
    super('STEP_UP_REQUIRED', `This operation needs a fresh step-up authorization of purpose ${purpose}.`, {
      details: [{ field: 'step_up_token', issue: `missing, used, expired or not for ${purpose}` }],
    });
  }
}

/** The authenticated caller of a route that is not @Public(). */
export const CurrentPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal => {
  const principal = ctx.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new PlatformError('UNAUTHENTICATED', 'Authentication required.');
  return principal;
});

/** The caller on a @Public() route: the principal when a valid token came with the request, else null. */
export const OptionalPrincipal = createParamDecorator((_: unknown, ctx: ExecutionContext): Principal | null => ctx.switchToHttp().getRequest<FastifyRequest>().principal ?? null);

/** The bearer token of the request, if any (the raw value: only for revocation of the caller's own session). */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer ([A-Za-z0-9._~+/=-]{16,512})$/.exec(header);
  return match ? match[1] : null;
}
