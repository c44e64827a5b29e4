/** Workspace membership rules, given/when/then: who may add, change, remove and leave, and the last owner stays. */
import { workspaceDecider, type WorkspaceCommand, type WorkspaceEvent } from '../../src/modules/identity/domain/workspace';
import { fold } from '../../src/platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../src/platform/errors';

const ctx = { now: new Date('2026-11-25T10:00:00.000Z'), newId: () => 'f'.repeat(32) };
const given = (events: WorkspaceEvent[]) => ({ when: (c: WorkspaceCommand) => () => workspaceDecider.decide(c, fold(workspaceDecider, events), ctx) });
const W = 'w'.repeat(32);
const created: WorkspaceEvent = { type: 'WorkspaceCreated', data: { workspace_uuid: W, tenant_uuid: 't'.repeat(32), name: 'Desk', owner_profile_uuid: 'owner' } };
const added = (profile_uuid: string, role: 'OWNER' | 'ADMIN' | 'MEMBER', by = 'owner'): WorkspaceEvent => ({
  type: 'WorkspaceMemberAdded',
  data: { workspace_uuid: W, profile_uuid, role, added_by_profile_uuid: by },
});
const team = [created, added('admin', 'ADMIN'), added('member', 'MEMBER')];
const add = (actor: string, profile_uuid: string, role: 'OWNER' | 'ADMIN' | 'MEMBER' = 'MEMBER', target_is_tenant_member = true): WorkspaceCommand => ({
  kind: 'AddWorkspaceMember', actor_profile_uuid: actor, profile_uuid, role, target_is_tenant_member,
});
const change = (actor: string, profile_uuid: string, role: 'OWNER' | 'ADMIN' | 'MEMBER'): WorkspaceCommand => ({ kind: 'ChangeWorkspaceMemberRole', actor_profile_uuid: actor, profile_uuid, role });
const remove = (actor: string, profile_uuid: string): WorkspaceCommand => ({ kind: 'RemoveWorkspaceMember', actor_profile_uuid: actor, profile_uuid });
const leave = (actor: string): WorkspaceCommand => ({ kind: 'LeaveWorkspace', actor_profile_uuid: actor });
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    return (error as PlatformError).code;
  }
  return 'no error';
};

describe('workspace membership', () => {
  it('given a new workspace, its creator is its one OWNER', () => {
    expect(fold(workspaceDecider, [created]).members).toEqual({ owner: 'OWNER' });
    expect(given([]).when({ kind: 'CreateWorkspace', workspace_uuid: W, tenant_uuid: 't'.repeat(32), name: 'Desk', owner_profile_uuid: 'owner' })()).toEqual([created]);
    expect(given([created]).when({ kind: 'CreateWorkspace', workspace_uuid: W, tenant_uuid: 't'.repeat(32), name: 'Desk', owner_profile_uuid: 'owner' })).toThrow(StateConflict);
  });

  it('given an owner, when it adds a member of the tenant, then WorkspaceMemberAdded', () => {
    expect(given([created]).when(add('owner', 'p2', 'ADMIN'))()).toEqual([added('p2', 'ADMIN')]);
  });

  it('given a profile outside the tenant (or none), when added, then the same 404 as for an unknown profile', () => {
    const refusal = (() => {
      try {
        given([created]).when(add('owner', 'stranger', 'MEMBER', false))();
      } catch (error) {
        return error as PlatformError;
      }
    })();
    expect(refusal).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'profile_uuid' }] });
  });

  it('given someone outside the workspace, when they act, then 404 whatever they ask', () => {
    for (const c of [add('outsider', 'p2'), change('outsider', 'member', 'ADMIN'), remove('outsider', 'member'), leave('outsider')]) expect(code(given(team).when(c))).toBe('NOT_FOUND');
    expect(code(given([]).when(leave('owner')))).toBe('NOT_FOUND');
  });

  it('given a MEMBER, when it manages anyone, then 403 before anything about the target is told', () => {
    expect(code(given(team).when(add('member', 'stranger', 'MEMBER', false)))).toBe('FORBIDDEN');
    expect(code(given(team).when(change('member', 'admin', 'MEMBER')))).toBe('FORBIDDEN');
    expect(code(given(team).when(remove('member', 'admin')))).toBe('FORBIDDEN');
  });

  it('given an ADMIN, it manages ADMINs and MEMBERs but never owners', () => {
    expect(given(team).when(add('admin', 'p2', 'ADMIN'))()).toEqual([added('p2', 'ADMIN', 'admin')]);
    expect(given(team).when(change('admin', 'member', 'ADMIN'))()).toMatchObject([{ type: 'WorkspaceMemberRoleChanged', data: { role: 'ADMIN', previous_role: 'MEMBER' } }]);
    expect(given(team).when(remove('admin', 'member'))()).toMatchObject([{ type: 'WorkspaceMemberRemoved', data: { profile_uuid: 'member', role: 'MEMBER' } }]);
    expect(code(given(team).when(add('admin', 'p2', 'OWNER')))).toBe('FORBIDDEN');
    expect(code(given(team).when(change('admin', 'member', 'OWNER')))).toBe('FORBIDDEN');
    expect(code(given(team).when(change('admin', 'owner', 'MEMBER')))).toBe('FORBIDDEN');
    expect(code(given(team).when(remove('admin', 'owner')))).toBe('FORBIDDEN');
  });

  it('given a member already there, when added again, then 409; the same role again changes nothing', () => {
    expect(given(team).when(add('owner', 'member'))).toThrow(StateConflict);
    expect(given(team).when(change('owner', 'member', 'MEMBER'))()).toEqual([]);
    expect(code(given(team).when(change('owner', 'nobody', 'ADMIN')))).toBe('NOT_FOUND');
    expect(code(given(team).when(remove('owner', 'nobody')))).toBe('NOT_FOUND');
  });

  it('given one owner, it can neither leave, be demoted nor be removed; with two, either may go', () => {
    expect(given(team).when(leave('owner'))).toThrow(RuleViolation);
    expect(given(team).when(change('owner', 'owner', 'ADMIN'))).toThrow(RuleViolation);
    expect(given(team).when(remove('owner', 'owner'))).toThrow(RuleViolation);
    const twoOwners = [...team, { type: 'WorkspaceMemberRoleChanged', data: { workspace_uuid: W, profile_uuid: 'admin', role: 'OWNER', previous_role: 'ADMIN', changed_by_profile_uuid: 'owner' } } as WorkspaceEvent];
    expect(given(twoOwners).when(leave('owner'))()).toEqual([{ type: 'WorkspaceMemberLeft', data: { workspace_uuid: W, profile_uuid: 'owner', role: 'OWNER' } }]);
    expect(given(twoOwners).when(change('admin', 'owner', 'MEMBER'))()).toMatchObject([{ type: 'WorkspaceMemberRoleChanged', data: { profile_uuid: 'owner', role: 'MEMBER' } }]);
  });

  it('given a member who left or was removed, they are no longer a member and may be added again', () => {
    const gone = [...team, { type: 'WorkspaceMemberLeft', data: { workspace_uuid: W, profile_uuid: 'member', role: 'MEMBER' } } as WorkspaceEvent];
    expect(fold(workspaceDecider, gone).members).toEqual({ owner: 'OWNER', admin: 'ADMIN' });
    expect(code(given(gone).when(leave('member')))).toBe('NOT_FOUND');
    expect(given(gone).when(add('owner', 'member'))()).toEqual([added('member', 'MEMBER')]);
    const removed = [...team, { type: 'WorkspaceMemberRemoved', data: { workspace_uuid: W, profile_uuid: 'admin', role: 'ADMIN', removed_by_profile_uuid: 'owner' } } as WorkspaceEvent];
    expect(fold(workspaceDecider, removed).members).toEqual({ owner: 'OWNER', member: 'MEMBER' });
  });

  it('folds workspaces created before membership changes existed', () => {
    expect(fold(workspaceDecider, [created])).toMatchObject({ exists: true, tenant_uuid: 't'.repeat(32), members: { owner: 'OWNER' } });
  });
});
