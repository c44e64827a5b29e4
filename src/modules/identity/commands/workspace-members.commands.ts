/**
 * Workspace membership: add a member of the workspace's tenant, change a member's role, remove a member, leave.
 * Each is decided on the workspace's stream (domain/workspace.ts). The caller's membership is checked before a
 * pinned `expected_version` is: someone outside the workspace gets 404, never the workspace's version.
 */
import { CommandHandler, QueryBus, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/principal';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { noSuchWorkspace, workspaceDecider, type WorkspaceCommand, type WorkspaceRole, type WorkspaceState } from '../domain/workspace';
import { workspaceStream } from '../domain/identity.constants';
import { IsTenantMember } from '../queries/tenant-membership';

/** What a membership change answers: the member as it now is (role null once gone) and the workspace's version. */
export interface WorkspaceMemberChange {
  workspace_id: string;
  profile_uuid: string;
  role: WorkspaceRole | null;
  status: 'ACTIVE' | 'REMOVED' | 'LEFT';
  version: number;
}

abstract class MembershipHandler {
  constructor(
    protected readonly commands: CommandExecutor,
    protected readonly queries: QueryBus,
  ) {}

  /** Loads the workspace; a caller who is not a member gets 404 whatever else the request says. */
  protected async workspaceOf(principal: Principal, workspace_id: string): Promise<WorkspaceState> {
    const { state } = await this.commands.load(workspaceStream(workspace_id), workspaceDecider);
    if (!state.exists || !state.members[principal.profile_uuid]) throw noSuchWorkspace();
    return state;
  }

  protected async decide(workspace_id: string, command: WorkspaceCommand, expected_version: number | undefined, profile_uuid: string, gone?: 'REMOVED' | 'LEFT'): Promise<WorkspaceMemberChange> {
    const outcome = await this.commands.execute(workspaceStream(workspace_id), workspaceDecider, command, {
      expectedVersion: expected_version === undefined ? undefined : BigInt(expected_version),
    });
    const role = outcome.state.members[profile_uuid] ?? null;
    return { workspace_id, profile_uuid, role, status: gone ?? 'ACTIVE', version: Number(outcome.version) };
  }
}

export class AddWorkspaceMember {
  constructor(readonly principal: Principal, readonly workspace_id: string, readonly profile_uuid: string, readonly role: WorkspaceRole, readonly expected_version?: number) {}
}

@CommandHandler(AddWorkspaceMember)
export class AddWorkspaceMemberHandler extends MembershipHandler implements ICommandHandler<AddWorkspaceMember, WorkspaceMemberChange> {
  constructor(commands: CommandExecutor, queries: QueryBus) {
    super(commands, queries);
  }

  async execute(c: AddWorkspaceMember): Promise<WorkspaceMemberChange> {
    const workspace = await this.workspaceOf(c.principal, c.workspace_id);
    // Looked up whoever asks; the decider answers the actor's role first, so a MEMBER learns nothing from it.
    const target_is_tenant_member: boolean = await this.queries.execute(new IsTenantMember(workspace.tenant_uuid, c.profile_uuid));
    return this.decide(
      c.workspace_id,
      { kind: 'AddWorkspaceMember', actor_profile_uuid: c.principal.profile_uuid, profile_uuid: c.profile_uuid, role: c.role, target_is_tenant_member },
      c.expected_version,
      c.profile_uuid,
    );
  }
}

export class ChangeWorkspaceMemberRole {
  constructor(readonly principal: Principal, readonly workspace_id: string, readonly profile_uuid: string, readonly role: WorkspaceRole, readonly expected_version?: number) {}
}

@CommandHandler(ChangeWorkspaceMemberRole)
export class ChangeWorkspaceMemberRoleHandler extends MembershipHandler implements ICommandHandler<ChangeWorkspaceMemberRole, WorkspaceMemberChange> {
  constructor(commands: CommandExecutor, queries: QueryBus) {
    super(commands, queries);
  }

  async execute(c: ChangeWorkspaceMemberRole): Promise<WorkspaceMemberChange> {
    await this.workspaceOf(c.principal, c.workspace_id);
    return this.decide(
      c.workspace_id,
      { kind: 'ChangeWorkspaceMemberRole', actor_profile_uuid: c.principal.profile_uuid, profile_uuid: c.profile_uuid, role: c.role },
      c.expected_version,
      c.profile_uuid,
    );
  }
}

export class RemoveWorkspaceMember {
  constructor(readonly principal: Principal, readonly workspace_id: string, readonly profile_uuid: string, readonly expected_version?: number) {}
}

@CommandHandler(RemoveWorkspaceMember)
export class RemoveWorkspaceMemberHandler extends MembershipHandler implements ICommandHandler<RemoveWorkspaceMember, WorkspaceMemberChange> {
  constructor(commands: CommandExecutor, queries: QueryBus) {
    super(commands, queries);
  }

  async execute(c: RemoveWorkspaceMember): Promise<WorkspaceMemberChange> {
    await this.workspaceOf(c.principal, c.workspace_id);
    return this.decide(c.workspace_id, { kind: 'RemoveWorkspaceMember', actor_profile_uuid: c.principal.profile_uuid, profile_uuid: c.profile_uuid }, c.expected_version, c.profile_uuid, 'REMOVED');
  }
}

export class LeaveWorkspace {
  constructor(readonly principal: Principal, readonly workspace_id: string, readonly expected_version?: number) {}
}

@CommandHandler(LeaveWorkspace)
export class LeaveWorkspaceHandler extends MembershipHandler implements ICommandHandler<LeaveWorkspace, WorkspaceMemberChange> {
  constructor(commands: CommandExecutor, queries: QueryBus) {
    super(commands, queries);
  }

  async execute(c: LeaveWorkspace): Promise<WorkspaceMemberChange> {
    await this.workspaceOf(c.principal, c.workspace_id);
    return this.decide(c.workspace_id, { kind: 'LeaveWorkspace', actor_profile_uuid: c.principal.profile_uuid }, c.expected_version, c.principal.profile_uuid, 'LEFT');
  }
}
