/**
 * The account aggregate (stream identity-account-<profile_uuid>): registration, activation, login outcomes,
 * authenticator, contact, closure and the active workspace. Pure: the handler verifies passwords and TOTP codes
 * (slow or keyed work) and passes the outcome in; tokens arrive as hashes only.
 */
import { RuleViolation, StateConflict, PlatformError } from '../../../platform/errors';
import type { Decider } from '../../../platform/command/decider';

export type AccountType = 'personal' | 'corporate';
export type AccountStatus = 'NONE' | 'PENDING_ACTIVATION' | 'ACTIVE' | 'CLOSED';
export type ClosureStatus = 'SCHEDULED' | 'CANCELLED' | 'COMPLETED';
export type ContactType = 'email' | 'phone';
export interface Device {
  name: string;
  platform: string;
}

export type AccountEvent =
  | {
      type: 'AccountRegistered';
      data: {
        profile_uuid: string;
        registration_id: string;
        client_id: string;
        tenant_uuid: string;
        account_type: AccountType;
        email: string;
        first_name: string | null;
        middle_name: string | null;
        last_name: string | null;
        company_name: string | null;
        password_hash: string;
        terms_version: string;
        platform_role: 'ADMIN' | null;
        /** The tenant invitation the registration spent (absent on registrations without one, and before invitations). */
        invitation_uuid?: string | null;
      };
    }
  | { type: 'ActivationIssued'; data: { token_hash: string; channel: string; expires_at: string } }
  | { type: 'AccountActivated'; data: { activated_at: string } }
  | { type: 'LoginFailed'; data: { reason: 'BAD_PASSWORD' | 'TOTP_REQUIRED' | 'BAD_TOTP' | 'NOT_ACTIVE'; device: Device; authentication_method: string } }
  | { type: 'TotpCodeAccepted'; data: { step: number } }
  | { type: 'SessionsRevoked'; data: { reason: string; revoked_at: string } }
  | { type: 'AuthenticatorEnrollmentStarted'; data: { enrollment_id: string; session_id: string; secret_sealed: string; issuer: string; label: string; expires_at: string } }
  | { type: 'AuthenticatorEnrolled'; data: { enrollment_id: string; session_id: string; recovery_code_hashes: string[] } }
  | { type: 'RecoveryCodeUsed'; data: { code_hash: string } }
  | { type: 'AuthenticatorDisabled'; data: { method: 'RECOVERY_CODE' | 'STEP_UP'; session_id: string } }
  | { type: 'ContactChangeRequested'; data: { contact_type: ContactType; target: string; target_hint: string; token_hash: string; expires_at: string } }
  | { type: 'ContactChanged'; data: { contact_type: ContactType; value: string } }
  | { type: 'ClosureRequested'; data: { request_uuid: string; reason_code: string; requested_at: string; scheduled_for: string } }
  | { type: 'ClosureCancelled'; data: { request_uuid: string; cancelled_at: string } }
  | { type: 'ClosureCompleted'; data: { request_uuid: string; completed_at: string } }
  | { type: 'ActiveWorkspaceSelected'; data: { workspace_id: string | null } }
  | { type: 'TenantCreationClaimed'; data: { tenant_uuid: string } }
  /**
   * A closed account's personal data erased (GDPR Art. 17): its key was destroyed before this was appended, so every
   * sealed value of the person reads as erased from here on; read models scrub what they hold of the person.
   */
  | { type: 'AccountErased'; data: { profile_uuid: string; reason_code: string; erased_at: string; erased_by_profile_uuid: string; keys_destroyed: number } };

export interface ClosureState {
  request_uuid: string;
  status: ClosureStatus;
  reason_code: string;
  requested_at: string;
  scheduled_for: string;
  cancelled_at: string | null;
  completed_at: string | null;
}

export interface AccountState {
  status: AccountStatus;
  profile_uuid: string;
  registration_id: string;
  client_id: string;
  tenant_uuid: string;
  email: string;
  email_verified: boolean;
  phone: string | null;
  phone_verified: boolean;
  password_hash: string;
  platform_role: 'ADMIN' | null;
  activation: { token_hash: string; expires_at: string } | null;
  totp: { enabled: boolean; secret_sealed: string | null; last_step: number; recovery_code_hashes: string[] };
  enrollment: { enrollment_id: string; session_id: string; secret_sealed: string; expires_at: string } | null;
  contact_change: { contact_type: ContactType; target: string; target_hint: string; token_hash: string; expires_at: string } | null;
  closure: ClosureState | null;
  active_workspace_id: string | null;
  /** Tenants this account has created (claimed under its revision, so a limit holds under concurrency). */
  tenants_created: number;
  /** When its personal data was erased (AccountErased); null before. */
  erased_at: string | null;
  /** The tenant invitation its registration spent: the invited address is erased with the account. */
  invitation_uuid: string | null;
}

export type AccountCommand =
  | { kind: 'RegisterAccount'; registered: Extract<AccountEvent, { type: 'AccountRegistered' }>['data']; activation: { token_hash: string; channel: string; expires_at: string } | null }
  | { kind: 'ActivateAccount'; token_hash: string }
  | { kind: 'AuthenticateLogin'; password_ok: boolean; totp_supplied: boolean; totp_step: number | null; device: Device }
  | { kind: 'RevokeAllSessions'; reason: string }
  | { kind: 'StartEnrollment'; enrollment_id: string; session_id: string; secret_sealed: string; issuer: string; label: string }
  | { kind: 'ConfirmEnrollment'; enrollment_id: string; session_id: string; totp_step: number | null; recovery_code_hashes: string[] }
  | { kind: 'DisableAuthenticator'; method: 'RECOVERY_CODE' | 'STEP_UP'; session_id: string; recovery_code_hash?: string }
  | { kind: 'RequestContactChange'; contact_type: ContactType; target: string; target_hint: string; token_hash: string; expires_at: string }
  | { kind: 'ConfirmContactChange'; token_hash: string }
  | { kind: 'RequestClosure'; request_uuid: string; reason_code: string; grace_ms: number }
  | { kind: 'CancelClosure' }
  | { kind: 'CompleteClosure' }
  | { kind: 'EraseAccount'; reason_code: string; erased_by_profile_uuid: string; keys_destroyed: number }
  | { kind: 'SelectActiveWorkspace'; workspace_id: string | null }
  | { kind: 'ClaimTenantCreation'; tenant_uuid: string; policy: TenantCreationPolicy; limit: number; is_platform_admin: boolean };

/** Who may create tenants (TENANT_CREATION): any account up to a limit, or platform admins only. */
export type TenantCreationPolicy = 'self-service' | 'admin-only';

export const initialAccount = (): AccountState => ({
  status: 'NONE',
  profile_uuid: '',
  registration_id: '',
  client_id: '',
  tenant_uuid: '',
  email: '',
  email_verified: false,
  phone: null,
  phone_verified: false,
  password_hash: '',
  platform_role: null,
  activation: null,
  totp: { enabled: false, secret_sealed: null, last_step: -1, recovery_code_hashes: [] },
  enrollment: null,
  contact_change: null,
  closure: null,
  active_workspace_id: null,
  tenants_created: 0,
  erased_at: null,
  invitation_uuid: null,
});

export function evolveAccount(s: AccountState, e: AccountEvent): AccountState {
  switch (e.type) {
    case 'AccountRegistered':
      return {
        ...s,
        status: 'PENDING_ACTIVATION',
        profile_uuid: e.data.profile_uuid,
        registration_id: e.data.registration_id,
        client_id: e.data.client_id,
        tenant_uuid: e.data.tenant_uuid,
        email: e.data.email,
        password_hash: e.data.password_hash,
        platform_role: e.data.platform_role,
        invitation_uuid: e.data.invitation_uuid ?? null,
      };
    case 'ActivationIssued':
      return { ...s, activation: { token_hash: e.data.token_hash, expires_at: e.data.expires_at } };
    case 'AccountActivated':
      return { ...s, status: 'ACTIVE', email_verified: true, activation: null };
    case 'LoginFailed':
    case 'SessionsRevoked':
      return s;
    case 'TotpCodeAccepted':
      return { ...s, totp: { ...s.totp, last_step: Math.max(s.totp.last_step, e.data.step) } };
    case 'AuthenticatorEnrollmentStarted':
      return { ...s, enrollment: { enrollment_id: e.data.enrollment_id, session_id: e.data.session_id, secret_sealed: e.data.secret_sealed, expires_at: e.data.expires_at } };
    case 'AuthenticatorEnrolled':
      return { ...s, totp: { ...s.totp, enabled: true, secret_sealed: s.enrollment?.secret_sealed ?? null, recovery_code_hashes: e.data.recovery_code_hashes }, enrollment: null };
    case 'RecoveryCodeUsed':
      return { ...s, totp: { ...s.totp, recovery_code_hashes: s.totp.recovery_code_hashes.filter((h) => h !== e.data.code_hash) } };
    case 'AuthenticatorDisabled':
      return { ...s, totp: { enabled: false, secret_sealed: null, last_step: s.totp.last_step, recovery_code_hashes: [] } };
    case 'ContactChangeRequested':
      return { ...s, contact_change: { ...e.data } };
    case 'ContactChanged':
      return e.data.contact_type === 'email'
        ? { ...s, email: e.data.value, email_verified: true, contact_change: null }
        : { ...s, phone: e.data.value, phone_verified: true, contact_change: null };
    case 'ClosureRequested':
      return { ...s, closure: { ...e.data, status: 'SCHEDULED', cancelled_at: null, completed_at: null } };
    case 'ClosureCancelled':
      return { ...s, closure: s.closure && { ...s.closure, status: 'CANCELLED', cancelled_at: e.data.cancelled_at } };
    case 'ClosureCompleted':
      return { ...s, status: 'CLOSED', closure: s.closure && { ...s.closure, status: 'COMPLETED', completed_at: e.data.completed_at } };
    case 'ActiveWorkspaceSelected':
      return { ...s, active_workspace_id: e.data.workspace_id };
    case 'TenantCreationClaimed':
      return { ...s, tenants_created: s.tenants_created + 1 };
    case 'AccountErased':
      return { ...s, erased_at: e.data.erased_at };
  }
}

const requireActive = (s: AccountState): void => {
  if (s.status !== 'ACTIVE') throw new StateConflict(`The account is ${s.status === 'NONE' ? 'unknown' : s.status.toLowerCase()}.`);
};

export const accountDecider: Decider<AccountCommand, AccountState, AccountEvent> = {
  initialState: initialAccount,
  evolve: evolveAccount,
  decide(c, s, { now }) {
    const at = now.toISOString();
    switch (c.kind) {
      case 'RegisterAccount': {
        if (s.status !== 'NONE') throw new StateConflict('The account exists.');
        const events: AccountEvent[] = [{ type: 'AccountRegistered', data: c.registered }];
        if (c.activation) events.push({ type: 'ActivationIssued', data: c.activation });
        else events.push({ type: 'AccountActivated', data: { activated_at: at } });
        return events;
      }
      case 'ActivateAccount': {
        if (s.status === 'ACTIVE' || !s.activation || s.activation.token_hash !== c.token_hash) {
          throw new RuleViolation('The activation token is invalid or was used.', [{ field: 'token', issue: 'invalid or used' }]);
        }
        if (Date.parse(s.activation.expires_at) <= now.getTime()) {
          throw new RuleViolation('The activation token has expired.', [{ field: 'token', issue: 'expired' }]);
        }
        return [{ type: 'AccountActivated', data: { activated_at: at } }];
      }
      case 'AuthenticateLogin': {
        const method = s.totp.enabled ? 'PASSWORD_TOTP' : 'PASSWORD';
        const fail = (reason: Extract<AccountEvent, { type: 'LoginFailed' }>['data']['reason']): AccountEvent[] => [
          { type: 'LoginFailed', data: { reason, device: c.device, authentication_method: method } },
        ];
        if (!c.password_ok) return fail('BAD_PASSWORD');
        if (s.status !== 'ACTIVE') return fail('NOT_ACTIVE');
        if (!s.totp.enabled) return [];
        if (!c.totp_supplied) return fail('TOTP_REQUIRED');
        // A code is accepted once: its time step must be newer than the last accepted one.
        if (c.totp_step === null || c.totp_step <= s.totp.last_step) return fail('BAD_TOTP');
        return [{ type: 'TotpCodeAccepted', data: { step: c.totp_step } }];
      }
      case 'RevokeAllSessions':
        return [{ type: 'SessionsRevoked', data: { reason: c.reason, revoked_at: at } }];
      case 'StartEnrollment':
        requireActive(s);
        if (s.totp.enabled) throw new StateConflict('An authenticator is already enrolled; disable it first.');
        return [
          {
            type: 'AuthenticatorEnrollmentStarted',
            data: { enrollment_id: c.enrollment_id, session_id: c.session_id, secret_sealed: c.secret_sealed, issuer: c.issuer, label: c.label, expires_at: new Date(now.getTime() + 600_000).toISOString() },
          },
        ];
      case 'ConfirmEnrollment': {
        requireActive(s);
        const e = s.enrollment;
        if (!e || e.enrollment_id !== c.enrollment_id || e.session_id !== c.session_id) throw new PlatformError('NOT_FOUND', 'No such enrollment for this session.');
        if (Date.parse(e.expires_at) <= now.getTime()) throw new RuleViolation('The enrollment has expired; start a new one.', [{ field: 'enrollment_id', issue: 'expired' }]);
        if (c.totp_step === null || c.totp_step <= s.totp.last_step) throw new RuleViolation('The code is not valid.', [{ field: 'code', issue: 'invalid or already used' }]);
        return [
          { type: 'AuthenticatorEnrolled', data: { enrollment_id: c.enrollment_id, session_id: c.session_id, recovery_code_hashes: c.recovery_code_hashes } },
          { type: 'TotpCodeAccepted', data: { step: c.totp_step } },
        ];
      }
      case 'DisableAuthenticator': {
        requireActive(s);
        if (!s.totp.enabled) throw new StateConflict('No authenticator is enrolled.');
        const events: AccountEvent[] = [];
        if (c.method === 'RECOVERY_CODE') {
          if (!c.recovery_code_hash || !s.totp.recovery_code_hashes.includes(c.recovery_code_hash)) {
            throw new RuleViolation('The recovery code is not valid.', [{ field: 'recovery_code', issue: 'invalid or already used' }]);
          }
          events.push({ type: 'RecoveryCodeUsed', data: { code_hash: c.recovery_code_hash } });
        }
        events.push({ type: 'AuthenticatorDisabled', data: { method: c.method, session_id: c.session_id } }, { type: 'SessionsRevoked', data: { reason: 'AUTHENTICATOR_DISABLED', revoked_at: at } });
        return events;
      }
      case 'RequestContactChange':
        requireActive(s);
        return [{ type: 'ContactChangeRequested', data: { contact_type: c.contact_type, target: c.target, target_hint: c.target_hint, token_hash: c.token_hash, expires_at: c.expires_at } }];
      case 'ConfirmContactChange': {
        requireActive(s);
        const p = s.contact_change;
        if (!p || p.token_hash !== c.token_hash) throw new RuleViolation('The confirmation token is invalid or was used.', [{ field: 'token', issue: 'invalid or used' }]);
        if (Date.parse(p.expires_at) <= now.getTime()) throw new RuleViolation('The confirmation token has expired.', [{ field: 'token', issue: 'expired' }]);
        return [
          { type: 'ContactChanged', data: { contact_type: p.contact_type, value: p.target } },
          { type: 'SessionsRevoked', data: { reason: 'CONTACT_CHANGED', revoked_at: at } },
        ];
      }
      case 'RequestClosure':
        requireActive(s);
        if (s.closure?.status === 'SCHEDULED') throw new StateConflict('A closure is already scheduled.');
        return [
          {
            type: 'ClosureRequested',
            data: { request_uuid: c.request_uuid, reason_code: c.reason_code, requested_at: at, scheduled_for: new Date(now.getTime() + c.grace_ms).toISOString() },
          },
        ];
      case 'CancelClosure':
        if (s.closure?.status !== 'SCHEDULED') throw new StateConflict('No closure is scheduled.');
        return [{ type: 'ClosureCancelled', data: { request_uuid: s.closure.request_uuid, cancelled_at: at } }];
      case 'CompleteClosure':
        if (s.closure?.status !== 'SCHEDULED' || Date.parse(s.closure.scheduled_for) > now.getTime()) return [];
        return [
          { type: 'ClosureCompleted', data: { request_uuid: s.closure.request_uuid, completed_at: at } },
          { type: 'SessionsRevoked', data: { reason: 'ACCOUNT_CLOSED', revoked_at: at } },
        ];
      case 'EraseAccount':
        if (s.status === 'NONE') throw new PlatformError('NOT_FOUND', 'No such account.');
        if (s.erased_at) throw new StateConflict('The account is already erased.');
        if (s.status !== 'CLOSED') throw new RuleViolation('Only a closed account can be erased: its closure must have completed.', [{ field: 'profile_uuid', issue: `the account is ${s.status}` }]);
        return [{ type: 'AccountErased', data: { profile_uuid: s.profile_uuid, reason_code: c.reason_code, erased_at: at, erased_by_profile_uuid: c.erased_by_profile_uuid, keys_destroyed: c.keys_destroyed } }];
      case 'SelectActiveWorkspace':
        requireActive(s);
        return [{ type: 'ActiveWorkspaceSelected', data: { workspace_id: c.workspace_id } }];
      case 'ClaimTenantCreation':
        requireActive(s);
        if (!c.is_platform_admin) {
          if (c.policy === 'admin-only') throw new PlatformError('FORBIDDEN', 'Tenants are created by platform admins on this platform.');
          if (s.tenants_created >= c.limit) {
            // A business rule about the caller's account, not about the request's fields: 422 without field details.
            throw new RuleViolation(`This account has created ${s.tenants_created} tenants, the most an account may create (${c.limit}).`, []);
          }
        }
        return [{ type: 'TenantCreationClaimed', data: { tenant_uuid: c.tenant_uuid } }];
    }
  },
};
