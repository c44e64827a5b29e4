/** Account closure, tenants and their authorities, workspaces and the active workspace. */
import { Inject } from '@nestjs/common';
import { CommandHandler, QueryBus, type ICommandHandler } from '@nestjs/cqrs';
import { GetWorkspaceMembership } from '../queries/identity.queries';
import { IsTenantMember } from '../queries/tenant-membership';
import type { Principal } from '../../../platform/auth/principal';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../../platform/config/platform-config';
import { nextId } from '../../../platform/context/request-context';
import { PlatformError } from '../../../platform/errors';
import { accountDecider, type AccountState } from '../domain/account';
import { emailClaimDecider, tenantDecider } from '../domain/access';
import { workspaceDecider } from '../domain/workspace';
import { accountStream, tenantStream, workspaceStream } from '../domain/identity.constants';
import { IdentityCrypto, LoginThrottle, StepUpService } from '../identity.services';
import { SubjectKeyStore } from '../../../platform/privacy/subject-keys';
import { reauthenticate } from './identity.commands';
import { invitationSubject } from '../domain/privacy';

export interface AccountClosure {
  request_uuid: string;
  profile_uuid: string;
  tenant_uuid: string;
  status: string;
  reason_code: string;
  version: number;
  requested_at: string;
  scheduled_for: string;
  blocked_until: string | null;
  blocker_code: string | null;
  cancelled_at: string | null;
  completed_at: string | null;
  idempotent_replay: boolean;
  last_error_code: string | null;
  processing_attempts: number;
}

export function closureView(state: AccountState, version: bigint | null): AccountClosure {
  const c = state.closure;
  if (!c) throw new PlatformError('NOT_FOUND', 'No closure has been requested.');
  return {
    request_uuid: c.request_uuid,
    profile_uuid: state.profile_uuid,
    tenant_uuid: state.tenant_uuid,
    status: c.status,
    reason_code: c.reason_code,
    version: Number(version ?? 0n),
    requested_at: c.requested_at,
    scheduled_for: c.scheduled_for,
    blocked_until: null,
    blocker_code: null,
    cancelled_at: c.cancelled_at,
    completed_at: c.completed_at,
    idempotent_replay: false,
    last_error_code: null,
    processing_attempts: c.status === 'COMPLETED' ? 1 : 0,
  };
}

export class RequestAccountClosure {
  constructor(readonly principal: Principal, readonly current_password: string, readonly reason_code: string | undefined, readonly step_up_token: string | undefined) {}
}

@CommandHandler(RequestAccountClosure)
export class RequestAccountClosureHandler implements ICommandHandler<RequestAccountClosure, AccountClosure> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    private readonly stepUp: StepUpService,
    private readonly throttle: LoginThrottle,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute(c: RequestAccountClosure): Promise<AccountClosure> {
    const stream = accountStream(c.principal.profile_uuid);
    const { state } = await this.commands.load(stream, accountDecider);
    if (state.closure?.status === 'SCHEDULED') throw new PlatformError('STATE_CONFLICT', 'A closure is already scheduled.');
    // Re-authentication only: the password is compared with the stored hash, never echoed or stored, and guesses
    // count against the same throttle as sign-in.
    await reauthenticate(this.throttle, this.crypto, state, c.current_password);
    const spend = c.step_up_token === undefined ? undefined : await this.stepUp.authorize(c.step_up_token, 'ACCOUNT_CLOSURE', c.principal);
    const outcome = await this.commands.execute(
      stream,
      accountDecider,
      { kind: 'RequestClosure', request_uuid: nextId(), reason_code: c.reason_code ?? 'USER_REQUESTED', grace_ms: this.config.accountClosureGraceSeconds * 1000 },
      { spend },
    );
    return closureView(outcome.state, outcome.version);
  }
}

export class CancelAccountClosure {
  constructor(readonly principal: Principal, readonly step_up_token: string | undefined) {}
}

@CommandHandler(CancelAccountClosure)
export class CancelAccountClosureHandler implements ICommandHandler<CancelAccountClosure, AccountClosure> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly stepUp: StepUpService,
  ) {}

  async execute(c: CancelAccountClosure): Promise<AccountClosure> {
    const { state } = await this.commands.load(accountStream(c.principal.profile_uuid), accountDecider);
    if (state.closure?.status !== 'SCHEDULED') throw new PlatformError('STATE_CONFLICT', 'No closure is scheduled.');
    const spend = c.step_up_token === undefined ? undefined : await this.stepUp.authorize(c.step_up_token, 'ACCOUNT_CLOSURE', c.principal);
    const outcome = await this.commands.execute(accountStream(c.principal.profile_uuid), accountDecider, { kind: 'CancelClosure' }, { spend });
    return closureView(outcome.state, outcome.version);
  }
}

/** What an erasure answers (docs/privacy.md). */
export interface AccountErasure {
  profile_uuid: string;
  status: 'ERASED';
  reason_code: string;
  erased_at: string;
  keys_destroyed: number;
  version: number;
}

export class EraseAccount {
  constructor(readonly principal: Principal, readonly profile_uuid: string, readonly step_up_token: string, readonly reason_code: string | undefined) {}
}

/**
 * Erases a closed account's personal data (platform admin, step-up ACCOUNT_ERASURE): checks the erasure is allowed,
 * destroys the person's keys (every value sealed under them — the account's personal and secret fields, the words the
 * person wrote anywhere — reads as erased from then on, in the log, on replay and on rebuild), then records
 * AccountErased, on which every read model scrubs what it holds of the person and the notification inbox deletes the
 * person's notifications (tombstones on its compacted topic). The key goes first: a failed append leaves the data
 * erased and the retry records it; the other order could record an erasure that did not happen.
 */
@CommandHandler(EraseAccount)
export class EraseAccountHandler implements ICommandHandler<EraseAccount, AccountErasure> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly crypto: IdentityCrypto,
    private readonly stepUp: StepUpService,
    private readonly keys: SubjectKeyStore,
  ) {}

  async execute(c: EraseAccount): Promise<AccountErasure> {
    if (c.principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only a platform admin erases accounts.');
    const stream = accountStream(c.profile_uuid);
    const reason_code = c.reason_code ?? 'DATA_SUBJECT_REQUEST';
    const erase = (keys_destroyed: number) => ({ kind: 'EraseAccount', reason_code, erased_by_profile_uuid: c.principal.profile_uuid, keys_destroyed }) as const;
    const { state } = await this.commands.load(stream, accountDecider);
    accountDecider.decide(erase(0), state, { now: this.commands.now(), newId: () => '' }); // refused here, nothing destroyed
    const spend = await this.stepUp.authorize(c.step_up_token, 'ACCOUNT_ERASURE', c.principal);
    // The address is given up while it can still be named (after the key goes, the account's email reads as erased).
    await this.commands.execute(this.crypto.emailStream(state.email), emailClaimDecider, { kind: 'ReleaseEmail', profile_uuid: c.profile_uuid });
    // The person's keys, and the key of the invitation their registration spent (it sealed their address too).
    const keys_destroyed = (await this.keys.erase(c.profile_uuid)) + (state.invitation_uuid ? await this.keys.erase(invitationSubject(state.invitation_uuid)) : 0);
    const outcome = await this.commands.execute(stream, accountDecider, erase(keys_destroyed), { spend });
    return { profile_uuid: c.profile_uuid, status: 'ERASED', reason_code, erased_at: outcome.state.erased_at!, keys_destroyed, version: Number(outcome.version ?? 0n) };
  }
}

/** The scheduled job's unit of work: completes one account's closure if it is due (a no-op otherwise). */
export class CompleteDueClosure {
  constructor(readonly profile_uuid: string, readonly now: Date) {}
}

@CommandHandler(CompleteDueClosure)
export class CompleteDueClosureHandler implements ICommandHandler<CompleteDueClosure, boolean> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ profile_uuid, now }: CompleteDueClosure): Promise<boolean> {
    const outcome = await this.commands.execute(accountStream(profile_uuid), accountDecider, { kind: 'CompleteClosure' }, { now: () => now });
    return outcome.events.length > 0;
  }
}

export class CreateTenant {
  constructor(readonly principal: Principal, readonly name: string) {}
}

@CommandHandler(CreateTenant)
export class CreateTenantHandler implements ICommandHandler<CreateTenant> {
  constructor(
    private readonly commands: CommandExecutor,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ principal, name }: CreateTenant): Promise<object> {
    const tenant_uuid = nextId();
    // The creator's account counts its tenants under its own revision, so concurrent creations cannot both take the
    // last slot (TENANT_CREATION_LIMIT), and TENANT_CREATION=admin-only refuses everyone but platform admins.
    await this.commands.execute(accountStream(principal.profile_uuid), accountDecider, {
      kind: 'ClaimTenantCreation',
      tenant_uuid,
      policy: this.config.tenantCreation,
      limit: this.config.tenantCreationLimit,
      is_platform_admin: principal.platform_role === 'ADMIN',
    });
    await this.commands.execute(tenantStream(tenant_uuid), tenantDecider, { kind: 'CreateTenant', tenant_uuid, name, owner_profile_uuid: principal.profile_uuid });
    return { tenant_uuid, name, role_code: 'OWNER' };
  }
}

export class AssignTenantAuthority {
  constructor(readonly principal: Principal, readonly tenant_uuid: string, readonly profile_uuid: string, readonly role_code: 'TENANT_ADMIN' | 'TENANT_MODERATOR', readonly reason: string) {}
}

@CommandHandler(AssignTenantAuthority)
export class AssignTenantAuthorityHandler implements ICommandHandler<AssignTenantAuthority> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly queries: QueryBus,
  ) {}

  async execute(c: AssignTenantAuthority): Promise<object> {
    // The lookup runs whoever asks; the decider answers the actor's authority first, so a member without authority
    // learns nothing about which profiles belong to the tenant.
    const target_is_member: boolean = await this.queries.execute(new IsTenantMember(c.tenant_uuid, c.profile_uuid));
    await this.commands.execute(tenantStream(c.tenant_uuid), tenantDecider, {
      kind: 'AssignTenantAuthority',
      tenant_uuid: c.tenant_uuid,
      actor_profile_uuid: c.principal.profile_uuid,
      actor_is_platform_admin: c.principal.platform_role === 'ADMIN',
      profile_uuid: c.profile_uuid,
      target_is_member,
      role_code: c.role_code,
      reason: c.reason,
    });
    return { tenant_uuid: c.tenant_uuid, profile_uuid: c.profile_uuid, role_code: c.role_code, reason: c.reason, assigned_by_profile_uuid: c.principal.profile_uuid };
  }
}

export class CreateWorkspace {
  constructor(readonly principal: Principal, readonly name: string) {}
}

@CommandHandler(CreateWorkspace)
export class CreateWorkspaceHandler implements ICommandHandler<CreateWorkspace> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ principal, name }: CreateWorkspace): Promise<object> {
    const workspace_uuid = nextId();
    const outcome = await this.commands.execute(workspaceStream(workspace_uuid), workspaceDecider, { kind: 'CreateWorkspace', workspace_uuid, tenant_uuid: principal.tenant_uuid, name, owner_profile_uuid: principal.profile_uuid });
    return { workspace_id: workspace_uuid, tenant_uuid: principal.tenant_uuid, name, role: 'OWNER', created: outcome.events[0].occurred_at };
  }
}

export class SelectActiveWorkspace {
  constructor(readonly principal: Principal, readonly workspace_id: string) {}
}

@CommandHandler(SelectActiveWorkspace)
export class SelectActiveWorkspaceHandler implements ICommandHandler<SelectActiveWorkspace> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly queries: QueryBus,
  ) {}

  async execute({ principal, workspace_id }: SelectActiveWorkspace): Promise<object> {
    const workspace = await this.queries.execute(new GetWorkspaceMembership(principal, workspace_id));
    if (!workspace) throw new PlatformError('NOT_FOUND', 'No such workspace.');
    await this.commands.execute(accountStream(principal.profile_uuid), accountDecider, { kind: 'SelectActiveWorkspace', workspace_id });
    return { workspace };
  }
}
