/**
 * Who belongs to a tenant. A profile is a member of tenant T when its account is ACTIVE and either was registered
 * into T (`identity_accounts.tenant_uuid`) or holds an authority in T (the owner who created it, or an earlier
 * assignment). Tenant authorities and workspace members are only ever given to members; everyone else, and profiles
 * that do not exist, look the same from outside (404).
 */
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';

export class IsTenantMember {
  constructor(readonly tenant_uuid: string, readonly profile_uuid: string) {}
}

@QueryHandler(IsTenantMember)
export class IsTenantMemberHandler implements IQueryHandler<IsTenantMember, boolean> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ tenant_uuid, profile_uuid }: IsTenantMember): Promise<boolean> {
    const rows: unknown[] = await this.db.reader.query(
      this.db.sql(
        `SELECT 1 FROM identity_accounts a WHERE a.profile_uuid = ? AND a.status = 'ACTIVE' AND (a.tenant_uuid = ?
           OR EXISTS (SELECT 1 FROM identity_tenant_authorities t WHERE t.tenant_uuid = ? AND t.profile_uuid = a.profile_uuid))`,
      ),
      [profile_uuid, tenant_uuid, tenant_uuid],
    );
    return rows.length > 0;
  }
}
