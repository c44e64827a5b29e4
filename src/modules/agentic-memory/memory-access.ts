/**
 * Who the caller is to a collection. The facts (the caller's workspaces and roles) come from identity's query
 * interface (ListWorkspaces, GetWorkspaceMembership on the QueryBus); the rules are domain/access.ts. Commands check
 * against the collection's stream (the last word on its settings), reads against the read model.
 */
import { Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { currentContext } from '../../platform/context/request-context';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { GetWorkspaceMembership, ListWorkspaces, type WorkspaceView } from '../identity/queries/identity.queries';
import { parseCore, type CollectionRow } from '../../../projections/agentic-memory-collections/agentic-memory-collections.read-model';
import { CollectionNotFound, grantOf, MANAGING_ROLES, requireGrant, type CallerFacts, type Grant, type Need } from './domain/access';
import type { CollectionCore } from './domain/collection';

const HEX32 = /^[0-9a-f]{32}$/;

export interface CollectionAccess {
  row: CollectionRow;
  core: CollectionCore;
  grant: Grant;
  facts: CallerFacts;
}

@Injectable()
export class MemoryAccess {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly queryBus: QueryBus,
  ) {}

  /** The caller's tenant, profile and workspaces (with roles). Agents' workload tokens have no place here. */
  async facts(principal: Principal): Promise<CallerFacts> {
    if (principal.workload) throw new CollectionNotFound();
    const { items } = (await this.queryBus.execute(new ListWorkspaces(principal))) as { items: WorkspaceView[] };
    return { profile_uuid: principal.profile_uuid, tenant_uuid: principal.tenant_uuid, workspaces: new Map(items.map((w) => [w.workspace_id, w.role])) };
  }

  /** A workspace the caller publishes for (owner or admin): 404 when not a member, 403 when only a member. */
  async publishingWorkspace(principal: Principal, workspace_uuid: string): Promise<WorkspaceView> {
    const membership: WorkspaceView | null = principal.workload ? null : await this.queryBus.execute(new GetWorkspaceMembership(principal, workspace_uuid));
    if (!membership) throw new PlatformError('NOT_FOUND', 'No such workspace.');
    if (!MANAGING_ROLES.has(membership.role)) throw new PlatformError('FORBIDDEN', 'Only the workspace owner and admins publish memory collections.');
    return membership;
  }

  /** The collection row for an id or a slug of the caller's tenant, or null. */
  async row(principal: Principal, ref: string): Promise<CollectionRow | null> {
    const rows: CollectionRow[] = HEX32.test(ref)
      ? await this.db.reader.query(this.db.sql('SELECT * FROM agentic_memory_collections WHERE collection_uuid = ?'), [ref])
      : await this.db.reader.query(this.db.sql('SELECT * FROM agentic_memory_collections WHERE tenant_uuid = ? AND slug = ?'), [principal.tenant_uuid, ref]);
    return rows[0] ?? null;
  }

  /** The collection as the read model has it, and what the caller may do with it (throws when `need` is not met). */
  async collection(principal: Principal, ref: string, need: Need): Promise<CollectionAccess> {
    const facts = await this.facts(principal);
    const row = await this.row(principal, ref);
    if (!row) throw new CollectionNotFound();
    const core = parseCore(row);
    const grant = this.check(core, facts, need);
    return { row, core, grant, facts };
  }

  /** Checks `need` against settings (from the stream, for commands) and tags the request's events with the workspace. */
  check(core: CollectionCore, facts: CallerFacts, need: Need): Grant {
    const grant = grantOf(core, facts);
    requireGrant(core, facts, grant, need);
    const ctx = currentContext();
    if (ctx) ctx.workspace_uuid = core.workspace_uuid;
    return grant;
  }
}
