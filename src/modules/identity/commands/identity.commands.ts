/**
 * Identity's command handlers. Each loads, decides and appends through the CommandExecutor; slow or keyed work
 * (password hashing, TOTP, sealing secrets) happens here and reaches the pure deciders as outcomes. Plaintext
 * tokens exist only in memory and in the delivery: events and read models hold their SHA-256.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/principal';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../../platform/config/platform-config';
import { nextId } from '../../../platform/context/request-context';
import { PlatformError, ValidationFailed } from '../../../platform/errors';
import { accountDecider, type AccountState, type ContactType, type Device } from '../domain/account';
import { emailClaimDecider, InvitationRefused, joinDecision, oneUseTokenDecider, sessionDecider, TokenRefused, type TokenKind } from '../domain/access';
import {
  accountStream,
  ACTIVATION_TTL_MS,
  CONTACT_CHANGE_TTL_MS,
  GLOBAL_TENANT_UUID,
  sessionStream,
  STEP_UP_TTL_MS,
  tenantStream,
} from '../domain/identity.constants';
import { tenantDecider } from '../domain/access';
import { DELIVERY_PORT, type DeliveryPort } from '../delivery';
import { IdentityCrypto, LoginThrottle } from '../identity.services';
import { passwordPolicyIssues } from '../security/password-policy';
import { hashToken, maskEmail, maskPhone, newToken } from '../security/tokens';
import { matchTotp } from '../security/totp';
import type { AccountRegistrationRequest } from '../dto/identity.dto';

const invalidCredentials = (): PlatformError => new PlatformError('UNAUTHENTICATED', 'Invalid email or password.');

// ------------------------------------------------------------------------------------------------------------
// Registration and activation

export class RegisterAccount {
  constructor(readonly request: AccountRegistrationRequest, readonly platformRole: 'ADMIN' | null = null) {}
}

export interface AccountRegistrationReceipt {
  registration_id: string;
  client_id: string;
  tenant_uuid: string;
  status: 'PENDING_ACTIVATION';
  activation_delivery: string;
  activation_expires_at: string;
}

@CommandHandler(RegisterAccount)
export class RegisterAccountHandler implements ICommandHandler<RegisterAccount, AccountRegistrationReceipt> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    @Inject(DELIVERY_PORT) private readonly delivery: DeliveryPort,
  ) {}

  async execute({ request: r, platformRole }: RegisterAccount): Promise<AccountRegistrationReceipt> {
    const email = r.email.trim().toLowerCase();
    const issues = passwordPolicyIssues(r.password, email);
    if (issues.length > 0) throw new ValidationFailed('The password does not meet the policy.', issues.map((issue) => ({ field: 'password', issue })));
    const tenant_uuid = r.tenant_uuid ?? GLOBAL_TENANT_UUID;
    // Every registration pays for the password hash before anything about it is looked up: its cost dominates the
    // answer's time, so an unknown tenant, a taken address and a new account take alike (no timing oracle).
    const password_hash = await this.crypto.passwords.hash(r.password);
    const expires_at = new Date(this.commands.now().getTime() + ACTIVATION_TTL_MS).toISOString();
    const fresh = { profile_uuid: nextId(), registration_id: nextId(), client_id: nextId() };
    const uniform: AccountRegistrationReceipt = {
      registration_id: fresh.registration_id,
      client_id: fresh.client_id,
      tenant_uuid,
      status: 'PENDING_ACTIVATION',
      activation_delivery: 'email',
      activation_expires_at: expires_at,
    };

    // A tenant that does not exist, and one that takes members by invitation when the registration carries no valid
    // invitation for this address, answer the same receipt as a real registration and create nothing: the
    // registration form tells nobody which tenants exist or whom they invited. The attempt is noted like one on a
    // taken address.
    let invitation_uuid: string | null = null;
    if (tenant_uuid !== GLOBAL_TENANT_UUID) {
      const tenant = (await this.commands.load(tenantStream(tenant_uuid), tenantDecider)).state;
      const join = tenant.exists ? joinDecision(tenant, { email, token_hash: r.invitation_token ? hashToken(r.invitation_token) : null, now: this.commands.now() }) : null;
      if (!join || join.kind === 'UNINVITED') {
        await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'NoteRegistrationAttempt' });
        return uniform;
      }
      if (join.kind === 'INVITED') invitation_uuid = join.invitation_uuid;
    }

    // The claim is the uniqueness check. A taken address answers the same receipt and delivers nothing, so
    // registration tells nobody which addresses have accounts.
    let profile_uuid = fresh.profile_uuid;
    try {
      await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'ClaimEmail', profile_uuid });
    } catch (error) {
      if (!(error instanceof PlatformError) || error.code !== 'STATE_CONFLICT') throw error;
      const claim = await this.commands.load(this.crypto.emailStream(email), emailClaimDecider);
      const owner = claim.state.owner!;
      const existing = await this.commands.load(accountStream(owner), accountDecider);
      const abandoned = existing.state.status === 'PENDING_ACTIVATION' && existing.state.activation !== null && Date.parse(existing.state.activation.expires_at) <= this.commands.now().getTime();
      if (abandoned) {
        // A registration never activated within 24 h holds the address no longer: nobody can squat on it.
        await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'ReleaseEmail', profile_uuid: owner });
        await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'ClaimEmail', profile_uuid });
      } else if (existing.state.status !== 'NONE') {
        await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'NoteRegistrationAttempt' });
        return uniform;
      } else {
        profile_uuid = owner; // an earlier attempt claimed the address and stopped before the account: finish it
      }
    }

    if (invitation_uuid) {
      // Spent under the tenant's revision before the account exists: of two registrations carrying one token, one
      // joins. A refusal here (revoked or spent meanwhile) gives the address back and answers like any uninvited one.
      try {
        await this.commands.execute(tenantStream(tenant_uuid), tenantDecider, { kind: 'AcceptTenantInvitation', tenant_uuid, invitation_uuid, email, profile_uuid });
      } catch (error) {
        if (!(error instanceof InvitationRefused)) throw error;
        await this.commands.execute(this.crypto.emailStream(email), emailClaimDecider, { kind: 'ReleaseEmail', profile_uuid });
        return uniform;
      }
    }

    const token = platformRole === 'ADMIN' ? null : newToken('hcat_');
    if (token) {
      await this.commands.execute(this.crypto.oneUseTokenStream(hashToken(token)), oneUseTokenDecider, {
        kind: 'IssueToken',
        issued: { kind: 'ACTIVATION', purpose: null, profile_uuid, session_id: null, expires_at },
      });
    }
    const registered = this.commands.execute(accountStream(profile_uuid), accountDecider, {
      kind: 'RegisterAccount',
      registered: {
        profile_uuid,
        registration_id: fresh.registration_id,
        client_id: fresh.client_id,
        tenant_uuid,
        account_type: r.account_type,
        email,
        first_name: r.first_name ?? null,
        middle_name: r.middle_name ?? null,
        last_name: r.last_name ?? null,
        company_name: r.company_name ?? null,
        password_hash,
        terms_version: r.terms.version,
        platform_role: platformRole,
        ...(invitation_uuid ? { invitation_uuid } : {}),
      },
      activation: token ? { token_hash: hashToken(token), channel: 'email', expires_at } : null,
    });
    try {
      await registered;
    } catch (error) {
      // Two registrations of one address raced to finish the account: the loser answers like a taken address.
      if (error instanceof PlatformError && error.code === 'STATE_CONFLICT') return uniform;
      throw error;
    }
    if (token) await this.delivery.deliver({ to: email, channel: 'email', kind: 'ACCOUNT_ACTIVATION', token, created: this.commands.now().toISOString() });
    return uniform;
  }
}

export class ActivateAccount {
  constructor(readonly token: string) {}
}

@CommandHandler(ActivateAccount)
export class ActivateAccountHandler implements ICommandHandler<ActivateAccount, { registration_id: string; tenant_uuid: string; status: string }> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
  ) {}

  async execute({ token }: ActivateAccount): Promise<{ registration_id: string; tenant_uuid: string; status: string }> {
    const token_hash = hashToken(token);
    const profile = await consumeToken(this.commands, this.crypto, token_hash, { kind: 'ACTIVATION' });
    const outcome = await this.commands.execute(accountStream(profile), accountDecider, { kind: 'ActivateAccount', token_hash });
    return { registration_id: outcome.state.registration_id, tenant_uuid: outcome.state.tenant_uuid, status: outcome.state.status };
  }
}

/** Consumes a one-use token (once, ever) and answers whose it was. */
async function consumeToken(commands: CommandExecutor, crypto: IdentityCrypto, token_hash: string, expect: { kind: TokenKind; purpose?: string; session_id?: string }): Promise<string> {
  const outcome = await commands.execute(crypto.oneUseTokenStream(token_hash), oneUseTokenDecider, { kind: 'ConsumeToken', expect });
  return outcome.state.issued!.profile_uuid;
}

// ------------------------------------------------------------------------------------------------------------
// Sessions, step-up

export class StartSession {
  constructor(readonly email: string, readonly password: string, readonly totp_code: string | undefined, readonly device: Device, readonly client_address: string) {}
}

export interface SessionGrant {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  session_id: string;
}

/** Password (and TOTP once enrolled) checked against the account, throttled; failures recorded on the account. */
async function authenticate(
  commands: CommandExecutor,
  crypto: IdentityCrypto,
  throttle: LoginThrottle,
  input: { email: string; password: string; totp_code?: string; device: Device; client_address: string },
): Promise<{ state: AccountState; method: string }> {
  const email = input.email.trim().toLowerCase();
  return throttle.attempt(`account:${email}`, input.client_address, async () => {
    const claim = await commands.load(crypto.emailStream(email), emailClaimDecider);
    if (!claim.state.owner) {
      await crypto.passwords.dummyVerify(input.password); // same work as a real check: no timing oracle
      throw invalidCredentials();
    }
    const stream = accountStream(claim.state.owner);
    const { state } = await commands.load(stream, accountDecider);
    const password_ok = state.password_hash !== '' && (await crypto.passwords.verify(input.password, state.password_hash));
    const secret = state.totp.enabled && state.totp.secret_sealed ? crypto.secrets.open(state.totp.secret_sealed, state.profile_uuid) : null;
    const totp_step = secret && input.totp_code !== undefined ? matchTotp(input.totp_code, secret, commands.now().getTime(), state.totp.last_step) : null;
    const outcome = await commands.execute(stream, accountDecider, {
      kind: 'AuthenticateLogin',
      password_ok,
      totp_supplied: input.totp_code !== undefined,
      totp_step,
      device: input.device,
    });
    const failed = outcome.events.find((e) => e.type === 'LoginFailed');
    if (failed) {
      const reason = (failed.data as { reason: string }).reason;
      if (reason === 'TOTP_REQUIRED') throw new PlatformError('UNAUTHENTICATED', 'An authenticator code is required.', { details: [{ field: 'totp_code', issue: 'required' }] });
      if (reason === 'BAD_TOTP') throw new PlatformError('UNAUTHENTICATED', 'The authenticator code is not valid.', { details: [{ field: 'totp_code', issue: 'invalid or already used' }] });
      if (reason === 'NOT_ACTIVE') throw new PlatformError('UNAUTHENTICATED', 'The account is not active.');
      throw invalidCredentials();
    }
    return { state: outcome.state, method: state.totp.enabled ? 'PASSWORD_TOTP' : 'PASSWORD' };
  });
}

/** The signed-in caller proves the password again (throttled like sign-in); a wrong one is 403. */
export async function reauthenticate(throttle: LoginThrottle, crypto: IdentityCrypto, account: AccountState, password: string): Promise<void> {
  await throttle
    .attempt(`account:${account.email}`, null, async () => {
      if (!(await crypto.passwords.verify(password, account.password_hash))) {
        throw new PlatformError('UNAUTHENTICATED', 'The current password is not correct.', { details: [{ field: 'current_password', issue: 'incorrect' }] });
      }
    })
    .catch((error: unknown) => {
      if (error instanceof PlatformError && error.code === 'UNAUTHENTICATED') throw new PlatformError('FORBIDDEN', error.message, { details: error.details });
      throw error;
    });
}

@CommandHandler(StartSession)
export class StartSessionHandler implements ICommandHandler<StartSession, SessionGrant> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    private readonly throttle: LoginThrottle,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute(c: StartSession): Promise<SessionGrant> {
    const { state, method } = await authenticate(this.commands, this.crypto, this.throttle, c);
    const session_id = nextId();
    const access_token = newToken('hcs_');
    await this.commands.execute(sessionStream(session_id), sessionDecider, {
      kind: 'StartSession',
      started: {
        session_id,
        profile_uuid: state.profile_uuid,
        tenant_uuid: state.tenant_uuid,
        token_hash: hashToken(access_token),
        authentication_method: method,
        device: c.device,
        expires_at: new Date(this.commands.now().getTime() + this.config.sessionTtlSeconds * 1000).toISOString(),
      },
    });
    return { access_token, token_type: 'Bearer', expires_in: this.config.sessionTtlSeconds, session_id };
  }
}

export class RevokeSession {
  constructor(readonly principal: Principal, readonly session_id: string) {}
}

@CommandHandler(RevokeSession)
export class RevokeSessionHandler implements ICommandHandler<RevokeSession, { session_id: string; status: 'REVOKED' }> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ principal, session_id }: RevokeSession): Promise<{ session_id: string; status: 'REVOKED' }> {
    const { state } = await this.commands.load(sessionStream(session_id), sessionDecider);
    // Another profile's session does not exist for this caller.
    if (state.status === 'NONE' || state.profile_uuid !== principal.profile_uuid) throw new PlatformError('NOT_FOUND', 'No such session.');
    await this.commands.execute(sessionStream(session_id), sessionDecider, { kind: 'RevokeSession', reason: session_id === principal.session_id ? 'LOGOUT' : 'REVOKED_BY_USER' });
    return { session_id, status: 'REVOKED' };
  }
}

export class IssueStepUp {
  constructor(readonly principal: Principal, readonly purpose: string, readonly password: string, readonly totp_code: string | undefined, readonly device: Device, readonly client_address: string) {}
}

@CommandHandler(IssueStepUp)
export class IssueStepUpHandler implements ICommandHandler<IssueStepUp, { step_up_token: string; purpose: string; expires_at: string }> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    private readonly throttle: LoginThrottle,
  ) {}

  async execute(c: IssueStepUp): Promise<{ step_up_token: string; purpose: string; expires_at: string }> {
    const { state: account } = await this.commands.load(accountStream(c.principal.profile_uuid), accountDecider);
    let authentication_method: string;
    try {
      ({ method: authentication_method } = await authenticate(this.commands, this.crypto, this.throttle, { email: account.email, password: c.password, totp_code: c.totp_code, device: c.device, client_address: c.client_address }));
    } catch (error) {
      if (error instanceof PlatformError && error.code === 'UNAUTHENTICATED') {
        throw new PlatformError('STEP_UP_REQUIRED', 'Re-authentication failed.', { details: error.details.length ? error.details : [{ field: 'password', issue: 'invalid' }] });
      }
      throw error;
    }
    const step_up_token = newToken('hcsu_');
    const expires_at = new Date(this.commands.now().getTime() + STEP_UP_TTL_MS).toISOString();
    await this.commands.execute(this.crypto.oneUseTokenStream(hashToken(step_up_token)), oneUseTokenDecider, {
      kind: 'IssueToken',
      issued: { kind: 'STEP_UP', purpose: c.purpose, profile_uuid: c.principal.profile_uuid, session_id: c.principal.session_id, expires_at, authentication_method },
    });
    return { step_up_token, purpose: c.purpose, expires_at };
  }
}

// ------------------------------------------------------------------------------------------------------------
// Contact change

const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@<>(),;:"[\]\\]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,63}$/;

export class RequestContactChange {
  constructor(readonly principal: Principal, readonly contact_type: ContactType, readonly value: string, readonly current_password: string) {}
}

@CommandHandler(RequestContactChange)
export class RequestContactChangeHandler implements ICommandHandler<RequestContactChange> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    private readonly throttle: LoginThrottle,
    @Inject(DELIVERY_PORT) private readonly delivery: DeliveryPort,
  ) {}

  async execute({ principal, contact_type, value, current_password }: RequestContactChange): Promise<object> {
    const target = contact_type === 'email' ? value.trim().toLowerCase() : value.trim();
    if (!(contact_type === 'email' ? EMAIL : E164).test(target)) {
      throw new ValidationFailed('The new contact is malformed.', [{ field: 'value', issue: contact_type === 'email' ? 'must be an email address' : 'must be an E.164 phone number such as +491511234567' }]);
    }
    const { state: account } = await this.commands.load(accountStream(principal.profile_uuid), accountDecider);
    await reauthenticate(this.throttle, this.crypto, account, current_password);
    if ((contact_type === 'email' ? account.email : account.phone) === target) {
      throw new PlatformError('RULE_VIOLATION', 'This is already the account\'s contact.', { details: [{ field: 'value', issue: 'equals the current contact' }] });
    }
    if (contact_type === 'email') {
      const claim = await this.commands.load(this.crypto.emailStream(target), emailClaimDecider);
      if (claim.state.owner && claim.state.owner !== principal.profile_uuid) throw new PlatformError('STATE_CONFLICT', 'This address cannot be used.');
    }
    const token = newToken('hcct_');
    const token_hash = hashToken(token);
    const expires_at = new Date(this.commands.now().getTime() + CONTACT_CHANGE_TTL_MS).toISOString();
    const target_hint = contact_type === 'email' ? maskEmail(target) : maskPhone(target);
    await this.commands.execute(this.crypto.oneUseTokenStream(token_hash), oneUseTokenDecider, {
      kind: 'IssueToken',
      issued: { kind: 'CONTACT_CHANGE', purpose: contact_type, profile_uuid: principal.profile_uuid, session_id: null, expires_at },
    });
    await this.commands.execute(accountStream(principal.profile_uuid), accountDecider, { kind: 'RequestContactChange', contact_type, target, target_hint, token_hash, expires_at });
    const channel = contact_type === 'email' ? 'email' : 'sms';
    await this.delivery.deliver({ to: target, channel, kind: 'CONTACT_CHANGE', token, created: this.commands.now().toISOString() });
    return { status: 'PENDING_CONFIRMATION', contact_type, target_hint, delivery_channel: channel, expires_at, profile_uuid: principal.profile_uuid, request_id: token_hash.slice(0, 32), sessions_revoked: false };
  }
}

export class ConfirmContactChange {
  constructor(readonly token: string) {}
}

@CommandHandler(ConfirmContactChange)
export class ConfirmContactChangeHandler implements ICommandHandler<ConfirmContactChange> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
  ) {}

  async execute({ token }: ConfirmContactChange): Promise<object> {
    const token_hash = hashToken(token);
    // Check the token against the account's pending change before using it up or claiming anything: a superseded
    // token must not claim the newer target.
    const issued = (await this.commands.load(this.crypto.oneUseTokenStream(token_hash), oneUseTokenDecider)).state.issued;
    const before = issued ? await this.commands.load(accountStream(issued.profile_uuid), accountDecider) : null;
    const pending = before?.state.contact_change;
    if (!issued || !before || !pending || pending.token_hash !== token_hash) throw new TokenRefused('UNKNOWN');
    const profile = await consumeToken(this.commands, this.crypto, token_hash, { kind: 'CONTACT_CHANGE' });
    const stream = accountStream(profile);
    if (pending.contact_type === 'email') {
      await this.commands.execute(this.crypto.emailStream(pending.target), emailClaimDecider, { kind: 'ClaimEmail', profile_uuid: profile });
    }
    await this.commands.execute(stream, accountDecider, { kind: 'ConfirmContactChange', token_hash });
    if (pending.contact_type === 'email' && before.state.email !== pending.target) {
      await this.commands.execute(this.crypto.emailStream(before.state.email), emailClaimDecider, { kind: 'ReleaseEmail', profile_uuid: profile });
    }
    return { status: 'CONFIRMED', contact_type: pending.contact_type, target_hint: pending.target_hint, profile_uuid: profile, request_id: token_hash.slice(0, 32), sessions_revoked: true };
  }
}

export { TokenRefused };
