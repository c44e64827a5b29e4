/**
 * Who may touch a binding. People reach bindings through their workspace (identity's GetWorkspaceMembership query):
 * any member reads, the owner and admins change things. An agent reaches only its own binding, and only on the
 * routes the guard lets workload tokens through. Anything else does not exist for the caller (404), except a member
 * who may read but not change (403).
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { GetWorkspaceMembership, type WorkspaceView } from '../identity/queries/identity.queries';
import type { BindingRow } from '../../../projections/ai-wallet-bindings/ai-wallet-bindings.read-model';
import { BindingNotFound } from './domain/binding';

const MANAGING_ROLES = new Set(['OWNER', 'ADMIN']);

export type Need = 'read' | 'manage' | 'agent-or-read' | 'agent-or-manage';

@Injectable()
export class WalletAccess {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly queryBus: QueryBus,
  ) {}

  /** The caller's membership of a workspace: any member reads, the owner and admins manage (create bindings). */
  async workspace(principal: Principal, workspace_uuid: string, need: 'read' | 'manage'): Promise<WorkspaceView> {
    const membership = principal.workload ? null : await this.membership(principal, workspace_uuid);
    if (!membership) throw new PlatformError('NOT_FOUND', 'No such workspace.');
    if (need === 'manage' && !MANAGING_ROLES.has(membership.role)) throw new PlatformError('FORBIDDEN', 'Only the workspace owner and admins manage agent wallets.');
    return membership;
  }

  /** `notFound`: what a caller who may not see the binding is told (a record reached through it names itself). */
  async binding(principal: Principal, binding_uuid: string, need: Need, notFound: () => PlatformError = () => new BindingNotFound()): Promise<BindingRow> {
    if (principal.workload) {
      if (!need.startsWith('agent') || principal.workload.binding_uuid !== binding_uuid) throw notFound();
    }
    const rows: BindingRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM ai_wallet_bindings WHERE binding_uuid = ?'), [binding_uuid]);
    const row = rows[0];
    if (!row) throw notFound();
    if (principal.workload) return row;
    const membership = await this.membership(principal, row.workspace_uuid);
    if (!membership) throw notFound();
    if (need.endsWith('manage') && !MANAGING_ROLES.has(membership.role)) throw new PlatformError('FORBIDDEN', 'Only the workspace owner and admins manage agent wallets.');
    return row;
  }

  private membership(principal: Principal, workspace_uuid: string): Promise<WorkspaceView | null> {
    return this.queryBus.execute(new GetWorkspaceMembership(principal, workspace_uuid));
  }
}
