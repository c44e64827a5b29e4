/**
 * Who may do what with a collection, decided from the collection's access settings and facts about the caller
 * (tenant, workspaces and roles, profile). Pure: the facts are gathered by MemoryAccess through identity's queries.
 *
 * - Members of the publishing workspace always have access; its OWNER and ADMINs manage (items, versions, settings,
 *   inbox resolution).
 * - Everyone else by access mode: OPEN — every person of the collection's tenant; WORKSPACE_ONLY — nobody more;
 *   SELECTED_WORKSPACES — members of a workspace on the allowlist; INVITE_ONLY — the invited principals.
 * - Outside the collection's tenant nothing exists (404).
 * - Without access: a PRIVATE collection does not exist for the caller (404); a LISTED or UNLISTED one answers 403.
 * - The catalogue lists LISTED collections the caller has access to; UNLISTED and PRIVATE ones are reached by id or
 *   slug only.
 */
import { PlatformError } from '../../../platform/errors';

export const ACCESS_MODES = ['OPEN', 'WORKSPACE_ONLY', 'SELECTED_WORKSPACES', 'INVITE_ONLY'] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];
export const DISCOVERY_MODES = ['LISTED', 'UNLISTED', 'PRIVATE'] as const;
export type DiscoveryMode = (typeof DISCOVERY_MODES)[number];

export const MANAGING_ROLES: ReadonlySet<string> = new Set(['OWNER', 'ADMIN']);

export interface AccessSettings {
  tenant_uuid: string;
  workspace_uuid: string;
  access_mode: AccessMode;
  discovery_mode: DiscoveryMode;
  selected_workspaces: string[];
  invited_principals: string[];
}

export interface CallerFacts {
  profile_uuid: string;
  tenant_uuid: string;
  /** workspace_uuid → the caller's role there. */
  workspaces: ReadonlyMap<string, string>;
}

/** MANAGE ⊃ MEMBER ⊃ READ; NONE has no access. */
export type Grant = 'MANAGE' | 'MEMBER' | 'READ' | 'NONE';
export type Need = 'read' | 'member' | 'manage';

export function grantOf(c: AccessSettings, caller: CallerFacts): Grant {
  if (caller.tenant_uuid !== c.tenant_uuid) return 'NONE';
  const role = caller.workspaces.get(c.workspace_uuid);
  if (role !== undefined) return MANAGING_ROLES.has(role) ? 'MANAGE' : 'MEMBER';
  switch (c.access_mode) {
    case 'OPEN':
      return 'READ';
    case 'WORKSPACE_ONLY':
      return 'NONE';
    case 'SELECTED_WORKSPACES':
      return c.selected_workspaces.some((w) => caller.workspaces.has(w)) ? 'READ' : 'NONE';
    case 'INVITE_ONLY':
      return c.invited_principals.includes(caller.profile_uuid) ? 'READ' : 'NONE';
  }
}

const RANK: Record<Grant, number> = { NONE: 0, READ: 1, MEMBER: 2, MANAGE: 3 };
const NEEDED: Record<Need, number> = { read: 1, member: 2, manage: 3 };

export class CollectionNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such agentic memory collection.');
  }
}

/**
 * Throws unless `grant` covers `need`: 404 when the caller may not know the collection exists (another tenant, or
 * PRIVATE without access), else 403.
 */
export function requireGrant(c: AccessSettings, caller: CallerFacts, grant: Grant, need: Need): void {
  if (RANK[grant] >= NEEDED[need]) return;
  if (caller.tenant_uuid !== c.tenant_uuid) throw new CollectionNotFound();
  if (grant === 'NONE') {
    if (c.discovery_mode === 'PRIVATE') throw new CollectionNotFound();
    throw new PlatformError('FORBIDDEN', `This collection is ${c.access_mode}: you are not in its audience.`);
  }
  throw new PlatformError('FORBIDDEN', need === 'manage' ? 'Only the owner and admins of the publishing workspace manage this collection.' : 'Only members of the publishing workspace may do this.');
}
