/**
 * The smaller identity aggregates: the email claim (uniqueness), sessions, one-use tokens (step-up, activation,
 * contact change), tenants with their authorities (workspaces: workspace.ts). Pure decide/evolve.
 */
import type { Decider } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import type { Device } from './account';
import { INVITATION_TTL_MS } from './identity.constants';

// --- email claim: identity-email-<sha256(email)> says which profile holds an address -------------------------
export type EmailClaimEvent =
  | { type: 'EmailClaimed'; data: { profile_uuid: string } }
  | { type: 'EmailReleased'; data: { profile_uuid: string } }
  | { type: 'RegistrationAttempted'; data: Record<string, never> };
export type EmailClaimCommand = { kind: 'ClaimEmail'; profile_uuid: string } | { kind: 'ReleaseEmail'; profile_uuid: string } | { kind: 'NoteRegistrationAttempt' };
export const emailClaimDecider: Decider<EmailClaimCommand, { owner: string | null }, EmailClaimEvent> = {
  initialState: () => ({ owner: null }),
  evolve: (s, e) => (e.type === 'RegistrationAttempted' ? s : { owner: e.type === 'EmailClaimed' ? e.data.profile_uuid : null }),
  decide: (c, s) => {
    // A registration of a taken address writes like a new one does, so the two look alike from outside.
    if (c.kind === 'NoteRegistrationAttempt') return [{ type: 'RegistrationAttempted', data: {} }];
    if (c.kind === 'ClaimEmail') {
      if (s.owner === c.profile_uuid) return [];
      if (s.owner) throw new StateConflict('The email is taken.');
      return [{ type: 'EmailClaimed', data: { profile_uuid: c.profile_uuid } }];
    }
    return s.owner === c.profile_uuid ? [{ type: 'EmailReleased', data: { profile_uuid: c.profile_uuid } }] : [];
  },
};

// --- sessions ------------------------------------------------------------------------------------------------
export type SessionEvent =
  | {
      type: 'SessionStarted';
      data: { session_id: string; profile_uuid: string; tenant_uuid: string; token_hash: string; authentication_method: string; device: Device; expires_at: string };
    }
  | { type: 'SessionRevoked'; data: { session_id: string; profile_uuid: string; reason: string; revoked_at: string } };

export interface SessionState {
  status: 'NONE' | 'ACTIVE' | 'REVOKED';
  session_id: string;
  profile_uuid: string;
}

export type SessionCommand = { kind: 'StartSession'; started: Extract<SessionEvent, { type: 'SessionStarted' }>['data'] } | { kind: 'RevokeSession'; reason: string };

export const sessionDecider: Decider<SessionCommand, SessionState, SessionEvent> = {
  initialState: () => ({ status: 'NONE', session_id: '', profile_uuid: '' }),
  evolve: (s, e) => (e.type === 'SessionStarted' ? { status: 'ACTIVE', session_id: e.data.session_id, profile_uuid: e.data.profile_uuid } : { ...s, status: 'REVOKED' }),
  decide: (c, s, { now }) => {
    if (c.kind === 'StartSession') {
      if (s.status !== 'NONE') throw new StateConflict('The session exists.');
      return [{ type: 'SessionStarted', data: c.started }];
    }
    if (s.status === 'NONE') throw new PlatformError('NOT_FOUND', 'No such session.');
    if (s.status === 'REVOKED') return [];
    return [{ type: 'SessionRevoked', data: { session_id: s.session_id, profile_uuid: s.profile_uuid, reason: c.reason, revoked_at: now.toISOString() } }];
  },
};

// --- one-use tokens ------------------------------------------------------------------------------------------
export type TokenKind = 'ACTIVATION' | 'STEP_UP' | 'CONTACT_CHANGE';
export type OneUseTokenEvent =
  | {
      type: 'OneUseTokenIssued';
      /**
       * authentication_method: how the holder proved it was them before a STEP_UP token was issued (`PASSWORD`,
       * `PASSWORD_TOTP`); absent on other kinds and on step-ups issued before it was recorded.
       */
      data: { kind: TokenKind; purpose: string | null; profile_uuid: string; session_id: string | null; expires_at: string; authentication_method?: string };
    }
  | { type: 'OneUseTokenConsumed'; data: { consumed_at: string } }
  /** A spent step-up given back: the action it was spent on failed to be recorded (CommandExecutor's OneUseSpend). */
  | { type: 'OneUseTokenReleased'; data: { released_at: string } };

export interface OneUseTokenState {
  issued: Extract<OneUseTokenEvent, { type: 'OneUseTokenIssued' }>['data'] | null;
  consumed: boolean;
}

export type OneUseTokenCommand =
  | { kind: 'IssueToken'; issued: Extract<OneUseTokenEvent, { type: 'OneUseTokenIssued' }>['data'] }
  | { kind: 'ConsumeToken'; expect: { kind: TokenKind; purpose?: string; session_id?: string } }
  | { kind: 'ReleaseToken' };

/** Why a token was refused: every case answers the same way to the caller (no oracle), the reason is for logs. */
export class TokenRefused extends RuleViolation {
  constructor(readonly reason: 'UNKNOWN' | 'USED' | 'EXPIRED' | 'WRONG_KIND' | 'WRONG_PURPOSE' | 'WRONG_SESSION', field = 'token') {
    super('The token is invalid, used or expired.', [{ field, issue: 'invalid, used or expired' }]);
  }
}

export const oneUseTokenDecider: Decider<OneUseTokenCommand, OneUseTokenState, OneUseTokenEvent> = {
  initialState: () => ({ issued: null, consumed: false }),
  evolve: (s, e) => {
    switch (e.type) {
      case 'OneUseTokenIssued':
        return { ...s, issued: e.data };
      case 'OneUseTokenConsumed':
        return { ...s, consumed: true };
      case 'OneUseTokenReleased':
        return { ...s, consumed: false };
    }
  },
  decide: (c, s, { now }) => {
    if (c.kind === 'IssueToken') {
      if (s.issued) throw new StateConflict('The token exists.');
      return [{ type: 'OneUseTokenIssued', data: c.issued }];
    }
    if (c.kind === 'ReleaseToken') {
      // Only a spent step-up goes back; nothing to give back is no event (a release may be retried).
      return s.issued?.kind === 'STEP_UP' && s.consumed ? [{ type: 'OneUseTokenReleased', data: { released_at: now.toISOString() } }] : [];
    }
    const t = s.issued;
    if (!t) throw new TokenRefused('UNKNOWN');
    if (s.consumed) throw new TokenRefused('USED');
    if (t.kind !== c.expect.kind) throw new TokenRefused('WRONG_KIND');
    if (c.expect.purpose !== undefined && t.purpose !== c.expect.purpose) throw new TokenRefused('WRONG_PURPOSE');
    if (c.expect.session_id !== undefined && t.session_id !== c.expect.session_id) throw new TokenRefused('WRONG_SESSION');
    if (Date.parse(t.expires_at) <= now.getTime()) throw new TokenRefused('EXPIRED');
    return [{ type: 'OneUseTokenConsumed', data: { consumed_at: now.toISOString() } }];
  },
};

// --- tenants and their authorities --------------------------------------------------------------------------
export type TenantRole = 'OWNER' | 'TENANT_ADMIN' | 'TENANT_MODERATOR';
export type TenantEvent =
  | { type: 'TenantCreated'; data: { tenant_uuid: string; name: string; owner_profile_uuid: string } }
  | { type: 'TenantAuthorityAssigned'; data: { tenant_uuid: string; profile_uuid: string; role_code: TenantRole; reason: string; assigned_by_profile_uuid: string } };

/**
 * Who may join a tenant by registering into it: INVITATION (the default: only with an invitation its owner or a tenant
 * admin sent to the address) or OPEN (anyone who knows its tenant_uuid, chosen by the owner).
 */
export const JOIN_POLICIES = ['INVITATION', 'OPEN'] as const;
export type JoinPolicy = (typeof JOIN_POLICIES)[number];
export const DEFAULT_JOIN_POLICY: JoinPolicy = 'INVITATION';

/** Joining a tenant: its join policy and its invitations (on the tenant's stream, decided under its revision). */
export type TenantJoinEvent =
  | { type: 'TenantJoinPolicyChanged'; data: { tenant_uuid: string; join_policy: JoinPolicy; previous_join_policy: JoinPolicy; changed_by_profile_uuid: string } }
  | {
      type: 'TenantInvitationIssued';
      /** email: the invited address (personal); token_hash: SHA-256 of the one-use hcti_ token mailed to it (secret). */
      data: { tenant_uuid: string; invitation_uuid: string; email: string; token_hash: string; invited_by_profile_uuid: string; issued_at: string; expires_at: string };
    }
  | { type: 'TenantInvitationRevoked'; data: { tenant_uuid: string; invitation_uuid: string; revoked_by_profile_uuid: string; revoked_at: string } }
  /** Spent by the registration of profile_uuid into the tenant. */
  | { type: 'TenantInvitationAccepted'; data: { tenant_uuid: string; invitation_uuid: string; profile_uuid: string; accepted_at: string } };

export type InvitationStatus = 'PENDING' | 'ACCEPTED' | 'REVOKED';
export interface InvitationState {
  email: string;
  token_hash: string;
  status: InvitationStatus;
  invited_by_profile_uuid: string;
  issued_at: string;
  expires_at: string;
  accepted_profile_uuid: string | null;
  accepted_at: string | null;
  revoked_at: string | null;
}

export interface TenantState {
  exists: boolean;
  roles: Record<string, TenantRole>;
  join_policy: JoinPolicy;
  invitations: Record<string, InvitationState>;
}

/** Who acts on a tenant: their authority there comes from the tenant's state; membership and admin role from the principal. */
export interface TenantActor {
  actor_profile_uuid: string;
  actor_is_platform_admin: boolean;
  /** Whether the actor belongs to the tenant (registered into it): such a member without authority is told 403, not 404. */
  actor_is_member: boolean;
}

export type TenantCommand =
  | { kind: 'CreateTenant'; tenant_uuid: string; name: string; owner_profile_uuid: string }
  | {
      kind: 'AssignTenantAuthority';
      tenant_uuid: string;
      actor_profile_uuid: string;
      actor_is_platform_admin: boolean;
      profile_uuid: string;
      /** Whether the profile belongs to the tenant (identity's IsTenantMember, looked up by the handler). */
      target_is_member: boolean;
      role_code: 'TENANT_ADMIN' | 'TENANT_MODERATOR';
      reason: string;
    }
  | ({ kind: 'SetJoinPolicy'; tenant_uuid: string; join_policy: JoinPolicy; is_global: boolean } & TenantActor)
  | ({ kind: 'InviteToTenant'; tenant_uuid: string; invitation_uuid: string; email: string; token_hash: string; is_global: boolean } & TenantActor)
  | ({ kind: 'RevokeTenantInvitation'; tenant_uuid: string; invitation_uuid: string } & TenantActor)
  | { kind: 'AcceptTenantInvitation'; tenant_uuid: string; invitation_uuid: string; email: string; profile_uuid: string };

/**
 * One answer for "not a member of this tenant" and "no such profile": the caller cannot tell an account of another
 * tenant from one that does not exist (no existence oracle).
 */
export const noSuchTenantMember = (): PlatformError =>
  new PlatformError('NOT_FOUND', 'No such member of this tenant.', { details: [{ field: 'profile_uuid', issue: 'no member of this tenant has this profile_uuid' }] });

/** An invitation that cannot be spent (unknown, used, revoked, expired, for another address): the registration is uninvited. */
export class InvitationRefused extends RuleViolation {
  constructor(readonly reason: 'UNKNOWN' | 'USED' | 'REVOKED' | 'EXPIRED' | 'OTHER_ADDRESS') {
    super('The invitation is invalid, used or expired.', [{ field: 'invitation_token', issue: 'invalid, used or expired' }]);
  }
}

const noSuchTenant = (): PlatformError => new PlatformError('NOT_FOUND', 'No such tenant.');

/**
 * The actor's standing in the tenant, checked before anything else: outsiders learn nothing (404, as for a tenant that
 * does not exist), members without the authority are told no (403).
 */
function requireAuthority(s: TenantState, a: TenantActor, allowed: readonly TenantRole[], what: string): void {
  if (!s.exists) throw noSuchTenant();
  if (a.actor_is_platform_admin) return;
  const role = s.roles[a.actor_profile_uuid];
  if (role && allowed.includes(role)) return;
  if (!role && !a.actor_is_member) throw noSuchTenant();
  throw new PlatformError('FORBIDDEN', `Only ${allowed.includes('TENANT_ADMIN') ? 'the tenant owner or a tenant admin' : 'the tenant owner'} ${what}.`);
}

const globalIsOpen = (field: string): RuleViolation =>
  new RuleViolation('The global tenant is open to every registration: it has no join policy and no invitations.', [{ field, issue: 'not for the global tenant' }]);

/** What a registration into the tenant may do: join (OPEN), join by spending an invitation, or nothing (uninvited). */
export type JoinDecision = { kind: 'OPEN' } | { kind: 'INVITED'; invitation_uuid: string } | { kind: 'UNINVITED'; reason: InvitationRefused['reason'] | 'NO_INVITATION' };

/** The invitation a token hash names, if any (tokens are looked up by their SHA-256 only). */
const invitationByToken = (s: TenantState, token_hash: string): [string, InvitationState] | undefined =>
  Object.entries(s.invitations).find(([, i]) => i.token_hash === token_hash);

function spendable(i: InvitationState | undefined, email: string, now: Date): InvitationRefused['reason'] | null {
  if (!i) return 'UNKNOWN';
  if (i.status === 'ACCEPTED') return 'USED';
  if (i.status === 'REVOKED') return 'REVOKED';
  if (Date.parse(i.expires_at) <= now.getTime()) return 'EXPIRED';
  if (i.email !== email) return 'OTHER_ADDRESS';
  return null;
}

/**
 * Whether a registration of `email` carrying an invitation token (its hash, or null) joins the tenant. A valid
 * invitation is spent whatever the policy; without one, an OPEN tenant still takes the registration.
 */
export function joinDecision(s: TenantState, input: { email: string; token_hash: string | null; now: Date }): JoinDecision {
  const found = input.token_hash === null ? undefined : invitationByToken(s, input.token_hash);
  const refused = input.token_hash === null ? 'NO_INVITATION' : spendable(found?.[1], input.email, input.now);
  if (refused === null) return { kind: 'INVITED', invitation_uuid: found![0] };
  return s.join_policy === 'OPEN' ? { kind: 'OPEN' } : { kind: 'UNINVITED', reason: refused };
}

/** An invitation's status as shown: a pending one past its expiry is EXPIRED. */
export const invitationStatus = (status: InvitationStatus, expires_at: string, now: Date): InvitationStatus | 'EXPIRED' =>
  status === 'PENDING' && Date.parse(expires_at) <= now.getTime() ? 'EXPIRED' : status;

/** An invitation as the API shows it (TenantInvitation): the same fields the read model lists. */
export interface TenantInvitationView {
  invitation_uuid: string;
  tenant_uuid: string;
  email: string;
  status: InvitationStatus | 'EXPIRED';
  invited_by_profile_uuid: string;
  created_at: string;
  expires_at: string;
  accepted_profile_uuid: string | null;
  accepted_at: string | null;
  revoked_at: string | null;
}

export const invitationView = (tenant_uuid: string, invitation_uuid: string, i: InvitationState, now: Date): TenantInvitationView => ({
  invitation_uuid,
  tenant_uuid,
  email: i.email,
  status: invitationStatus(i.status, i.expires_at, now),
  invited_by_profile_uuid: i.invited_by_profile_uuid,
  created_at: i.issued_at,
  expires_at: i.expires_at,
  accepted_profile_uuid: i.accepted_profile_uuid,
  accepted_at: i.accepted_at,
  revoked_at: i.revoked_at,
});

type AnyTenantEvent = TenantEvent | TenantJoinEvent;

function evolveTenant(s: TenantState, e: AnyTenantEvent): TenantState {
  switch (e.type) {
    case 'TenantCreated':
      return { ...s, exists: true, roles: { ...s.roles, [e.data.owner_profile_uuid]: 'OWNER' } };
    case 'TenantAuthorityAssigned':
      return { ...s, roles: { ...s.roles, [e.data.profile_uuid]: e.data.role_code } };
    case 'TenantJoinPolicyChanged':
      return { ...s, join_policy: e.data.join_policy };
    case 'TenantInvitationIssued':
      return {
        ...s,
        invitations: {
          ...s.invitations,
          [e.data.invitation_uuid]: {
            email: e.data.email,
            token_hash: e.data.token_hash,
            status: 'PENDING',
            invited_by_profile_uuid: e.data.invited_by_profile_uuid,
            issued_at: e.data.issued_at,
            expires_at: e.data.expires_at,
            accepted_profile_uuid: null,
            accepted_at: null,
            revoked_at: null,
          },
        },
      };
    case 'TenantInvitationRevoked':
    case 'TenantInvitationAccepted': {
      const i = s.invitations[e.data.invitation_uuid];
      if (!i) return s;
      const next: InvitationState =
        e.type === 'TenantInvitationRevoked' ? { ...i, status: 'REVOKED', revoked_at: e.data.revoked_at } : { ...i, status: 'ACCEPTED', accepted_profile_uuid: e.data.profile_uuid, accepted_at: e.data.accepted_at };
      return { ...s, invitations: { ...s.invitations, [e.data.invitation_uuid]: next } };
    }
  }
}

export const tenantDecider: Decider<TenantCommand, TenantState, AnyTenantEvent> = {
  initialState: () => ({ exists: false, roles: {}, join_policy: DEFAULT_JOIN_POLICY, invitations: {} }),
  evolve: evolveTenant,
  decide: (c, s, { now }) => {
    switch (c.kind) {
      case 'CreateTenant':
        if (s.exists) throw new StateConflict('The tenant exists.');
        return [{ type: 'TenantCreated', data: { tenant_uuid: c.tenant_uuid, name: c.name, owner_profile_uuid: c.owner_profile_uuid } }];
      case 'AssignTenantAuthority': {
        if (!s.exists) throw noSuchTenant();
        const actorRole = s.roles[c.actor_profile_uuid];
        if (!c.actor_is_platform_admin && actorRole !== 'OWNER' && actorRole !== 'TENANT_ADMIN') {
          // Outsiders learn nothing about the tenant; members without authority are told no.
          if (!actorRole) throw noSuchTenant();
          throw new PlatformError('FORBIDDEN', 'Only the tenant owner or a tenant admin assigns authorities.');
        }
        // Authority is given to the tenant's own members only; anyone else looks like a profile that does not exist.
        if (!c.target_is_member) throw noSuchTenantMember();
        if (s.roles[c.profile_uuid] === 'OWNER') throw new RuleViolation('The owner keeps the OWNER role.', [{ field: 'profile_uuid', issue: 'is the tenant owner' }]);
        if (s.roles[c.profile_uuid] === c.role_code) return [];
        return [
          {
            type: 'TenantAuthorityAssigned',
            data: { tenant_uuid: c.tenant_uuid, profile_uuid: c.profile_uuid, role_code: c.role_code, reason: c.reason, assigned_by_profile_uuid: c.actor_profile_uuid },
          },
        ];
      }
      case 'SetJoinPolicy':
        // Opening the tenant to anyone who knows its id is the owner's decision.
        requireAuthority(s, c, ['OWNER'], 'sets who may join the tenant');
        if (c.is_global) throw globalIsOpen('join_policy');
        if (s.join_policy === c.join_policy) return [];
        return [{ type: 'TenantJoinPolicyChanged', data: { tenant_uuid: c.tenant_uuid, join_policy: c.join_policy, previous_join_policy: s.join_policy, changed_by_profile_uuid: c.actor_profile_uuid } }];
      case 'InviteToTenant':
        requireAuthority(s, c, ['OWNER', 'TENANT_ADMIN'], 'invites people into the tenant');
        if (c.is_global) throw globalIsOpen('email');
        if (s.invitations[c.invitation_uuid]) throw new StateConflict('The invitation exists.');
        return [
          {
            type: 'TenantInvitationIssued',
            data: {
              tenant_uuid: c.tenant_uuid,
              invitation_uuid: c.invitation_uuid,
              email: c.email,
              token_hash: c.token_hash,
              invited_by_profile_uuid: c.actor_profile_uuid,
              issued_at: now.toISOString(),
              // From the same instant as issued_at: an invitation lasts exactly INVITATION_TTL_MS.
              expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
            },
          },
        ];
      case 'RevokeTenantInvitation': {
        requireAuthority(s, c, ['OWNER', 'TENANT_ADMIN'], 'revokes invitations');
        const i = s.invitations[c.invitation_uuid];
        if (!i) throw new PlatformError('NOT_FOUND', 'No such invitation.');
        if (i.status === 'REVOKED') return [];
        if (i.status === 'ACCEPTED') throw new StateConflict('The invitation was accepted: the person is a member of the tenant.');
        return [{ type: 'TenantInvitationRevoked', data: { tenant_uuid: c.tenant_uuid, invitation_uuid: c.invitation_uuid, revoked_by_profile_uuid: c.actor_profile_uuid, revoked_at: now.toISOString() } }];
      }
      case 'AcceptTenantInvitation': {
        const i = s.invitations[c.invitation_uuid];
        // A registration that stopped after spending it and is finished later spends it again: nothing new.
        if (i?.status === 'ACCEPTED' && i.accepted_profile_uuid === c.profile_uuid) return [];
        const refused = spendable(i, c.email, now);
        if (refused) throw new InvitationRefused(refused);
        return [{ type: 'TenantInvitationAccepted', data: { tenant_uuid: c.tenant_uuid, invitation_uuid: c.invitation_uuid, profile_uuid: c.profile_uuid, accepted_at: now.toISOString() } }];
      }
    }
  },
};
