/**
 * Who administers a tenant's arena: the caller's session tenant; its OWNER and TENANT_ADMINs, and platform admins.
 * Anyone else gets 403, from the auth guard before the request is validated (@TenantRoleRequired on every route) and
 * here again; a season of another tenant does not exist for the caller (404).
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import type { TenantAuthority } from '../../platform/auth/tenant-role';
import { PlatformError } from '../../platform/errors';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { SEASONS, type SeasonRecord } from '../../../projections/arena-seasons/arena-seasons.read-model';
import { GetTenantRole } from '../identity/queries/identity.queries';
import { SeasonNotFound } from './domain/season';

/** Who administers the arena: every route's @TenantRoleRequired (the guard refuses anyone else before validation). */
export const ADMINISTERING: readonly TenantAuthority[] = ['OWNER', 'TENANT_ADMIN'];

@Injectable()
export class ArenaAccess {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly db: ReadModelDatabase,
  ) {}

  /** The caller's tenant, once the caller administers its arena (403 otherwise). */
  async tenant(principal: Principal): Promise<string> {
    if (principal.platform_role === 'ADMIN') return principal.tenant_uuid;
    const role: string | null = await this.queryBus.execute(new GetTenantRole(principal, principal.tenant_uuid));
    if (role === null || !(ADMINISTERING as readonly string[]).includes(role)) throw new PlatformError('FORBIDDEN', 'Only the tenant\'s owner and admins administer its arena.');
    return principal.tenant_uuid;
  }

  /** A season of the caller's tenant (404 for another tenant's, or none). */
  async season(principal: Principal, season_uuid: string): Promise<SeasonRecord> {
    const tenant = await this.tenant(principal);
    const season = await readRecord(this.db.reader.manager, SEASONS, season_uuid);
    if (!season || season.tenant_uuid !== tenant) throw new SeasonNotFound();
    return season;
  }
}
