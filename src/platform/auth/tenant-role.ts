/**
 * Routes only a tenant's role holders may call (docs/api.md, "Which refusal comes first"). `@TenantRoleRequired`
 * names the tenant authorities (OWNER, TENANT_ADMIN, TENANT_MODERATOR) that may call the route; the global auth guard
 * asks the identity module's TenantRoleResolver whether the caller holds one, and answers anyone else `403 FORBIDDEN`
 * before any pipe validates the request (an anonymous caller is still 401, an agent's workload token 403 as on every
 * route not open to it). Platform admins pass, as the handlers let them.
 *
 * Where: `session` (the default) is the caller's own tenant, its session's; `any` is any tenant the caller holds the
 * role in, for routes whose resource names its tenant (a transfer's, a queue's `tenant_uuid`). The handler keeps its
 * own check of the resource: another tenant's resource is still 404 there, and a role that depends on the resource
 * (e.g. held in another tenant than the transfer's) is still checked there. `globalTenantPeople` lets a person whose
 * session is in the global tenant pass too, for routes where each of them acts on something of their own that needs no
 * role (billing: a person's own account).
 *
 * The OpenAPI document marks the operation `x-tenant-roles: [roles]` and declares its 403 so; the capability
 * registry adds a note.
 */
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiResponse } from '@nestjs/swagger';
import type { Principal } from './principal';

export type TenantAuthority = 'OWNER' | 'TENANT_ADMIN' | 'TENANT_MODERATOR';
export type TenantRoleScope = 'session' | 'any';

export interface TenantRoleRequirement {
  roles: readonly TenantAuthority[];
  tenant: TenantRoleScope;
  globalTenantPeople: boolean;
}

export const TENANT_ROLE_REQUIRED = 'platform:tenantRoleRequired';
export const TENANT_ROLES_EXTENSION = 'x-tenant-roles';
export const TENANT_ROLE_RESOLVER = Symbol('TENANT_ROLE_RESOLVER');

/** Provided by the identity module, which keeps the tenants' authorities and knows the global tenant. */
export interface TenantRoleResolver {
  /** Whether the caller (not a platform admin: the guard passes those) meets the route's requirement. */
  meets(principal: Principal, requirement: TenantRoleRequirement): Promise<boolean>;
}

export const TenantRoleRequired = (roles: readonly TenantAuthority[], options: { tenant?: TenantRoleScope; globalTenantPeople?: boolean } = {}): MethodDecorator & ClassDecorator => {
  const requirement: TenantRoleRequirement = { roles: [...roles], tenant: options.tenant ?? 'session', globalTenantPeople: options.globalTenantPeople === true };
  const where = (requirement.tenant === 'session' ? "in the caller's own (session) tenant" : 'in a tenant') + (requirement.globalTenantPeople ? ' (or a person of the global tenant, for their own)' : '');
  return applyDecorators(
    SetMetadata(TENANT_ROLE_REQUIRED, requirement),
    ApiExtension(TENANT_ROLES_EXTENSION, [...roles]),
    ApiResponse({
      status: 403,
      description: `FORBIDDEN: only ${roles.join(', ')} ${where} (and platform admins); anyone else is refused before the request is validated. STEP_UP_REQUIRED: a role holder without the step-up the route needs.`,
      schema: { $ref: '#/components/schemas/ErrorEnvelope' },
      headers: { 'X-Request-Id': { $ref: '#/components/headers/XRequestId' } },
    }),
  );
};

/** The guard's question, once it knows the caller: refused (403) unless a platform admin or a holder of the role. */
export async function tenantRoleRefusal(principal: Principal, requirement: TenantRoleRequirement | undefined, resolver: TenantRoleResolver | null): Promise<string | null> {
  if (!requirement || principal.platform_role === 'ADMIN') return null;
  if (!principal.workload && resolver && (await resolver.meets(principal, requirement))) return null;
  return `Only the tenant's ${requirement.roles.join(', ')} (and platform admins) may call this operation.`;
}
