/** Identity's pure rules, given/when/then: events in, a command, events (or a refusal) out. */
import { accountDecider, type AccountCommand, type AccountEvent } from '../../src/modules/identity/domain/account';
import {
  emailClaimDecider,
  InvitationRefused,
  invitationStatus,
  joinDecision,
  oneUseTokenDecider,
  TokenRefused,
  tenantDecider,
  sessionDecider,
  type OneUseTokenEvent,
  type TenantEvent,
  type TenantJoinEvent,
} from '../../src/modules/identity/domain/access';
import { fold } from '../../src/platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../src/platform/errors';

const now = new Date('2026-11-22T10:00:00.000Z');
const ctx = { now, newId: () => 'f'.repeat(32) };
const device = { name: 'Firefox 120', platform: 'Linux' };

const given = (events: AccountEvent[]) => ({ when: (c: AccountCommand) => () => accountDecider.decide(c, fold(accountDecider, events), ctx) });

const registered: AccountEvent = {
  type: 'AccountRegistered',
  data: {
    profile_uuid: 'p1', registration_id: 'r1', client_id: 'c1', tenant_uuid: '0'.repeat(32), account_type: 'personal', email: 'ada@example.com',
    first_name: 'Ada', middle_name: null, last_name: 'Lovelace', company_name: null, password_hash: 'scrypt$…', terms_version: '1', platform_role: null,
  },
};
const issued: AccountEvent = { type: 'ActivationIssued', data: { token_hash: 'h1', channel: 'email', expires_at: '2026-11-23T10:00:00.000Z' } };
const activated: AccountEvent = { type: 'AccountActivated', data: { activated_at: now.toISOString() } };
const enrolled: AccountEvent[] = [
  { type: 'AuthenticatorEnrollmentStarted', data: { enrollment_id: 'e1', session_id: 's1', secret_sealed: 'v1.x', issuer: 'P', label: 'P', expires_at: '2026-11-22T10:10:00.000Z' } },
  { type: 'AuthenticatorEnrolled', data: { enrollment_id: 'e1', session_id: 's1', recovery_code_hashes: ['rc1', 'rc2'] } },
  { type: 'TotpCodeAccepted', data: { step: 100 } },
];

describe('account: activation', () => {
  it('activates with the issued token before it expires, once', () => {
    expect(given([registered, issued]).when({ kind: 'ActivateAccount', token_hash: 'h1' })()).toEqual([{ type: 'AccountActivated', data: { activated_at: now.toISOString() } }]);
    expect(given([registered, issued, activated]).when({ kind: 'ActivateAccount', token_hash: 'h1' })).toThrow(RuleViolation);
    expect(given([registered, issued]).when({ kind: 'ActivateAccount', token_hash: 'other' })).toThrow(RuleViolation);
    const expired: AccountEvent = { type: 'ActivationIssued', data: { token_hash: 'h1', channel: 'email', expires_at: '2026-11-22T09:59:59.000Z' } };
    expect(given([registered, expired]).when({ kind: 'ActivateAccount', token_hash: 'h1' })).toThrow(/expired/);
  });
});

describe('account: login', () => {
  const login = (over: Partial<Extract<AccountCommand, { kind: 'AuthenticateLogin' }>> = {}): AccountCommand => ({ kind: 'AuthenticateLogin', password_ok: true, totp_supplied: false, totp_step: null, device, ...over });
  it('records a failure for a wrong password or an inactive account, nothing for a plain success', () => {
    expect(given([registered, issued, activated]).when(login())()).toEqual([]);
    expect(given([registered, issued, activated]).when(login({ password_ok: false }))()).toMatchObject([{ type: 'LoginFailed', data: { reason: 'BAD_PASSWORD' } }]);
    expect(given([registered, issued]).when(login())()).toMatchObject([{ type: 'LoginFailed', data: { reason: 'NOT_ACTIVE' } }]);
  });
  it('once enrolled, needs a TOTP code of a newer step than the last accepted one (no replay)', () => {
    const history = [registered, issued, activated, ...enrolled];
    expect(given(history).when(login())()).toMatchObject([{ type: 'LoginFailed', data: { reason: 'TOTP_REQUIRED' } }]);
    expect(given(history).when(login({ totp_supplied: true, totp_step: 100 }))()).toMatchObject([{ type: 'LoginFailed', data: { reason: 'BAD_TOTP' } }]);
    expect(given(history).when(login({ totp_supplied: true, totp_step: null }))()).toMatchObject([{ type: 'LoginFailed', data: { reason: 'BAD_TOTP' } }]);
    expect(given(history).when(login({ totp_supplied: true, totp_step: 101 }))()).toEqual([{ type: 'TotpCodeAccepted', data: { step: 101 } }]);
  });
});

describe('account: authenticator', () => {
  const active = [registered, issued, activated];
  it('confirms only the session-bound, unexpired enrollment with a valid code', () => {
    const started = [...active, enrolled[0]];
    const confirm = (over: Partial<Extract<AccountCommand, { kind: 'ConfirmEnrollment' }>> = {}): AccountCommand => ({ kind: 'ConfirmEnrollment', enrollment_id: 'e1', session_id: 's1', totp_step: 7, recovery_code_hashes: ['a'], ...over });
    expect(given(started).when(confirm())()).toMatchObject([{ type: 'AuthenticatorEnrolled' }, { type: 'TotpCodeAccepted', data: { step: 7 } }]);
    expect(given(started).when(confirm({ session_id: 's2' }))).toThrow(PlatformError);
    expect(given(started).when(confirm({ totp_step: null }))).toThrow(RuleViolation);
    expect(() => accountDecider.decide(confirm(), fold(accountDecider, started), { ...ctx, now: new Date('2026-11-22T10:10:01.000Z') })).toThrow(/expired/);
  });
  it('disables with an unused recovery code and revokes every session', () => {
    const history = [...active, ...enrolled];
    expect(given(history).when({ kind: 'DisableAuthenticator', method: 'RECOVERY_CODE', session_id: 's1', recovery_code_hash: 'rc2' })()).toMatchObject([
      { type: 'RecoveryCodeUsed', data: { code_hash: 'rc2' } },
      { type: 'AuthenticatorDisabled', data: { method: 'RECOVERY_CODE' } },
      { type: 'SessionsRevoked', data: { reason: 'AUTHENTICATOR_DISABLED' } },
    ]);
    const used: AccountEvent = { type: 'RecoveryCodeUsed', data: { code_hash: 'rc2' } };
    expect(given([...history, used]).when({ kind: 'DisableAuthenticator', method: 'RECOVERY_CODE', session_id: 's1', recovery_code_hash: 'rc2' })).toThrow(RuleViolation);
    expect(given(active).when({ kind: 'DisableAuthenticator', method: 'STEP_UP', session_id: 's1' })).toThrow(StateConflict);
  });
});

describe('account: closure', () => {
  const active = [registered, issued, activated];
  it('schedules after the grace period, cancels, and completes only when due', () => {
    const [requested] = given(active).when({ kind: 'RequestClosure', request_uuid: 'q1', reason_code: 'USER_REQUESTED', grace_ms: 14 * 86400_000 })();
    expect(requested).toEqual({ type: 'ClosureRequested', data: { request_uuid: 'q1', reason_code: 'USER_REQUESTED', requested_at: now.toISOString(), scheduled_for: '2026-12-06T10:00:00.000Z' } });
    const scheduled = [...active, requested];
    expect(given(scheduled).when({ kind: 'RequestClosure', request_uuid: 'q2', reason_code: 'X', grace_ms: 0 })).toThrow(StateConflict);
    expect(given(scheduled).when({ kind: 'CompleteClosure' })()).toEqual([]);
    expect(given(scheduled).when({ kind: 'CancelClosure' })()).toMatchObject([{ type: 'ClosureCancelled' }]);
    const due: AccountEvent = { type: 'ClosureRequested', data: { request_uuid: 'q1', reason_code: 'X', requested_at: '2026-11-01T00:00:00.000Z', scheduled_for: '2026-11-15T00:00:00.000Z' } };
    expect(given([...active, due]).when({ kind: 'CompleteClosure' })()).toMatchObject([{ type: 'ClosureCompleted' }, { type: 'SessionsRevoked', data: { reason: 'ACCOUNT_CLOSED' } }]);
    const closed = fold(accountDecider, [...active, due, { type: 'ClosureCompleted', data: { request_uuid: 'q1', completed_at: now.toISOString() } }]);
    expect(closed.status).toBe('CLOSED');
    expect(accountDecider.decide({ kind: 'AuthenticateLogin', password_ok: true, totp_supplied: false, totp_step: null, device }, closed, ctx)).toMatchObject([{ type: 'LoginFailed', data: { reason: 'NOT_ACTIVE' } }]);
  });
});

describe('account: erasure', () => {
  const active = [registered, issued, activated];
  const due: AccountEvent = { type: 'ClosureRequested', data: { request_uuid: 'q1', reason_code: 'X', requested_at: '2026-11-01T00:00:00.000Z', scheduled_for: '2026-11-15T00:00:00.000Z' } };
  const closed = [...active, due, { type: 'ClosureCompleted', data: { request_uuid: 'q1', completed_at: now.toISOString() } } as AccountEvent];
  const erase = { kind: 'EraseAccount', reason_code: 'DATA_SUBJECT_REQUEST', erased_by_profile_uuid: 'admin', keys_destroyed: 1 } as const;

  it('erases a closed account once, recording who, why and how many keys went', () => {
    const [erased] = given(closed).when(erase)();
    expect(erased).toEqual({ type: 'AccountErased', data: { profile_uuid: 'p1', reason_code: 'DATA_SUBJECT_REQUEST', erased_at: now.toISOString(), erased_by_profile_uuid: 'admin', keys_destroyed: 1 } });
    expect(fold(accountDecider, [...closed, erased]).erased_at).toBe(now.toISOString());
    expect(given([...closed, erased]).when(erase)).toThrow(StateConflict);
  });

  it('refuses an account whose closure has not completed (active, or only scheduled), and an unknown one', () => {
    expect(given(active).when(erase)).toThrow(RuleViolation);
    expect(given([...active, due]).when(erase)).toThrow(RuleViolation);
    expect(given([]).when(erase)).toThrow(PlatformError);
  });
});

describe('account: tenant creation', () => {
  const active = [registered, issued, activated];
  const claim = (tenant_uuid: string, over: Partial<{ policy: 'self-service' | 'admin-only'; limit: number; is_platform_admin: boolean }> = {}) =>
    ({ kind: 'ClaimTenantCreation', tenant_uuid, policy: 'self-service', limit: 2, is_platform_admin: false, ...over }) as const;
  const claimed = (tenant_uuid: string): AccountEvent => ({ type: 'TenantCreationClaimed', data: { tenant_uuid } });

  it('given fewer tenants than the limit, when the account creates one, then it is claimed', () => {
    expect(given([...active, claimed('t1')]).when(claim('t2'))()).toEqual([claimed('t2')]);
  });

  it('given the limit reached, when the account creates another, then RULE_VIOLATION (a platform admin is not limited)', () => {
    expect(given([...active, claimed('t1'), claimed('t2')]).when(claim('t3'))).toThrow(expect.objectContaining({ code: 'RULE_VIOLATION' }));
    expect(given([...active, claimed('t1'), claimed('t2')]).when(claim('t3', { is_platform_admin: true }))()).toEqual([claimed('t3')]);
    expect(given(active).when(claim('t1', { limit: 0 }))).toThrow(expect.objectContaining({ code: 'RULE_VIOLATION' }));
  });

  it('given TENANT_CREATION=admin-only, when an ordinary account creates a tenant, then FORBIDDEN; a platform admin may', () => {
    expect(given(active).when(claim('t1', { policy: 'admin-only' }))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(given(active).when(claim('t1', { policy: 'admin-only', is_platform_admin: true }))()).toEqual([claimed('t1')]);
  });

  it('given an account that is not active, when it creates a tenant, then STATE_CONFLICT', () => {
    expect(given([registered, issued]).when(claim('t1'))).toThrow(StateConflict);
  });
});

describe('one-use tokens', () => {
  const issuedToken: OneUseTokenEvent = { type: 'OneUseTokenIssued', data: { kind: 'STEP_UP', purpose: 'AUTHENTICATOR_DISABLE', profile_uuid: 'p1', session_id: 's1', expires_at: '2026-11-22T10:05:00.000Z' } };
  const consume = (events: OneUseTokenEvent[], expect: { kind: 'STEP_UP' | 'ACTIVATION'; purpose?: string; session_id?: string }, at = now) => () =>
    oneUseTokenDecider.decide({ kind: 'ConsumeToken', expect }, fold(oneUseTokenDecider, events), { ...ctx, now: at });
  it('is consumed once, for its kind, purpose and session, before it expires', () => {
    expect(consume([issuedToken], { kind: 'STEP_UP', purpose: 'AUTHENTICATOR_DISABLE', session_id: 's1' })()).toMatchObject([{ type: 'OneUseTokenConsumed' }]);
    const used: OneUseTokenEvent = { type: 'OneUseTokenConsumed', data: { consumed_at: now.toISOString() } };
    expect(consume([issuedToken, used], { kind: 'STEP_UP' })).toThrow(TokenRefused);
    expect(consume([issuedToken], { kind: 'STEP_UP', purpose: 'OTHER' })).toThrow(TokenRefused);
    expect(consume([issuedToken], { kind: 'STEP_UP', session_id: 's2' })).toThrow(TokenRefused);
    expect(consume([issuedToken], { kind: 'ACTIVATION' })).toThrow(TokenRefused);
    expect(consume([issuedToken], { kind: 'STEP_UP' }, new Date('2026-11-22T10:05:00.000Z'))).toThrow(TokenRefused);
    expect(consume([], { kind: 'STEP_UP' })).toThrow(TokenRefused);
  });

  const release = (events: OneUseTokenEvent[]) => oneUseTokenDecider.decide({ kind: 'ReleaseToken' }, fold(oneUseTokenDecider, events), ctx);
  const used: OneUseTokenEvent = { type: 'OneUseTokenConsumed', data: { consumed_at: now.toISOString() } };
  it('given a spent step-up, when it is released, then it can be spent again, once', () => {
    const released = release([issuedToken, used]);
    expect(released).toEqual([{ type: 'OneUseTokenReleased', data: { released_at: now.toISOString() } }]);
    const again = [issuedToken, used, ...released];
    expect(consume(again, { kind: 'STEP_UP', purpose: 'AUTHENTICATOR_DISABLE', session_id: 's1' })()).toMatchObject([{ type: 'OneUseTokenConsumed' }]);
    expect(consume([...again, used], { kind: 'STEP_UP' })).toThrow(TokenRefused);
  });

  it('given a step-up not spent, or another kind of token, when released, then nothing happens', () => {
    expect(release([issuedToken])).toEqual([]);
    expect(release([])).toEqual([]);
    const activation: OneUseTokenEvent = { type: 'OneUseTokenIssued', data: { ...issuedToken.data, kind: 'ACTIVATION', purpose: null } };
    expect(release([activation, used])).toEqual([]);
  });
});

describe('tenants, sessions, email claims', () => {
  const created: TenantEvent = { type: 'TenantCreated', data: { tenant_uuid: 't1', name: 'T', owner_profile_uuid: 'owner' } };
  const assign = (actor: string, events: TenantEvent[], role: 'TENANT_ADMIN' | 'TENANT_MODERATOR' = 'TENANT_ADMIN', profile = 'p2', target_is_member = true, actor_is_platform_admin = false) => () =>
    tenantDecider.decide(
      { kind: 'AssignTenantAuthority', tenant_uuid: 't1', actor_profile_uuid: actor, actor_is_platform_admin, profile_uuid: profile, target_is_member, role_code: role, reason: 'needs it' },
      fold(tenantDecider, events),
      ctx,
    );
  it('lets the owner and tenant admins assign, refuses moderators, hides the tenant from outsiders', () => {
    expect(assign('owner', [created])()).toMatchObject([{ type: 'TenantAuthorityAssigned', data: { profile_uuid: 'p2', role_code: 'TENANT_ADMIN' } }]);
    const moderator: TenantEvent = { type: 'TenantAuthorityAssigned', data: { tenant_uuid: 't1', profile_uuid: 'mod', role_code: 'TENANT_MODERATOR', reason: 'r', assigned_by_profile_uuid: 'owner' } };
    const admin: TenantEvent = { type: 'TenantAuthorityAssigned', data: { tenant_uuid: 't1', profile_uuid: 'adm', role_code: 'TENANT_ADMIN', reason: 'r', assigned_by_profile_uuid: 'owner' } };
    expect(assign('mod', [created, moderator])).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(assign('adm', [created, admin], 'TENANT_MODERATOR', 'p3')()).toHaveLength(1);
    expect(assign('stranger', [created])).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(assign('owner', [created], 'TENANT_ADMIN', 'owner')).toThrow(RuleViolation);
  });
  it('gives authority to members of the tenant only: a non-member is refused like a profile that does not exist', () => {
    // Given a tenant, when its owner (or a platform admin) assigns authority to a profile that is not its member,
    // then the answer is the one NOT_FOUND a missing profile gets, and nothing is appended.
    const refusal = (fn: () => unknown): PlatformError => {
      try {
        fn();
      } catch (error) {
        return error as PlatformError;
      }
      throw new Error('expected a refusal');
    };
    const nonMember = refusal(assign('owner', [created], 'TENANT_ADMIN', 'p-of-another-tenant', false));
    const admin = refusal(assign('platform-admin', [created], 'TENANT_ADMIN', 'p-of-another-tenant', false, true));
    expect(nonMember).toMatchObject({ code: 'NOT_FOUND', details: [{ field: 'profile_uuid', issue: expect.any(String) }] });
    expect({ message: admin.message, details: admin.details }).toEqual({ message: nonMember.message, details: nonMember.details });
    expect(assign('owner', [created], 'TENANT_ADMIN', 'p-member', true)()).toHaveLength(1);
    // The actor's own authority is answered first: a moderator learns nothing about who is a member.
    const moderator: TenantEvent = { type: 'TenantAuthorityAssigned', data: { tenant_uuid: 't1', profile_uuid: 'mod', role_code: 'TENANT_MODERATOR', reason: 'r', assigned_by_profile_uuid: 'owner' } };
    expect(assign('mod', [created, moderator], 'TENANT_ADMIN', 'p-of-another-tenant', false)).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('starts a session once and revokes it once', () => {
    const started = { type: 'SessionStarted' as const, data: { session_id: 's1', profile_uuid: 'p1', tenant_uuid: 't', token_hash: 'h', authentication_method: 'PASSWORD', device, expires_at: '2026-11-23T00:00:00.000Z' } };
    const state = fold(sessionDecider, [started]);
    expect(sessionDecider.decide({ kind: 'RevokeSession', reason: 'LOGOUT' }, state, ctx)).toMatchObject([{ type: 'SessionRevoked', data: { session_id: 's1', reason: 'LOGOUT' } }]);
    const revoked = fold(sessionDecider, [started, { type: 'SessionRevoked', data: { session_id: 's1', profile_uuid: 'p1', reason: 'LOGOUT', revoked_at: now.toISOString() } }]);
    expect(sessionDecider.decide({ kind: 'RevokeSession', reason: 'LOGOUT' }, revoked, ctx)).toEqual([]);
  });
  it('claims an address for one profile until released', () => {
    const claimed = fold(emailClaimDecider, [{ type: 'EmailClaimed', data: { profile_uuid: 'p1' } }]);
    expect(() => emailClaimDecider.decide({ kind: 'ClaimEmail', profile_uuid: 'p2' }, claimed, ctx)).toThrow(StateConflict);
    expect(emailClaimDecider.decide({ kind: 'ClaimEmail', profile_uuid: 'p1' }, claimed, ctx)).toEqual([]);
    const released = fold(emailClaimDecider, [{ type: 'EmailClaimed', data: { profile_uuid: 'p1' } }, { type: 'EmailReleased', data: { profile_uuid: 'p1' } }]);
    expect(emailClaimDecider.decide({ kind: 'ClaimEmail', profile_uuid: 'p2' }, released, ctx)).toEqual([{ type: 'EmailClaimed', data: { profile_uuid: 'p2' } }]);
  });
});

describe('tenants: who joins (join policy and invitations)', () => {
  type AnyTenantEvent = TenantEvent | TenantJoinEvent;
  type TenantCmd = Parameters<typeof tenantDecider.decide>[0];
  const created: TenantEvent = { type: 'TenantCreated', data: { tenant_uuid: 't1', name: 'T', owner_profile_uuid: 'owner' } };
  const admin: TenantEvent = { type: 'TenantAuthorityAssigned', data: { tenant_uuid: 't1', profile_uuid: 'adm', role_code: 'TENANT_ADMIN', reason: 'r', assigned_by_profile_uuid: 'owner' } };
  const moderator: TenantEvent = { type: 'TenantAuthorityAssigned', data: { tenant_uuid: 't1', profile_uuid: 'mod', role_code: 'TENANT_MODERATOR', reason: 'r', assigned_by_profile_uuid: 'owner' } };
  const invited = (invitation_uuid = 'i1', email = 'ada@example.com', expires_at = '2026-11-29T10:00:00.000Z'): TenantJoinEvent => ({
    type: 'TenantInvitationIssued',
    data: { tenant_uuid: 't1', invitation_uuid, email, token_hash: `hash-${invitation_uuid}`, invited_by_profile_uuid: 'owner', issued_at: '2026-11-22T09:00:00.000Z', expires_at },
  });
  const opened: TenantJoinEvent = { type: 'TenantJoinPolicyChanged', data: { tenant_uuid: 't1', join_policy: 'OPEN', previous_join_policy: 'INVITATION', changed_by_profile_uuid: 'owner' } };
  const revoked: TenantJoinEvent = { type: 'TenantInvitationRevoked', data: { tenant_uuid: 't1', invitation_uuid: 'i1', revoked_by_profile_uuid: 'owner', revoked_at: now.toISOString() } };
  const accepted: TenantJoinEvent = { type: 'TenantInvitationAccepted', data: { tenant_uuid: 't1', invitation_uuid: 'i1', profile_uuid: 'p1', accepted_at: now.toISOString() } };
  const by = (actor: string, { admin: platformAdmin = false, member = false } = {}) => ({ actor_profile_uuid: actor, actor_is_platform_admin: platformAdmin, actor_is_member: member });
  const given = (events: AnyTenantEvent[]) => ({ when: (c: TenantCmd) => () => tenantDecider.decide(c, fold(tenantDecider, events), ctx) });
  const setPolicy = (join_policy: 'OPEN' | 'INVITATION', actor = by('owner'), is_global = false): TenantCmd => ({ kind: 'SetJoinPolicy', tenant_uuid: 't1', join_policy, is_global, ...actor });
  const invite = (actor = by('owner'), is_global = false): TenantCmd => ({
    kind: 'InviteToTenant', tenant_uuid: 't1', invitation_uuid: 'i2', email: 'bob@example.com', token_hash: 'hash-i2', is_global, ...actor,
  });
  const revoke = (actor = by('owner'), invitation_uuid = 'i1'): TenantCmd => ({ kind: 'RevokeTenantInvitation', tenant_uuid: 't1', invitation_uuid, ...actor });
  const accept = (email = 'ada@example.com', profile_uuid = 'p1'): TenantCmd => ({ kind: 'AcceptTenantInvitation', tenant_uuid: 't1', invitation_uuid: 'i1', email, profile_uuid });

  it('given a new tenant, its join policy is INVITATION; when the owner opens it, then TenantJoinPolicyChanged; the same policy again changes nothing', () => {
    expect(fold(tenantDecider, [created]).join_policy).toBe('INVITATION');
    expect(given([created]).when(setPolicy('OPEN'))()).toEqual([opened]);
    expect(given([created, opened]).when(setPolicy('OPEN'))()).toEqual([]);
    expect(given([created]).when(setPolicy('INVITATION'))()).toEqual([]);
    expect(given([created, opened]).when(setPolicy('INVITATION'))()).toEqual([
      { type: 'TenantJoinPolicyChanged', data: { tenant_uuid: 't1', join_policy: 'INVITATION', previous_join_policy: 'OPEN', changed_by_profile_uuid: 'owner' } },
    ]);
  });

  it('given a tenant, only its owner (or a platform admin) sets the policy: a tenant admin, a moderator and a plain member 403, an outsider 404', () => {
    expect(given([created]).when(setPolicy('OPEN', by('root', { admin: true })))()).toHaveLength(1);
    for (const who of [by('adm'), by('mod'), by('plain', { member: true })]) {
      expect(given([created, admin, moderator]).when(setPolicy('OPEN', who))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    }
    expect(given([created]).when(setPolicy('OPEN', by('stranger')))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(given([]).when(setPolicy('OPEN'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(given([created]).when(setPolicy('OPEN', by('owner'), true))).toThrow(RuleViolation);
  });

  it('given a tenant, when its owner or a tenant admin invites, then TenantInvitationIssued with the token hash; moderators and members 403, outsiders 404', () => {
    const issuedEvents = given([created, admin]).when(invite(by('adm')))();
    expect(issuedEvents).toEqual([
      { type: 'TenantInvitationIssued', data: { tenant_uuid: 't1', invitation_uuid: 'i2', email: 'bob@example.com', token_hash: 'hash-i2', invited_by_profile_uuid: 'adm', issued_at: now.toISOString(), expires_at: '2026-11-29T10:00:00.000Z' } },
    ]);
    expect(given([created]).when(invite())()).toHaveLength(1);
    expect(given([created, moderator]).when(invite(by('mod')))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(given([created]).when(invite(by('plain', { member: true })))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(given([created]).when(invite(by('stranger')))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(given([created]).when(invite(by('owner'), true))).toThrow(RuleViolation);
  });

  it('given an INVITATION tenant, a registration joins only with a pending, unexpired invitation to its own address', () => {
    const state = fold(tenantDecider, [created, invited()]);
    const at = (iso: string) => new Date(iso);
    expect(joinDecision(state, { email: 'ada@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'INVITED', invitation_uuid: 'i1' });
    expect(joinDecision(state, { email: 'ada@example.com', token_hash: null, now })).toEqual({ kind: 'UNINVITED', reason: 'NO_INVITATION' });
    expect(joinDecision(state, { email: 'ada@example.com', token_hash: 'hash-other', now })).toEqual({ kind: 'UNINVITED', reason: 'UNKNOWN' });
    expect(joinDecision(state, { email: 'eve@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'UNINVITED', reason: 'OTHER_ADDRESS' });
    expect(joinDecision(state, { email: 'ada@example.com', token_hash: 'hash-i1', now: at('2026-11-29T10:00:00.000Z') })).toEqual({ kind: 'UNINVITED', reason: 'EXPIRED' });
    expect(joinDecision(fold(tenantDecider, [created, invited(), revoked]), { email: 'ada@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'UNINVITED', reason: 'REVOKED' });
    expect(joinDecision(fold(tenantDecider, [created, invited(), accepted]), { email: 'ada@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'UNINVITED', reason: 'USED' });
  });

  it('given an OPEN tenant, a registration joins without an invitation, and a valid one is still spent', () => {
    const state = fold(tenantDecider, [created, invited(), opened]);
    expect(joinDecision(state, { email: 'eve@example.com', token_hash: null, now })).toEqual({ kind: 'OPEN' });
    expect(joinDecision(state, { email: 'eve@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'OPEN' });
    expect(joinDecision(state, { email: 'ada@example.com', token_hash: 'hash-i1', now })).toEqual({ kind: 'INVITED', invitation_uuid: 'i1' });
  });

  it('given a pending invitation, when a registration of its address spends it, then TenantInvitationAccepted, once', () => {
    expect(given([created, invited()]).when(accept())()).toEqual([accepted]);
    // The same registration finishing later: nothing new. Anyone else: refused, whatever the reason.
    expect(given([created, invited(), accepted]).when(accept())()).toEqual([]);
    expect(given([created, invited(), accepted]).when(accept('ada@example.com', 'p2'))).toThrow(InvitationRefused);
    expect(given([created, invited()]).when(accept('eve@example.com'))).toThrow(InvitationRefused);
    expect(given([created, invited(), revoked]).when(accept())).toThrow(InvitationRefused);
    expect(given([created, invited('i1', 'ada@example.com', '2026-11-22T09:59:59.000Z')]).when(accept())).toThrow(InvitationRefused);
    expect(given([created]).when(accept())).toThrow(InvitationRefused);
  });

  it('given a pending invitation, when the owner or a tenant admin revokes it, then TenantInvitationRevoked; again: nothing; accepted: 409; unknown: 404', () => {
    expect(given([created, invited()]).when(revoke())()).toEqual([revoked]);
    expect(given([created, admin, invited()]).when(revoke(by('adm')))()).toMatchObject([{ type: 'TenantInvitationRevoked', data: { revoked_by_profile_uuid: 'adm' } }]);
    expect(given([created, invited(), revoked]).when(revoke())()).toEqual([]);
    expect(given([created, invited(), accepted]).when(revoke())).toThrow(StateConflict);
    expect(given([created, invited()]).when(revoke(by('owner'), 'i9'))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(given([created, moderator, invited()]).when(revoke(by('mod')))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(given([created, invited()]).when(revoke(by('stranger')))).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    // An expired invitation may still be revoked (its address then erased).
    expect(given([created, invited('i1', 'ada@example.com', '2026-11-22T09:59:59.000Z')]).when(revoke())()).toEqual([revoked]);
  });

  it('shows a pending invitation past its expiry as EXPIRED', () => {
    const i = fold(tenantDecider, [created, invited('i1', 'ada@example.com', '2026-11-22T09:59:59.000Z')]).invitations.i1;
    expect(invitationStatus(i.status, i.expires_at, now)).toBe('EXPIRED');
    expect(invitationStatus('ACCEPTED', i.expires_at, now)).toBe('ACCEPTED');
    expect(invitationStatus('PENDING', '2026-11-29T10:00:00.000Z', now)).toBe('PENDING');
  });
});
