/**
 * The global auth guard: every route needs a live bearer token unless marked @Public(). Tokens are looked up by
 * their SHA-256 only; the principal becomes the request context's actor and tenant (event metadata, idempotency), and
 * for an agent also `on_behalf_of`, the person who answers for it (its binding's owner).
 * An agent's workload token (prefix hcwt_) reaches only routes marked @WorkloadAllowed(): everything else is 403.
 * A route marked @PlatformAdminOnly() answers anyone but a platform admin 403 here, before any pipe validates it; one
 * marked @TenantRoleRequired(…) anyone but a platform admin or a holder of the tenant role (./tenant-role.ts).
 */
import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { PlatformError } from '../errors';
import { IS_PUBLIC } from '../http/public.decorator';
import { bearerToken, PLATFORM_ADMIN_ONLY, PRINCIPAL_RESOLVER, WORKLOAD_ALLOWED, WORKLOAD_PRINCIPAL_RESOLVER, WORKLOAD_TOKEN_PREFIX, type PrincipalResolver } from './principal';
import { markStage } from '../observability/server-timing';
import { TENANT_ROLE_REQUIRED, TENANT_ROLE_RESOLVER, tenantRoleRefusal, type TenantRoleRequirement, type TenantRoleResolver } from './tenant-role';

@Injectable()
export class PlatformAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PRINCIPAL_RESOLVER) private readonly resolver: PrincipalResolver,
    @Optional() @Inject(WORKLOAD_PRINCIPAL_RESOLVER) private readonly workloads: PrincipalResolver | null = null,
    @Optional() @Inject(TENANT_ROLE_RESOLVER) private readonly tenantRoles: TenantRoleResolver | null = null,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
    const token = bearerToken(request);
    if (!token) {
      if (isPublic) return true;
      throw new PlatformError('UNAUTHENTICATED', 'A valid bearer token is required.');
    }
    const resolver = token.startsWith(WORKLOAD_TOKEN_PREFIX) ? this.workloads : this.resolver;
    const principal = resolver ? await resolver.resolve(createHash('sha256').update(token).digest('hex')) : null;
    if (!principal) {
      if (isPublic) return true;
      throw new PlatformError('UNAUTHENTICATED', 'The bearer token is invalid, expired or revoked.');
    }
    const targets = [context.getHandler(), context.getClass()];
    if (principal.workload && !isPublic && this.reflector.getAllAndOverride<boolean>(WORKLOAD_ALLOWED, targets) !== true) {
      throw new PlatformError('FORBIDDEN', "An agent's workload token may only evaluate and create intents for its own binding and read its budget.");
    }
    if (principal.platform_role !== 'ADMIN' && this.reflector.getAllAndOverride<boolean>(PLATFORM_ADMIN_ONLY, targets) === true) {
      throw new PlatformError('FORBIDDEN', 'Only platform admins may call this operation.');
    }
    const refusal = await tenantRoleRefusal(principal, this.reflector.getAllAndOverride<TenantRoleRequirement | undefined>(TENANT_ROLE_REQUIRED, targets), this.tenantRoles);
    if (refusal) throw new PlatformError('FORBIDDEN', refusal);
    request.principal = principal;
    const ctx = request.platformContext;
    ctx.actor = principal.workload ? { type: 'workload', reference: principal.workload.client_id } : { type: 'profile', reference: principal.profile_uuid };
    // An agent acts for the person who answers for it: its events' envelope names them (metadata.on_behalf_of).
    if (principal.workload) ctx.on_behalf_of = { type: 'profile', reference: principal.workload.owner_profile_uuid };
    ctx.tenant_uuid = principal.tenant_uuid;
    markStage('auth', ctx);
    return true;
  }
}
