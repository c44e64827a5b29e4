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
import { readRecord, recordPage, type JsonRecordTable } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { GetTenantRole } from '../identity/queries/identity.queries';
import { BILLING_PAGE, type BillingListQuery } from './dto/billing.dto';

const MANAGING_ROLES = new Set(['OWNER', 'TENANT_ADMIN']);

@Injectable()
export class BillingAccess {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly db: ReadModelDatabase,
  ) {}

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

  /** A record of a tenant's account (a top-up, an adjustment) the caller may read; another tenant's is `notFound`. */
  async record<R extends { tenant_uuid: string }>(principal: Principal, table: JsonRecordTable<R>, id: string, notFound: () => PlatformError): Promise<R> {
    const record = await readRecord(this.db.reader.manager, table, id);
    if (!record) throw notFound();
    await this.tenant(principal, record.tenant_uuid, 'read').catch(() => {
      throw notFound();
    });
    return record;
  }

  /** A page of a tenant's records of `table`, newest first (the platform's pagination). */
  async page<R>(principal: Principal, table: JsonRecordTable<R>, query: BillingListQuery): Promise<object> {
    const tenant = await this.tenant(principal, query.tenant_uuid, 'read');
    const { records, ...page } = await recordPage<R>(this.db, table.table, [['tenant_uuid = ?', tenant]], query, BILLING_PAGE, JSON.stringify([table.table, tenant]));
    return { items: records, ...page };
  }

  requirePlatformAdmin(principal: Principal, hidden = false): void {
    if (principal.platform_role === 'ADMIN') return;
    throw hidden ? new PlatformError('NOT_FOUND', 'No such route.') : new PlatformError('FORBIDDEN', 'Only platform admins define billing products.');
  }
}
