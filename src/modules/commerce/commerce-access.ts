/**
 * Who may touch a commerce record. People reach commerce through their workspace (identity's GetWorkspaceMembership):
 * any member reads and takes payments, the owner and admins manage (merchants, products, invoices, wallets,
 * settlements). Reviewers of merchants are the tenant's admins (identity's GetTenantRole: OWNER or TENANT_ADMIN) and
 * platform admins. Any record of another workspace, or of another tenant, does not exist for the caller (404); a
 * member who may read but not manage gets 403. Platform admins read every record. Agents' workload tokens never reach
 * commerce (the guard refuses them).
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import type { TenantAuthority } from '../../platform/auth/tenant-role';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import { readRecord, type JsonRecordTable } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { GetActiveWorkspace, GetTenantRole, GetWorkspaceMembership, type WorkspaceView } from '../identity/queries/identity.queries';

const MANAGING_ROLES = new Set(['OWNER', 'ADMIN']);
const REVIEWING_ROLES = new Set(['OWNER', 'TENANT_ADMIN']);
/**
 * A tenant's compliance officers (its OWNER and TENANT_ADMINs): the compliance routes' @TenantRoleRequired, in any
 * tenant (the guard refuses anyone holding neither anywhere before validation; the handler checks the transfer's).
 */
export const COMPLIANCE_ROLES: readonly TenantAuthority[] = ['OWNER', 'TENANT_ADMIN'];

export type Need = 'read' | 'manage';

@Injectable()
export class CommerceAccess {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly queryBus: QueryBus,
  ) {}

  /** The workspace named, or the caller's active one; 404 when the caller is not a member, 403 when it may not manage. */
  async workspace(principal: Principal, workspace_uuid: string | undefined, need: Need): Promise<WorkspaceView> {
    let membership: WorkspaceView | null;
    if (workspace_uuid === undefined) {
      membership = ((await this.queryBus.execute(new GetActiveWorkspace(principal))) as { workspace: WorkspaceView | null }).workspace;
      if (!membership) {
        throw new ValidationFailed('No active workspace: select one (POST /api/v1/workspaces/active) or name it.', [{ field: 'workspace_uuid', issue: 'no active workspace selected' }]);
      }
    } else {
      membership = await this.queryBus.execute(new GetWorkspaceMembership(principal, workspace_uuid));
    }
    if (!membership) throw new PlatformError('NOT_FOUND', 'No such workspace.');
    if (need === 'manage' && !MANAGING_ROLES.has(membership.role)) throw new PlatformError('FORBIDDEN', 'Only the workspace owner and admins manage commerce records.');
    return membership;
  }

  /**
   * A record of a workspace the caller belongs to (404 otherwise, exactly like an id that does not exist), with the
   * caller's membership. A reviewer reaches a merchant of its tenant through `reviewer` instead.
   */
  async record<R extends { workspace_uuid: string }>(principal: Principal, table: JsonRecordTable<R>, id: string, need: Need, notFound: () => PlatformError): Promise<{ record: R; membership: WorkspaceView | null }> {
    const record = await readRecord(this.db.reader.manager, table, id);
    if (!record) throw notFound();
    // Platform admins read every record (support, and the rail's and treasury's reports read back); they manage none.
    if (need === 'read' && principal.platform_role === 'ADMIN') return { record, membership: null };
    const membership: WorkspaceView | null = await this.queryBus.execute(new GetWorkspaceMembership(principal, record.workspace_uuid));
    if (!membership) throw notFound();
    if (need === 'manage' && !MANAGING_ROLES.has(membership.role)) throw new PlatformError('FORBIDDEN', 'Only the workspace owner and admins manage commerce records.');
    return { record, membership };
  }

  /**
   * The record a command acts on: for a caller, one its workspace lets it manage (`record`); for the platform's own
   * reports (the rail's, the treasury's: `null`, authorized by the route), any record; 404 when there is none.
   */
  async actedOn<R extends { workspace_uuid: string }>(principal: Principal | null, table: JsonRecordTable<R>, id: string, notFound: () => PlatformError): Promise<R> {
    if (principal) return (await this.record(principal, table, id, 'manage', notFound)).record;
    const record = await this.find(table, id);
    if (!record) throw notFound();
    return record;
  }

  /** The record read without a membership check (for reviewers, whose reach is the tenant). */
  async find<R>(table: JsonRecordTable<R>, id: string): Promise<R | null> {
    return readRecord(this.db.reader.manager, table, id);
  }

  /** Whether the caller reviews merchants of this tenant: a platform admin, or its OWNER or TENANT_ADMIN. */
  async isReviewer(principal: Principal, tenant_uuid: string): Promise<boolean> {
    if (principal.platform_role === 'ADMIN') return true;
    const role: string | null = await this.queryBus.execute(new GetTenantRole(principal, tenant_uuid));
    return role !== null && REVIEWING_ROLES.has(role);
  }

  /**
   * Whether the caller is a compliance officer of this tenant, who may cancel its transfers: the tenant's OWNER or
   * TENANT_ADMIN (the seeds' tenant roles; there is no compliance role of its own), or a platform admin.
   */
  isComplianceOfficer(principal: Principal, tenant_uuid: string): Promise<boolean> {
    return this.isReviewer(principal, tenant_uuid);
  }

  /** Whether the caller is a member of this workspace (any role). */
  async isMember(principal: Principal, workspace_uuid: string): Promise<boolean> {
    return (await this.queryBus.execute(new GetWorkspaceMembership(principal, workspace_uuid))) !== null;
  }

  /** Whether the caller manages this workspace (owner or admin). */
  async manages(principal: Principal, workspace_uuid: string): Promise<boolean> {
    const membership: WorkspaceView | null = await this.queryBus.execute(new GetWorkspaceMembership(principal, workspace_uuid));
    return membership !== null && MANAGING_ROLES.has(membership.role);
  }

  requirePlatformAdmin(principal: Principal): void {
    if (principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only platform admins may call this operation.');
  }
}
