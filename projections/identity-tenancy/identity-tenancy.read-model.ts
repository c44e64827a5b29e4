/** Tenants, tenant authorities, workspaces and their members: who may see and do what where. */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
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

export class IdentityTenancyProjector implements Projector {
  readonly name = 'identity-tenancy';
  readonly handles = ['TenantCreated', 'TenantAuthorityAssigned', 'WorkspaceCreated'] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    const d = event.data as Record<string, string>;
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    switch (event.type) {
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
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['identity_workspace_members', 'identity_workspaces', 'identity_tenant_authorities', 'identity_tenants']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const identityTenancyReadModel: ReadModelDefinition = {
  name: 'identity-tenancy',
  entities: [],
  migrations: [IdentityTenancy1764000001300],
  projector: IdentityTenancyProjector,
};
