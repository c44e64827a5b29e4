/** Tenants, tenant authorities, workspaces and their members: who may see and do what where. */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { Table, TableColumn, TableIndex, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';

export interface WorkspaceRow {
  workspace_uuid: string;
  tenant_uuid: string;
  name: string;
  owner_profile_uuid: string;
  created_at: string;
  /** The workspace stream's revision: what a membership change passes as `expected_version`. */
  version: number;
}

export interface WorkspaceMemberRow {
  workspace_uuid: string;
  profile_uuid: string;
  role: string;
  joined_at: string;
}

export class IdentityTenancy1764000001300 implements MigrationInterface {
  name = 'IdentityTenancy1764000001300';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, nullable = false) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(new Table({ name: 'identity_tenants', columns: [{ name: 'tenant_uuid', type: 'varchar', length: '32', isPrimary: true }, text('name', '200'), text('owner_profile_uuid', '32'), text('created_at', '40')] }));
    await q.createTable(
      new Table({
        name: 'identity_tenant_authorities',
        columns: [
          { name: 'tenant_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'profile_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('role_code', '32'),
          text('reason', '320', true),
          text('assigned_by_profile_uuid', '32', true),
          text('assigned_at', '40'),
        ],
        indices: [{ name: 'idx_identity_authorities_profile', columnNames: ['profile_uuid'] }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'identity_workspaces',
        columns: [{ name: 'workspace_uuid', type: 'varchar', length: '32', isPrimary: true }, text('tenant_uuid', '32'), text('name', '200'), text('owner_profile_uuid', '32'), text('created_at', '40')],
      }),
    );
    await q.createTable(
      new Table({
        name: 'identity_workspace_members',
        columns: [
          { name: 'workspace_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'profile_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('role', '32'),
          text('joined_at', '40'),
        ],
        indices: [{ name: 'idx_identity_members_profile', columnNames: ['profile_uuid'] }],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['identity_workspace_members', 'identity_workspaces', 'identity_tenant_authorities', 'identity_tenants']) await q.dropTable(t);
  }
}

/** Workspace membership changes (issue 18): the workspace's version, and the member list's page order. */
export class IdentityWorkspaceMembers1764000009800 implements MigrationInterface {
  name = 'IdentityWorkspaceMembers1764000009800';
  async up(q: QueryRunner): Promise<void> {
    // Every existing workspace has only its WorkspaceCreated event: revision 0.
    await q.addColumn('identity_workspaces', new TableColumn({ name: 'version', type: 'integer', default: 0 }));
    await q.createIndex('identity_workspace_members', new TableIndex({ name: 'idx_identity_members_page', columnNames: ['workspace_uuid', 'joined_at', 'profile_uuid'] }));
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('identity_workspace_members', 'idx_identity_members_page');
    await q.dropColumn('identity_workspaces', 'version');
  }
}

/** One invitation into a tenant, as its owner and tenant admins list it (status PENDING, ACCEPTED or REVOKED as stored). */
export interface TenantInvitationRow {
  invitation_uuid: string;
  tenant_uuid: string;
  /** The invited address; "[erased]" once the invitation is revoked or the account that accepted it is erased. */
  email: string;
  status: string;
  invited_by_profile_uuid: string;
  created_at: string;
  expires_at: string;
  accepted_profile_uuid: string | null;
  accepted_at: string | null;
  revoked_at: string | null;
}

/** Who joins a tenant: its join policy (INVITATION unless its owner opened it) and its invitations. */
export class IdentityTenantJoins1764000013200 implements MigrationInterface {
  name = 'IdentityTenantJoins1764000013200';
  async up(q: QueryRunner): Promise<void> {
    // Every tenant so far had no policy: they take members by invitation from now on, as new tenants do.
    await q.addColumn('identity_tenants', new TableColumn({ name: 'join_policy', type: 'varchar', length: '16', default: "'INVITATION'" }));
    const text = (name: string, length: string, nullable = false) => ({ name, type: 'varchar', length, isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'identity_tenant_invitations',
        columns: [
          { name: 'invitation_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('tenant_uuid', '32'),
          text('email', '320'),
          text('status', '16'),
          text('invited_by_profile_uuid', '32'),
          text('created_at', '40'),
          text('expires_at', '40'),
          text('accepted_profile_uuid', '32', true),
          text('accepted_at', '40', true),
          text('revoked_at', '40', true),
        ],
        indices: [
          // The list: a tenant's invitations newest first, keyset (created_at, invitation_uuid).
          { name: 'idx_identity_invitations_page', columnNames: ['tenant_uuid', 'created_at', 'invitation_uuid'] },
          // Erasure finds the invitation an erased account accepted.
          { name: 'idx_identity_invitations_accepted', columnNames: ['accepted_profile_uuid'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('identity_tenant_invitations');
    await q.dropColumn('identity_tenants', 'join_policy');
  }
}

export class IdentityTenancyProjector implements Projector {
  readonly name = 'identity-tenancy';
  readonly handles = [
    'TenantCreated', 'TenantAuthorityAssigned', 'WorkspaceCreated', 'WorkspaceMemberAdded', 'WorkspaceMemberRoleChanged', 'WorkspaceMemberRemoved', 'WorkspaceMemberLeft', 'AccountErased',
    'TenantJoinPolicyChanged', 'TenantInvitationIssued', 'TenantInvitationRevoked', 'TenantInvitationAccepted',
  ] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as Record<string, string>;
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    switch (event.type) {
      case 'AccountErased':
        // The reasons the person wrote when assigning roles (their words, sealed under their key in the log).
        await q('UPDATE identity_tenant_authorities SET reason = ? WHERE assigned_by_profile_uuid = ? AND reason IS NOT NULL', [ERASED_TEXT, d.profile_uuid]);
        // The address of the invitation the person's registration spent (its key was destroyed with theirs).
        await q('UPDATE identity_tenant_invitations SET email = ? WHERE accepted_profile_uuid = ?', [ERASED_TEXT, d.profile_uuid]);
        return;
      case 'TenantJoinPolicyChanged':
        await q('UPDATE identity_tenants SET join_policy = ? WHERE tenant_uuid = ?', [d.join_policy, d.tenant_uuid]);
        return;
      case 'TenantInvitationIssued':
        await q(
          `INSERT INTO identity_tenant_invitations (invitation_uuid, tenant_uuid, email, status, invited_by_profile_uuid, created_at, expires_at, accepted_profile_uuid, accepted_at, revoked_at)
           VALUES (?, ?, ?, 'PENDING', ?, ?, ?, NULL, NULL, NULL)`,
          [d.invitation_uuid, d.tenant_uuid, d.email, d.invited_by_profile_uuid, d.issued_at, d.expires_at],
        );
        return;
      case 'TenantInvitationRevoked':
        // Revoking destroys the invitation's key: the address goes from the read model too.
        await q(`UPDATE identity_tenant_invitations SET status = 'REVOKED', revoked_at = ?, email = ? WHERE invitation_uuid = ?`, [d.revoked_at, ERASED_TEXT, d.invitation_uuid]);
        return;
      case 'TenantInvitationAccepted':
        await q(`UPDATE identity_tenant_invitations SET status = 'ACCEPTED', accepted_profile_uuid = ?, accepted_at = ? WHERE invitation_uuid = ?`, [d.profile_uuid, d.accepted_at, d.invitation_uuid]);
        return;
      case 'TenantCreated':
        await q('INSERT INTO identity_tenants (tenant_uuid, name, owner_profile_uuid, created_at) VALUES (?, ?, ?, ?)', [d.tenant_uuid, d.name, d.owner_profile_uuid, event.occurred_at]);
        await q(`INSERT INTO identity_tenant_authorities (tenant_uuid, profile_uuid, role_code, reason, assigned_by_profile_uuid, assigned_at) VALUES (?, ?, 'OWNER', NULL, NULL, ?)`, [
          d.tenant_uuid, d.owner_profile_uuid, event.occurred_at,
        ]);
        return;
      case 'TenantAuthorityAssigned':
        await q('DELETE FROM identity_tenant_authorities WHERE tenant_uuid = ? AND profile_uuid = ?', [d.tenant_uuid, d.profile_uuid]);
        await q('INSERT INTO identity_tenant_authorities (tenant_uuid, profile_uuid, role_code, reason, assigned_by_profile_uuid, assigned_at) VALUES (?, ?, ?, ?, ?, ?)', [
          d.tenant_uuid, d.profile_uuid, d.role_code, d.reason, d.assigned_by_profile_uuid, event.occurred_at,
        ]);
        return;
      case 'WorkspaceCreated':
        await q('INSERT INTO identity_workspaces (workspace_uuid, tenant_uuid, name, owner_profile_uuid, created_at) VALUES (?, ?, ?, ?, ?)', [
          d.workspace_uuid, d.tenant_uuid, d.name, d.owner_profile_uuid, event.occurred_at,
        ]);
        await q(`INSERT INTO identity_workspace_members (workspace_uuid, profile_uuid, role, joined_at) VALUES (?, ?, 'OWNER', ?)`, [d.workspace_uuid, d.owner_profile_uuid, event.occurred_at]);
        return;
      case 'WorkspaceMemberAdded':
        await q('INSERT INTO identity_workspace_members (workspace_uuid, profile_uuid, role, joined_at) VALUES (?, ?, ?, ?)', [d.workspace_uuid, d.profile_uuid, d.role, event.occurred_at]);
        await this.versioned(q, d.workspace_uuid, event);
        return;
      case 'WorkspaceMemberRoleChanged':
        await q('UPDATE identity_workspace_members SET role = ? WHERE workspace_uuid = ? AND profile_uuid = ?', [d.role, d.workspace_uuid, d.profile_uuid]);
        await this.versioned(q, d.workspace_uuid, event);
        return;
      case 'WorkspaceMemberRemoved':
      case 'WorkspaceMemberLeft':
        await q('DELETE FROM identity_workspace_members WHERE workspace_uuid = ? AND profile_uuid = ?', [d.workspace_uuid, d.profile_uuid]);
        await this.versioned(q, d.workspace_uuid, event);
        return;
    }
  }

  private async versioned(q: (sql: string, params: unknown[]) => Promise<unknown>, workspace_uuid: string, event: RecordedEvent): Promise<void> {
    await q('UPDATE identity_workspaces SET version = ? WHERE workspace_uuid = ?', [Number(event.revision), workspace_uuid]);
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['identity_tenant_invitations', 'identity_workspace_members', 'identity_workspaces', 'identity_tenant_authorities', 'identity_tenants']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const identityTenancyReadModel: ReadModelDefinition = {
  name: 'identity-tenancy',
  entities: [],
  migrations: [IdentityTenancy1764000001300, IdentityWorkspaceMembers1764000009800, IdentityTenantJoins1764000013200],
  projector: IdentityTenancyProjector,
};
