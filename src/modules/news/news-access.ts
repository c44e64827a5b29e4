/**
 * Who administers a tenant's news: the caller's session tenant. Its TENANT_MODERATORs draft and revise; its OWNER and
 * TENANT_ADMINs, and platform admins, also schedule, publish, unpublish and archive. Anyone else gets 403 from the
 * auth guard before the request is validated (@TenantRoleRequired on each route); the handlers check again here (the
 * tenant they act in); an article of another tenant does not exist for the caller (404).
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import type { TenantAuthority } from '../../platform/auth/tenant-role';
import { PlatformError } from '../../platform/errors';
import { GetTenantRole } from '../identity/queries/identity.queries';

export type NewsNeed = 'draft' | 'publish';
/** Who drafts and revises, who also publishes: the routes' @TenantRoleRequired (the guard refuses anyone else first). */
export const DRAFTING: readonly TenantAuthority[] = ['OWNER', 'TENANT_ADMIN', 'TENANT_MODERATOR'];
export const PUBLISHING: readonly TenantAuthority[] = ['OWNER', 'TENANT_ADMIN'];

@Injectable()
export class NewsAccess {
  constructor(private readonly queryBus: QueryBus) {}

  /** The caller's tenant, once the caller may `need` its news (403 otherwise). */
  async tenant(principal: Principal, need: NewsNeed): Promise<string> {
    if (principal.platform_role === 'ADMIN') return principal.tenant_uuid;
    const role: string | null = await this.queryBus.execute(new GetTenantRole(principal, principal.tenant_uuid));
    const allowed = need === 'draft' ? DRAFTING : PUBLISHING;
    if (role === null || !(allowed as readonly string[]).includes(role)) {
      throw new PlatformError('FORBIDDEN', need === 'draft' ? 'Only the tenant\'s moderators and admins write news.' : 'Only the tenant\'s admins publish news.');
    }
    return principal.tenant_uuid;
  }
}
