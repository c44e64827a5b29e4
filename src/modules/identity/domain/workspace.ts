/**
 * Workspaces and their members: who belongs, with which role, and who may change that. Pure decide/evolve over the
 * workspace's own stream (`identity-workspace-<workspace_uuid>`), so every change is decided under its revision
 * (`expected_version`) and two concurrent changes cannot both remove the last owner.
 *
 * Roles (docs/identity.md has the table):
 * - OWNER: everything, including making and unmaking owners; a workspace always keeps at least one.
 * - ADMIN: manages the workspace's resources (agent wallets, memory collections) and its ADMINs and MEMBERs.
 * - MEMBER: reads the workspace's resources.
 * Someone who is not a member learns nothing about the workspace: 404, as for one that does not exist.
 */
import type { Decider } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';

export const WORKSPACE_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];
/** Roles that manage a workspace's resources and its non-owner members. */
export const MANAGING_WORKSPACE_ROLES: ReadonlySet<string> = new Set<WorkspaceRole>(['OWNER', 'ADMIN']);

export type WorkspaceEvent =
  | { type: 'WorkspaceCreated'; data: { workspace_uuid: string; tenant_uuid: string; name: string; owner_profile_uuid: string } }
  | { type: 'WorkspaceMemberAdded'; data: { workspace_uuid: string; profile_uuid: string; role: WorkspaceRole; added_by_profile_uuid: string } }
  | { type: 'WorkspaceMemberRoleChanged'; data: { workspace_uuid: string; profile_uuid: string; role: WorkspaceRole; previous_role: WorkspaceRole; changed_by_profile_uuid: string } }
  | { type: 'WorkspaceMemberRemoved'; data: { workspace_uuid: string; profile_uuid: string; role: WorkspaceRole; removed_by_profile_uuid: string } }
  | { type: 'WorkspaceMemberLeft'; data: { workspace_uuid: string; profile_uuid: string; role: WorkspaceRole } };

export interface WorkspaceState {
  exists: boolean;
  workspace_uuid: string;
  tenant_uuid: string;
  members: Readonly<Record<string, WorkspaceRole>>;
}

export type WorkspaceCommand =
  | { kind: 'CreateWorkspace'; workspace_uuid: string; tenant_uuid: string; name: string; owner_profile_uuid: string }
  /** target_is_tenant_member: identity's IsTenantMember for the workspace's tenant (looked up by the handler). */
  | { kind: 'AddWorkspaceMember'; actor_profile_uuid: string; profile_uuid: string; role: WorkspaceRole; target_is_tenant_member: boolean }
  | { kind: 'ChangeWorkspaceMemberRole'; actor_profile_uuid: string; profile_uuid: string; role: WorkspaceRole }
  | { kind: 'RemoveWorkspaceMember'; actor_profile_uuid: string; profile_uuid: string }
  | { kind: 'LeaveWorkspace'; actor_profile_uuid: string };

/** The workspace, to someone outside it: it does not exist. */
export const noSuchWorkspace = (): PlatformError => new PlatformError('NOT_FOUND', 'No such workspace.');
/** A target who is not a member (of the workspace, or of its tenant for an addition), same answer whichever it is. */
export const noSuchWorkspaceMember = (): PlatformError =>
  new PlatformError('NOT_FOUND', 'No such member.', { details: [{ field: 'profile_uuid', issue: 'no such member of this workspace or its tenant' }] });

const owners = (s: WorkspaceState): number => Object.values(s.members).filter((r) => r === 'OWNER').length;

const lastOwner = (): RuleViolation =>
  new RuleViolation('A workspace keeps at least one owner: make another member an owner first.', [{ field: 'profile_uuid', issue: 'is the last owner' }]);

/** The actor's role; a non-member (or a workspace that does not exist) is 404. */
function actorRole(s: WorkspaceState, actor: string): WorkspaceRole {
  const role = s.exists ? s.members[actor] : undefined;
  if (!role) throw noSuchWorkspace();
  return role;
}

/** OWNER may touch anyone; ADMIN may touch ADMINs and MEMBERs and give those roles; MEMBER may touch nobody. */
function requireMayManage(actor: WorkspaceRole, targetRole: WorkspaceRole | undefined, newRole?: WorkspaceRole): void {
  if (actor === 'OWNER') return;
  if (actor === 'ADMIN' && targetRole !== 'OWNER' && newRole !== 'OWNER') return;
  throw new PlatformError('FORBIDDEN', actor === 'ADMIN' ? 'Only an owner makes, changes or removes owners.' : 'Only owners and admins manage members.');
}

export const workspaceDecider: Decider<WorkspaceCommand, WorkspaceState, WorkspaceEvent> = {
  initialState: () => ({ exists: false, workspace_uuid: '', tenant_uuid: '', members: {} }),
  evolve(s, e) {
    switch (e.type) {
      case 'WorkspaceCreated':
        return { exists: true, workspace_uuid: e.data.workspace_uuid, tenant_uuid: e.data.tenant_uuid, members: { [e.data.owner_profile_uuid]: 'OWNER' } };
      case 'WorkspaceMemberAdded':
      case 'WorkspaceMemberRoleChanged':
        return { ...s, members: { ...s.members, [e.data.profile_uuid]: e.data.role } };
      case 'WorkspaceMemberRemoved':
      case 'WorkspaceMemberLeft': {
        const { [e.data.profile_uuid]: _gone, ...members } = s.members;
        return { ...s, members };
      }
    }
  },
  decide(c, s) {
    if (c.kind === 'CreateWorkspace') {
      if (s.exists) throw new StateConflict('The workspace exists.');
      const { kind: _kind, ...data } = c;
      return [{ type: 'WorkspaceCreated', data }];
    }
    const actor = actorRole(s, c.actor_profile_uuid);
    const workspace_uuid = s.workspace_uuid;
    switch (c.kind) {
      case 'AddWorkspaceMember': {
        // Who asks is answered first: a MEMBER learns nothing about which profiles belong to the tenant.
        requireMayManage(actor, undefined, c.role);
        if (!c.target_is_tenant_member) throw noSuchWorkspaceMember();
        if (s.members[c.profile_uuid]) throw new StateConflict('The profile is already a member; change its role instead.');
        return [{ type: 'WorkspaceMemberAdded', data: { workspace_uuid, profile_uuid: c.profile_uuid, role: c.role, added_by_profile_uuid: c.actor_profile_uuid } }];
      }
      case 'ChangeWorkspaceMemberRole': {
        const current = s.members[c.profile_uuid];
        requireMayManage(actor, current, c.role);
        if (!current) throw noSuchWorkspaceMember();
        if (current === c.role) return [];
        if (current === 'OWNER' && owners(s) === 1) throw lastOwner();
        return [
          {
            type: 'WorkspaceMemberRoleChanged',
            data: { workspace_uuid, profile_uuid: c.profile_uuid, role: c.role, previous_role: current, changed_by_profile_uuid: c.actor_profile_uuid },
          },
        ];
      }
      case 'RemoveWorkspaceMember': {
        const current = s.members[c.profile_uuid];
        requireMayManage(actor, current);
        if (!current) throw noSuchWorkspaceMember();
        if (current === 'OWNER' && owners(s) === 1) throw lastOwner();
        return [{ type: 'WorkspaceMemberRemoved', data: { workspace_uuid, profile_uuid: c.profile_uuid, role: current, removed_by_profile_uuid: c.actor_profile_uuid } }];
      }
      case 'LeaveWorkspace':
        if (actor === 'OWNER' && owners(s) === 1) throw lastOwner();
        return [{ type: 'WorkspaceMemberLeft', data: { workspace_uuid, profile_uuid: c.actor_profile_uuid, role: actor } }];
    }
  },
};
