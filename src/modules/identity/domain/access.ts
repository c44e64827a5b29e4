/**
 * The smaller identity aggregates: the email claim (uniqueness), sessions, one-use tokens (step-up, activation,
 * contact change), tenants with their authorities (workspaces: workspace.ts). Pure decide/evolve.
 */
import type { Decider } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import type { Device } from './account';

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

export interface TenantState {
  exists: boolean;
  roles: Record<string, TenantRole>;
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
    };

/**
 * One answer for "not a member of this tenant" and "no such profile": the caller cannot tell an account of another
 * tenant from one that does not exist (no existence oracle).
 */
export const noSuchTenantMember = (): PlatformError =>
  new PlatformError('NOT_FOUND', 'No such member of this tenant.', { details: [{ field: 'profile_uuid', issue: 'no member of this tenant has this profile_uuid' }] });

export const tenantDecider: Decider<TenantCommand, TenantState, TenantEvent> = {
  initialState: () => ({ exists: false, roles: {} }),
  evolve: (s, e) =>
    e.type === 'TenantCreated'
      ? { exists: true, roles: { ...s.roles, [e.data.owner_profile_uuid]: 'OWNER' } }
      : { ...s, roles: { ...s.roles, [e.data.profile_uuid]: e.data.role_code } },
  decide: (c, s) => {
    if (c.kind === 'CreateTenant') {
      if (s.exists) throw new StateConflict('The tenant exists.');
      return [{ type: 'TenantCreated', data: { tenant_uuid: c.tenant_uuid, name: c.name, owner_profile_uuid: c.owner_profile_uuid } }];
    }
    if (!s.exists) throw new PlatformError('NOT_FOUND', 'No such tenant.');
    const actorRole = s.roles[c.actor_profile_uuid];
    if (!c.actor_is_platform_admin && actorRole !== 'OWNER' && actorRole !== 'TENANT_ADMIN') {
      // Outsiders learn nothing about the tenant; members without authority are told no.
      if (!actorRole) throw new PlatformError('NOT_FOUND', 'No such tenant.');
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
  },
};
