/**
 * The privacy class of every field of identity's events (src/platform/privacy/field-classes.ts, docs/privacy.md).
 * Contact details, names, devices and contact targets are personal; every hash of a password, token or recovery code
 * and the sealed TOTP secret are secret; the rest is the platform's own facts.
 */
import { declareEventClasses, type SubjectRule } from '../../../platform/privacy/field-classes';
import { ACCOUNT_STREAM_PREFIX } from './identity.constants';
import type { AccountEvent } from './account';
import type { EmailClaimEvent, OneUseTokenEvent, SessionEvent, TenantEvent, TenantJoinEvent } from './access';
import type { WorkspaceEvent } from './workspace';

/** An account's events are the account holder's: sealed under the key of the profile the stream belongs to. */
const ACCOUNT_HOLDER: SubjectRule = (e) => (e.stream.startsWith(ACCOUNT_STREAM_PREFIX) ? e.stream.slice(ACCOUNT_STREAM_PREFIX.length) : e.metadata.actor.reference);
/**
 * An invitation's events are the invited person's, who may have no account: sealed under a key of the invitation's
 * own (`invitation:<uuid>`), destroyed when the invitation is revoked or when the account that accepted it is erased.
 */
const INVITEE: SubjectRule = (e) => (e.data.invitation_uuid ? invitationSubject(String(e.data.invitation_uuid)) : e.metadata.actor.reference);
/** The data subject whose key seals an invitation's address (and token hash). */
export const invitationSubject = (invitation_uuid: string): string => `invitation:${invitation_uuid}`;
/** A session's events are its account holder's. */
const SESSION_HOLDER: SubjectRule = (e) => String(e.data.profile_uuid);

export const ACCOUNT_EVENT_CLASSES = declareEventClasses<AccountEvent>('identity', {
  AccountRegistered: {
    profile_uuid: 'internal', registration_id: 'internal', client_id: 'internal', tenant_uuid: 'internal', account_type: 'internal',
    email: 'personal', first_name: 'personal', middle_name: 'personal', last_name: 'personal', company_name: 'personal',
    password_hash: 'secret', terms_version: 'internal', platform_role: 'internal', invitation_uuid: 'internal',
  },
  ActivationIssued: { token_hash: 'secret', channel: 'internal', expires_at: 'internal' },
  AccountActivated: { activated_at: 'internal' },
  LoginFailed: { reason: 'internal', device: 'personal', authentication_method: 'internal' },
  TotpCodeAccepted: { step: 'internal' },
  // reason: a code the platform sets (CONTACT_CHANGED, AUTHENTICATOR_DISABLED…), never a person's words.
  SessionsRevoked: { reason: 'internal', revoked_at: 'internal' },
  // label: what the authenticator app shows, by default the account's email.
  AuthenticatorEnrollmentStarted: { enrollment_id: 'internal', session_id: 'internal', secret_sealed: 'secret', issuer: 'internal', label: 'personal', expires_at: 'internal' },
  AuthenticatorEnrolled: { enrollment_id: 'internal', session_id: 'internal', recovery_code_hashes: 'secret' },
  RecoveryCodeUsed: { code_hash: 'secret' },
  AuthenticatorDisabled: { method: 'internal', session_id: 'internal' },
  ContactChangeRequested: { contact_type: 'internal', target: 'personal', target_hint: 'personal', token_hash: 'secret', expires_at: 'internal' },
  ContactChanged: { contact_type: 'internal', value: 'personal' },
  ClosureRequested: { request_uuid: 'internal', reason_code: 'internal', requested_at: 'internal', scheduled_for: 'internal' },
  ClosureCancelled: { request_uuid: 'internal', cancelled_at: 'internal' },
  ClosureCompleted: { request_uuid: 'internal', completed_at: 'internal' },
  ActiveWorkspaceSelected: { workspace_id: 'internal' },
  TenantCreationClaimed: { tenant_uuid: 'internal' },
  AccountErased: { profile_uuid: 'internal', reason_code: 'internal', erased_at: 'internal', erased_by_profile_uuid: 'internal', keys_destroyed: 'internal' },
}, { subject: ACCOUNT_HOLDER });

export const ACCESS_EVENT_CLASSES = {
  emailClaims: declareEventClasses<EmailClaimEvent>('identity', {
    EmailClaimed: { profile_uuid: 'internal' },
    EmailReleased: { profile_uuid: 'internal' },
    RegistrationAttempted: {},
  }),
  sessions: declareEventClasses<SessionEvent>('identity', {
    SessionStarted: { session_id: 'internal', profile_uuid: 'internal', tenant_uuid: 'internal', token_hash: 'secret', authentication_method: 'internal', device: 'personal', expires_at: 'internal' },
    // reason: LOGOUT or REVOKED_BY_USER.
    SessionRevoked: { session_id: 'internal', profile_uuid: 'internal', reason: 'internal', revoked_at: 'internal' },
  }, { subject: SESSION_HOLDER }),
  oneUseTokens: declareEventClasses<OneUseTokenEvent>('identity', {
    OneUseTokenIssued: { kind: 'internal', purpose: 'internal', profile_uuid: 'internal', session_id: 'internal', expires_at: 'internal', authentication_method: 'internal' },
    OneUseTokenConsumed: { consumed_at: 'internal' },
    OneUseTokenReleased: { released_at: 'internal' },
  }),
  tenants: declareEventClasses<TenantEvent>('identity', {
    TenantCreated: { tenant_uuid: 'internal', name: 'internal', owner_profile_uuid: 'internal' },
    // reason: the words of the person who assigned the role.
    TenantAuthorityAssigned: { tenant_uuid: 'internal', profile_uuid: 'internal', role_code: 'internal', reason: 'personal', assigned_by_profile_uuid: 'internal' },
  }),
  // Joining a tenant: the invited address is the invitee's (personal, like every email identity keeps), the token's hash
  // secret; the rest are the platform's facts.
  tenantJoins: declareEventClasses<TenantJoinEvent>('identity', {
    TenantJoinPolicyChanged: { tenant_uuid: 'internal', join_policy: 'internal', previous_join_policy: 'internal', changed_by_profile_uuid: 'internal' },
    TenantInvitationIssued: { tenant_uuid: 'internal', invitation_uuid: 'internal', email: 'personal', token_hash: 'secret', invited_by_profile_uuid: 'internal', issued_at: 'internal', expires_at: 'internal' },
    TenantInvitationRevoked: { tenant_uuid: 'internal', invitation_uuid: 'internal', revoked_by_profile_uuid: 'internal', revoked_at: 'internal' },
    TenantInvitationAccepted: { tenant_uuid: 'internal', invitation_uuid: 'internal', profile_uuid: 'internal', accepted_at: 'internal' },
  }, { subject: INVITEE }),
};

export const WORKSPACE_EVENT_CLASSES = declareEventClasses<WorkspaceEvent>('identity', {
  WorkspaceCreated: { workspace_uuid: 'internal', tenant_uuid: 'internal', name: 'internal', owner_profile_uuid: 'internal' },
  WorkspaceMemberAdded: { workspace_uuid: 'internal', profile_uuid: 'internal', role: 'internal', added_by_profile_uuid: 'internal' },
  WorkspaceMemberRoleChanged: { workspace_uuid: 'internal', profile_uuid: 'internal', role: 'internal', previous_role: 'internal', changed_by_profile_uuid: 'internal' },
  WorkspaceMemberRemoved: { workspace_uuid: 'internal', profile_uuid: 'internal', role: 'internal', removed_by_profile_uuid: 'internal' },
  WorkspaceMemberLeft: { workspace_uuid: 'internal', profile_uuid: 'internal', role: 'internal' },
});
