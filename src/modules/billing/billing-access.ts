/**
 * Who may touch a billing account. An account bills a tenant: people of that tenant (their session's tenant) and its
 * role holders read it; its OWNER and TENANT_ADMINs manage it (subscriptions, top-ups, adjustments), as platform
 * admins do every account. Another tenant's account does not exist for the caller (404); a member who may read but not
 * manage gets 403. Products are defined by platform admins. Agents' workload tokens never reach billing.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { GetTenantRole } from '../identity/queries/identity.queries';

const MANAGING_ROLES = new Set(['OWNER', 'TENANT_ADMIN']);

@Injectable()
export class BillingAccess {
  constructor(private readonly queryBus: QueryBus) {}

  /** The tenant whose account is meant (named, or the caller's session tenant), once the caller may `need` it. */
  async tenant(principal: Principal, tenant_uuid: string | undefined, need: 'read' | 'manage'): Promise<string> {
    const tenant = tenant_uuid ?? principal.tenant_uuid;
    if (principal.platform_role === 'ADMIN') return tenant;
    const role: string | null = await this.queryBus.execute(new GetTenantRole(principal, tenant));
    const member = role !== null || tenant === principal.tenant_uuid;
    if (!member) throw new PlatformError('NOT_FOUND', 'No billing account for this tenant.');
    if (need === 'manage' && (role === null || !MANAGING_ROLES.has(role))) throw new PlatformError('FORBIDDEN', 'Only the tenant\'s owner and tenant admins manage its billing.');
    return tenant;
  }

  requirePlatformAdmin(principal: Principal, hidden = false): void {
    if (principal.platform_role === 'ADMIN') return;
    throw hidden ? new PlatformError('NOT_FOUND', 'No such route.') : new PlatformError('FORBIDDEN', 'Only platform admins define billing products.');
  }
}
