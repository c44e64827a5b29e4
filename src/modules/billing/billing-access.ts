/**
 * Who may touch a billing account (docs/billing.md, "Who may do what"). A tenant's account (every tenant but the
 * global one): people of that tenant (their session's tenant) and its role holders read it; its OWNER and
 * TENANT_ADMINs manage it (subscriptions, top-ups, adjustments), as platform admins do every account. In the global
 * tenant each person has an account of their own (account-key.ts): they read and manage it (subscribe, buy top-ups),
 * adjustments are for platform admins, who name the person with `profile_uuid`. Another tenant's or another
 * person's account does not exist for the caller (404); a member who may read but not manage gets 403 (from the auth
 * guard, before the body is validated, when they hold a managing role in no tenant and are not of the global tenant:
 * the manage and adjust routes are @TenantRoleRequired). Products are
 * defined by platform admins. Agents' workload tokens never reach billing.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import type { TenantAuthority } from '../../platform/auth/tenant-role';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import { readRecord, recordPage, type JsonRecordTable } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { GetTenantRole } from '../identity/queries/identity.queries';
import { billingAccountKey, GLOBAL_TENANT_UUID, type BillingPayer } from './domain/account-key';
import { BILLING_PAGE, type BillingListQuery } from './dto/billing.dto';

/**
 * Who manages a tenant's billing: the manage and adjust routes' @TenantRoleRequired, in any tenant (the body names
 * which), so the guard refuses anyone holding neither anywhere before validation; `account` checks the tenant named.
 */
export const MANAGING_ROLES: readonly TenantAuthority[] = ['OWNER', 'TENANT_ADMIN'];

/** Which account a request means: a tenant (default: the caller's session tenant) and, in the global tenant, a person (default: the caller). */
export interface BillingScope {
  tenant_uuid?: string;
  profile_uuid?: string;
}

/** The account a caller may touch: whose it is, and its key (its stream and rows). */
export interface BillingAccountRef extends BillingPayer {
  key: string;
}

/** read: the account and its records; manage: subscribe, cancel, buy top-ups; adjust: grant or debit by hand. */
export type BillingNeed = 'read' | 'manage' | 'adjust';

const noAccount = (): PlatformError => new PlatformError('NOT_FOUND', 'No such billing account.');

@Injectable()
export class BillingAccess {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly db: ReadModelDatabase,
  ) {}

  /** The account meant by `scope`, once the caller may `need` it. */
  async account(principal: Principal, scope: BillingScope, need: BillingNeed): Promise<BillingAccountRef> {
    const tenant_uuid = scope.tenant_uuid ?? principal.tenant_uuid;
    const admin = principal.platform_role === 'ADMIN';
    if (tenant_uuid === GLOBAL_TENANT_UUID) {
      // The global tenant has no shared account: the person's own (the caller's, or the one a platform admin names).
      const profile_uuid = scope.profile_uuid ?? principal.profile_uuid;
      if (!admin && (profile_uuid !== principal.profile_uuid || principal.tenant_uuid !== GLOBAL_TENANT_UUID)) throw noAccount();
      if (need === 'adjust' && !admin) throw new PlatformError('FORBIDDEN', 'Only platform admins adjust the credits of a person\'s own account.');
      return ref({ tenant_uuid, profile_uuid });
    }
    if (scope.profile_uuid !== undefined) {
      throw new ValidationFailed('A tenant\'s account is shared by its people: profile_uuid names a person\'s own account, in the global tenant only.', [
        { field: 'profile_uuid', issue: 'only with the global tenant' },
      ]);
    }
    if (admin) return ref({ tenant_uuid, profile_uuid: null });
    const role: string | null = await this.queryBus.execute(new GetTenantRole(principal, tenant_uuid));
    const member = role !== null || tenant_uuid === principal.tenant_uuid;
    if (!member) throw noAccount();
    if (need !== 'read' && (role === null || !(MANAGING_ROLES as readonly string[]).includes(role))) throw new PlatformError('FORBIDDEN', 'Only the tenant\'s owner and tenant admins manage its billing.');
    return ref({ tenant_uuid, profile_uuid: null });
  }

  /** A record of an account (a top-up, an adjustment) the caller may read; another account's is `notFound`. */
  async record<R extends { tenant_uuid: string; profile_uuid?: string | null }>(principal: Principal, table: JsonRecordTable<R>, id: string, notFound: () => PlatformError): Promise<R> {
    const record = await readRecord(this.db.reader.manager, table, id);
    if (!record) throw notFound();
    if (principal.platform_role === 'ADMIN') return record;
    const owner = recordAccount(record);
    const mine = await this.account(principal, { tenant_uuid: owner.tenant_uuid, ...(owner.profile_uuid === null ? {} : { profile_uuid: owner.profile_uuid }) }, 'read').catch(() => null);
    // The global tenant's former shared account (no person) is nobody's now: only platform admins read its records.
    if (!mine || mine.key !== owner.key) throw notFound();
    return record;
  }

  /** A page of an account's records of `table`, newest first (the platform's pagination). */
  async page<R>(principal: Principal, table: JsonRecordTable<R>, query: BillingListQuery): Promise<object> {
    const { key } = await this.account(principal, query, 'read');
    const { records, ...page } = await recordPage<R>(this.db, table.table, [['account_key = ?', key]], query, BILLING_PAGE, JSON.stringify([table.table, key]));
    return { items: records, ...page };
  }

  /** Products and the rail's reports: their routes are @PlatformAdminOnly (the guard refuses anyone else first). */
  requirePlatformAdmin(principal: Principal): void {
    if (principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only platform admins may call this operation.');
  }
}

const ref = (payer: BillingPayer): BillingAccountRef => ({ ...payer, key: billingAccountKey(payer) });

/** The account a top-up or adjustment record is on (records from before people had their own: their tenant's). */
export const recordAccount = (r: { tenant_uuid: string; profile_uuid?: string | null }): BillingAccountRef => ref({ tenant_uuid: r.tenant_uuid, profile_uuid: r.profile_uuid ?? null });
