/** Identity's reads: from read models only (the guard's session lookup lives in identity.services.ts). */
import { Injectable } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/principal';
import type { TenantRoleRequirement, TenantRoleResolver } from '../../../platform/auth/tenant-role';
import { PlatformError } from '../../../platform/errors';
import { decodeCursor, encodeCursor } from '../../../platform/http/pagination';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';
import type { AccountRow } from '../../../../projections/identity-accounts/identity-accounts.read-model';
import type { AuthEventRow } from '../../../../projections/identity-auth-events/identity-auth-events.read-model';
import type { TenantInvitationRow } from '../../../../projections/identity-tenancy/identity-tenancy.read-model';
import { GLOBAL_TENANT_UUID } from '../domain/identity.constants';
import { invitationStatus, type InvitationStatus, type TenantInvitationView } from '../domain/access';

export class ListAuthenticationEvents {
  constructor(readonly principal: Principal, readonly limit: number, readonly cursor: string | undefined) {}
}

interface EventWithSession extends AuthEventRow {
  session_status: string | null;
  revoked_at: string | null;
  s_device_name: string | null;
  s_device_platform: string | null;
  /** The session's last authenticated request (SessionActivity), null before its first one or without a session. */
  last_seen_at: string | null;
}

@QueryHandler(ListAuthenticationEvents)
export class ListAuthenticationEventsHandler implements IQueryHandler<ListAuthenticationEvents> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, limit, cursor }: ListAuthenticationEvents): Promise<object> {
    const after = cursor ? String(decodeCursor(cursor, 1)[0]) : null;
    if (after !== null && !/^\d{20}$/.test(after)) decodeCursor('!', 1);
    const rows: EventWithSession[] = await this.db.reader.query(
      this.db.sql(
        `SELECT e.*, s.status AS session_status, s.revoked_at AS revoked_at, s.device_name AS s_device_name, s.device_platform AS s_device_platform,
                act.last_seen_at AS last_seen_at
         FROM identity_auth_events e LEFT JOIN identity_sessions s ON s.session_id = e.session_id
         LEFT JOIN identity_session_activity act ON act.session_id = e.session_id
         WHERE e.profile_uuid = ? ${after ? 'AND e.position < ?' : ''} ORDER BY e.position DESC LIMIT ?`,
      ),
      after ? [principal.profile_uuid, after, limit + 1] : [principal.profile_uuid, limit + 1],
    );
    const page = rows.slice(0, limit);
    const items = page.map((r) => ({
      event_id: r.event_id,
      event_type: r.event_type,
      outcome: r.outcome,
      authentication_method: r.authentication_method,
      purpose: r.purpose ?? null,
      reason: r.reason ?? null,
      device: { name: r.device_name ?? r.s_device_name ?? 'Unknown client', platform: r.device_platform ?? r.s_device_platform ?? 'Unknown platform' },
      session_status: r.session_status ?? 'NONE',
      current_session: r.session_id !== null && r.session_id === principal.session_id,
      last_seen_at: r.last_seen_at ?? null,
      occurred_at: r.occurred_at,
      revoked_at: r.revoked_at ?? null,
    }));
    return { items, ...(rows.length > limit ? { next_cursor: encodeCursor([page[page.length - 1].position]) } : {}) };
  }
}

export class GetAccount {
  constructor(readonly profile_uuid: string) {}
}

@QueryHandler(GetAccount)
export class GetAccountHandler implements IQueryHandler<GetAccount, AccountRow> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ profile_uuid }: GetAccount): Promise<AccountRow> {
    const rows: AccountRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM identity_accounts WHERE profile_uuid = ?'), [profile_uuid]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such account.');
    return rows[0];
  }
}

export class ListWorkspaces {
  constructor(readonly principal: Principal) {}
}

export interface WorkspaceView {
  workspace_id: string;
  tenant_uuid: string;
  name: string;
  role: string;
  created: string;
}

const WORKSPACES_OF = `SELECT w.workspace_uuid, w.tenant_uuid, w.name, m.role, w.created_at FROM identity_workspaces w
  JOIN identity_workspace_members m ON m.workspace_uuid = w.workspace_uuid WHERE m.profile_uuid = ?`;
const toWorkspace = (w: { workspace_uuid: string; tenant_uuid: string; name: string; role: string; created_at: string }): WorkspaceView => ({
  workspace_id: w.workspace_uuid,
  tenant_uuid: w.tenant_uuid,
  name: w.name,
  role: w.role,
  created: w.created_at,
});

@QueryHandler(ListWorkspaces)
export class ListWorkspacesHandler implements IQueryHandler<ListWorkspaces> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal }: ListWorkspaces): Promise<{ items: WorkspaceView[] }> {
    const rows = await this.db.reader.query(this.db.sql(`${WORKSPACES_OF} ORDER BY w.created_at DESC, w.workspace_uuid DESC`), [principal.profile_uuid]);
    return { items: rows.map(toWorkspace) };
  }
}

/** The caller's membership of one workspace, or null: another profile's workspace does not exist for the caller. */
export class GetWorkspaceMembership {
  constructor(readonly principal: Principal, readonly workspace_id: string) {}
}

@QueryHandler(GetWorkspaceMembership)
export class GetWorkspaceMembershipHandler implements IQueryHandler<GetWorkspaceMembership, WorkspaceView | null> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, workspace_id }: GetWorkspaceMembership): Promise<WorkspaceView | null> {
    const rows = await this.db.reader.query(this.db.sql(`${WORKSPACES_OF} AND w.workspace_uuid = ?`), [principal.profile_uuid, workspace_id]);
    return rows.length ? toWorkspace(rows[0]) : null;
  }
}

export class ListWorkspaceMembers {
  constructor(readonly principal: Principal, readonly workspace_id: string, readonly limit: number, readonly cursor: string | undefined) {}
}

export interface WorkspaceMemberView {
  profile_uuid: string;
  role: string;
  joined_at: string;
}

/** A workspace's members, longest-standing first; only its members see them (404 for everyone else). */
@QueryHandler(ListWorkspaceMembers)
export class ListWorkspaceMembersHandler implements IQueryHandler<ListWorkspaceMembers> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, workspace_id, limit, cursor }: ListWorkspaceMembers): Promise<{ workspace_id: string; version: number; items: WorkspaceMemberView[]; next_cursor?: string }> {
    const workspaces: Array<{ version: number }> = await this.db.reader.query(
      this.db.sql(`SELECT w.version FROM identity_workspaces w JOIN identity_workspace_members m ON m.workspace_uuid = w.workspace_uuid WHERE w.workspace_uuid = ? AND m.profile_uuid = ?`),
      [workspace_id, principal.profile_uuid],
    );
    if (workspaces.length === 0) throw new PlatformError('NOT_FOUND', 'No such workspace.');
    const after = cursor ? decodeCursor(cursor, 2).map(String) : null;
    const rows: WorkspaceMemberView[] = await this.db.reader.query(
      this.db.sql(
        `SELECT profile_uuid, role, joined_at FROM identity_workspace_members WHERE workspace_uuid = ?
         ${after ? 'AND (joined_at > ? OR (joined_at = ? AND profile_uuid > ?))' : ''} ORDER BY joined_at, profile_uuid LIMIT ?`,
      ),
      after ? [workspace_id, after[0], after[0], after[1], limit + 1] : [workspace_id, limit + 1],
    );
    const items = rows.slice(0, limit).map((r) => ({ profile_uuid: r.profile_uuid, role: r.role, joined_at: r.joined_at }));
    const last = items[items.length - 1];
    return { workspace_id, version: Number(workspaces[0].version), items, ...(rows.length > limit ? { next_cursor: encodeCursor([last.joined_at, last.profile_uuid]) } : {}) };
  }
}

export class GetActiveWorkspace {
  constructor(readonly principal: Principal) {}
}

@QueryHandler(GetActiveWorkspace)
export class GetActiveWorkspaceHandler implements IQueryHandler<GetActiveWorkspace> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal }: GetActiveWorkspace): Promise<{ workspace: WorkspaceView | null }> {
    const rows = await this.db.reader.query(
      this.db.sql(`${WORKSPACES_OF} AND w.workspace_uuid = (SELECT active_workspace_id FROM identity_accounts WHERE profile_uuid = ?)`),
      [principal.profile_uuid, principal.profile_uuid],
    );
    return { workspace: rows.length ? toWorkspace(rows[0]) : null };
  }
}

export class ListTenantAuthorities {
  constructor(readonly principal: Principal, readonly tenant_uuid: string) {}
}

@QueryHandler(ListTenantAuthorities)
export class ListTenantAuthoritiesHandler implements IQueryHandler<ListTenantAuthorities> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, tenant_uuid }: ListTenantAuthorities): Promise<object> {
    const rows: Array<{ profile_uuid: string; role_code: string; assigned_at: string; reason: string | null }> = await this.db.reader.query(
      this.db.sql('SELECT profile_uuid, role_code, assigned_at, reason FROM identity_tenant_authorities WHERE tenant_uuid = ? ORDER BY assigned_at, profile_uuid'),
      [tenant_uuid],
    );
    // Only people with a role in the tenant (or platform admins) see it; to everyone else it does not exist.
    const exists = rows.length > 0 || (await this.db.reader.query(this.db.sql('SELECT 1 FROM identity_tenants WHERE tenant_uuid = ?'), [tenant_uuid])).length > 0;
    if (!exists || (principal.platform_role !== 'ADMIN' && !rows.some((r) => r.profile_uuid === principal.profile_uuid))) throw new PlatformError('NOT_FOUND', 'No such tenant.');
    return { tenant_uuid, items: rows };
  }
}

/** The caller's authority in a tenant (OWNER, TENANT_ADMIN, TENANT_MODERATOR), or null: for other modules' reviews. */
export class GetTenantRole {
  constructor(readonly principal: Principal, readonly tenant_uuid: string) {}
}

@QueryHandler(GetTenantRole)
export class GetTenantRoleHandler implements IQueryHandler<GetTenantRole, string | null> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, tenant_uuid }: GetTenantRole): Promise<string | null> {
    return (await tenantRoles(this.db, principal, tenant_uuid))[0] ?? null;
  }
}

/** The caller's authorities in a tenant (at most one), or in every tenant when `tenant_uuid` is null. */
async function tenantRoles(db: ReadModelDatabase, principal: Principal, tenant_uuid: string | null): Promise<string[]> {
  const rows: Array<{ role_code: string }> = tenant_uuid === null
    ? await db.reader.query(db.sql('SELECT role_code FROM identity_tenant_authorities WHERE profile_uuid = ?'), [principal.profile_uuid])
    : await db.reader.query(db.sql('SELECT role_code FROM identity_tenant_authorities WHERE tenant_uuid = ? AND profile_uuid = ?'), [tenant_uuid, principal.profile_uuid]);
  return rows.map((r) => r.role_code);
}

/** The auth guard's TENANT_ROLE_RESOLVER (@TenantRoleRequired routes): the caller's authorities, as GetTenantRole reads them. */
@Injectable()
export class TenantRoleLookup implements TenantRoleResolver {
  constructor(private readonly db: ReadModelDatabase) {}

  async meets(principal: Principal, { roles, tenant, globalTenantPeople }: TenantRoleRequirement): Promise<boolean> {
    if (principal.workload) return false;
    if (globalTenantPeople && principal.tenant_uuid === GLOBAL_TENANT_UUID) return true;
    const held = await tenantRoles(this.db, principal, tenant === 'session' ? principal.tenant_uuid : null);
    return held.some((role) => (roles as readonly string[]).includes(role));
  }
}

export class ListDueClosures {
  constructor(readonly now: string) {}
}

@QueryHandler(ListDueClosures)
export class ListDueClosuresHandler implements IQueryHandler<ListDueClosures, string[]> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ now }: ListDueClosures): Promise<string[]> {
    const rows: Array<{ profile_uuid: string }> = await this.db.reader.query(
      this.db.sql(`SELECT profile_uuid FROM identity_accounts WHERE closure_status = 'SCHEDULED' AND closure_scheduled_for <= ? ORDER BY closure_scheduled_for LIMIT 500`),
      [now],
    );
    return rows.map((r) => r.profile_uuid);
  }
}

/** The caller's standing in a tenant for the join routes: its authority there, whether it belongs, whether it exists. */
async function tenantStanding(db: ReadModelDatabase, principal: Principal, tenant_uuid: string): Promise<{ role: string | null; join_policy: string } | null> {
  const rows: Array<{ join_policy: string; role_code: string | null }> = await db.reader.query(
    db.sql(
      `SELECT t.join_policy, a.role_code FROM identity_tenants t
       LEFT JOIN identity_tenant_authorities a ON a.tenant_uuid = t.tenant_uuid AND a.profile_uuid = ? WHERE t.tenant_uuid = ?`,
    ),
    [principal.profile_uuid, tenant_uuid],
  );
  if (rows.length === 0) return null;
  const role = rows[0].role_code ?? null;
  // Outsiders learn nothing about the tenant: it does not exist for them.
  if (principal.platform_role !== 'ADMIN' && !role && principal.tenant_uuid !== tenant_uuid) return null;
  return { role, join_policy: rows[0].join_policy };
}

export class GetTenantJoinPolicy {
  constructor(readonly principal: Principal, readonly tenant_uuid: string) {}
}

/** A tenant's join policy, for its members, its authorities and platform admins (404 for everyone else). */
@QueryHandler(GetTenantJoinPolicy)
export class GetTenantJoinPolicyHandler implements IQueryHandler<GetTenantJoinPolicy> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, tenant_uuid }: GetTenantJoinPolicy): Promise<{ tenant_uuid: string; join_policy: string }> {
    const standing = await tenantStanding(this.db, principal, tenant_uuid);
    if (!standing) throw new PlatformError('NOT_FOUND', 'No such tenant.');
    return { tenant_uuid, join_policy: standing.join_policy };
  }
}

export class ListTenantInvitations {
  constructor(readonly principal: Principal, readonly tenant_uuid: string, readonly limit: number, readonly cursor: string | undefined, readonly now: Date) {}
}

/** A tenant's invitations, newest first, for its owner, its tenant admins and platform admins; members 403, others 404. */
@QueryHandler(ListTenantInvitations)
export class ListTenantInvitationsHandler implements IQueryHandler<ListTenantInvitations> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, tenant_uuid, limit, cursor, now }: ListTenantInvitations): Promise<{ tenant_uuid: string; items: TenantInvitationView[]; next_cursor?: string }> {
    const standing = await tenantStanding(this.db, principal, tenant_uuid);
    if (!standing) throw new PlatformError('NOT_FOUND', 'No such tenant.');
    if (principal.platform_role !== 'ADMIN' && standing.role !== 'OWNER' && standing.role !== 'TENANT_ADMIN') {
      throw new PlatformError('FORBIDDEN', 'Only the tenant owner or a tenant admin sees its invitations.');
    }
    const after = cursor ? decodeCursor(cursor, 2).map(String) : null;
    const rows: TenantInvitationRow[] = await this.db.reader.query(
      this.db.sql(
        `SELECT * FROM identity_tenant_invitations WHERE tenant_uuid = ?
         ${after ? 'AND (created_at < ? OR (created_at = ? AND invitation_uuid < ?))' : ''} ORDER BY created_at DESC, invitation_uuid DESC LIMIT ?`,
      ),
      after ? [tenant_uuid, after[0], after[0], after[1], limit + 1] : [tenant_uuid, limit + 1],
    );
    const items = rows.slice(0, limit).map((r) => ({
      invitation_uuid: r.invitation_uuid,
      tenant_uuid: r.tenant_uuid,
      email: r.email,
      status: invitationStatus(r.status as InvitationStatus, r.expires_at, now),
      invited_by_profile_uuid: r.invited_by_profile_uuid,
      created_at: r.created_at,
      expires_at: r.expires_at,
      accepted_profile_uuid: r.accepted_profile_uuid ?? null,
      accepted_at: r.accepted_at ?? null,
      revoked_at: r.revoked_at ?? null,
    }));
    const last = items[items.length - 1];
    return { tenant_uuid, items, ...(rows.length > limit ? { next_cursor: encodeCursor([last.created_at, last.invitation_uuid]) } : {}) };
  }
}
