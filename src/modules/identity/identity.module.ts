/**
 * The identity module: accounts, sessions, authenticator, step-up, contact, closure, tenants and workspaces. It
 * provides the platform's PrincipalResolver (the global auth guard) and StepUpVerifier (other modules' step-ups).
 */
import { SubjectKeyStore } from '../../platform/privacy/subject-keys';
import { Global, Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Logger } from 'nestjs-pino';
import { PRINCIPAL_RESOLVER, STEP_UP_VERIFIER } from '../../platform/auth/principal';
import { TENANT_ROLE_RESOLVER } from '../../platform/auth/tenant-role';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { accountDecider } from './domain/account';
import { emailClaimDecider, tenantDecider } from './domain/access';
import { accountStream, GLOBAL_TENANT_UUID, tenantStream } from './domain/identity.constants';
import { deliveryPortProvider } from './delivery';
import { AssignTenantAuthorityHandler, CancelAccountClosureHandler, CompleteDueClosureHandler, CreateTenantHandler, CreateWorkspaceHandler, EraseAccountHandler, RequestAccountClosureHandler, SelectActiveWorkspaceHandler } from './commands/account-lifecycle.commands';
import {
  ActivateAccountHandler,
  ConfirmContactChangeHandler,
  IssueStepUpHandler,
  RegisterAccount,
  RegisterAccountHandler,
  RequestContactChangeHandler,
  RevokeSessionHandler,
  StartSessionHandler,
} from './commands/identity.commands';
import { ConfirmAuthenticatorEnrollmentHandler, DisableAuthenticatorHandler, StartAuthenticatorEnrollmentHandler } from './commands/authenticator.commands';
import { AccountClosureSweep } from './closure-sweep';
import { IdentityController } from './identity.controller';
import { passwordPolicyIssues } from './security/password-policy';
import { IdentityCrypto, LoginThrottle, MailThrottle, SessionActivity, SessionPrincipalResolver, StepUpService, ThrottleStore } from './identity.services';
import {
  GetAccountHandler,
  GetActiveWorkspaceHandler,
  ListAuthenticationEventsHandler,
  ListDueClosuresHandler,
  GetWorkspaceMembershipHandler,
  ListTenantAuthoritiesHandler,
  GetTenantRoleHandler,
  TenantRoleLookup,
  ListWorkspacesHandler,
  ListWorkspaceMembersHandler,
  GetTenantJoinPolicyHandler,
  ListTenantInvitationsHandler,
} from './queries/identity.queries';
import { IsTenantMemberHandler } from './queries/tenant-membership';
import { InviteToTenantHandler, RevokeTenantInvitationHandler, SetTenantJoinPolicyHandler } from './commands/tenant-joins.commands';
import { AddWorkspaceMemberHandler, ChangeWorkspaceMemberRoleHandler, LeaveWorkspaceHandler, RemoveWorkspaceMemberHandler } from './commands/workspace-members.commands';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

// Global: every module's guards reach the PrincipalResolver and StepUpVerifier it exports.
@Global()
@Module({
  controllers: [IdentityController],
  providers: [
    AccountClosureSweep,
    IdentityCrypto,
    LoginThrottle,
    SessionPrincipalResolver,
    StepUpService,
    SessionActivity,
    ThrottleStore,
    MailThrottle,
    deliveryPortProvider,
    { provide: PRINCIPAL_RESOLVER, useExisting: SessionPrincipalResolver },
    { provide: STEP_UP_VERIFIER, useExisting: StepUpService },
    TenantRoleLookup,
    { provide: TENANT_ROLE_RESOLVER, useExisting: TenantRoleLookup },
    RegisterAccountHandler,
    ActivateAccountHandler,
    StartSessionHandler,
    RevokeSessionHandler,
    IssueStepUpHandler,
    StartAuthenticatorEnrollmentHandler,
    ConfirmAuthenticatorEnrollmentHandler,
    DisableAuthenticatorHandler,
    RequestContactChangeHandler,
    ConfirmContactChangeHandler,
    RequestAccountClosureHandler,
    CancelAccountClosureHandler,
    CompleteDueClosureHandler,
    EraseAccountHandler,
    CreateTenantHandler,
    AssignTenantAuthorityHandler,
    CreateWorkspaceHandler,
    SelectActiveWorkspaceHandler,
    AddWorkspaceMemberHandler,
    ChangeWorkspaceMemberRoleHandler,
    RemoveWorkspaceMemberHandler,
    LeaveWorkspaceHandler,
    ListWorkspaceMembersHandler,
    ListAuthenticationEventsHandler,
    GetAccountHandler,
    ListWorkspacesHandler,
    GetActiveWorkspaceHandler,
    ListTenantAuthoritiesHandler,
    GetTenantRoleHandler,
    ListDueClosuresHandler,
    GetWorkspaceMembershipHandler,
    IsTenantMemberHandler,
    SetTenantJoinPolicyHandler,
    InviteToTenantHandler,
    RevokeTenantInvitationHandler,
    GetTenantJoinPolicyHandler,
    ListTenantInvitationsHandler,
  ],
  exports: [PRINCIPAL_RESOLVER, STEP_UP_VERIFIER, TENANT_ROLE_RESOLVER],
})
export class IdentityModule implements OnApplicationBootstrap {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly commands: CommandExecutor,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly logger: Logger,
    private readonly crypto: IdentityCrypto,
    private readonly keys: SubjectKeyStore,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Before anything is appended: a node with another identity key would name email claims differently.
    await this.keys.assertSharedSecret('IDENTITY_SECRET_KEY', this.crypto.keyCheck);
    await this.bootstrapAdmin();
  }

  /** The platform admin of ADMIN_EMAIL/ADMIN_PASSWORD, created active on first start with the global tenant. */
  private async bootstrapAdmin(): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword) return;
    const email = adminEmail.trim().toLowerCase();
    const claim = await this.commands.load(this.crypto.emailStream(email), emailClaimDecider);
    let owner = claim.state.owner;
    const account = owner ? await this.commands.load(accountStream(owner), accountDecider) : null;
    if (!owner || account?.state.status === 'NONE') {
      const issues = passwordPolicyIssues(adminPassword, email);
      if (issues.length > 0) throw new Error(`ADMIN_PASSWORD does not meet the password policy: ${issues.join('; ')}`);
      await this.commandBus.execute(
        new RegisterAccount(
          { account_type: 'personal', email, first_name: 'Platform', last_name: 'Administrator', password: adminPassword, terms: { version: 'bootstrap', accepted: true } },
          'ADMIN',
        ),
      );
      owner = (await this.commands.load(this.crypto.emailStream(email), emailClaimDecider)).state.owner;
      this.logger.log({ admin: email }, 'platform admin bootstrapped');
    }
    const global = await this.commands.load(tenantStream(GLOBAL_TENANT_UUID), tenantDecider);
    if (!global.state.exists && owner) {
      await this.commands.execute(tenantStream(GLOBAL_TENANT_UUID), tenantDecider, { kind: 'CreateTenant', tenant_uuid: GLOBAL_TENANT_UUID, name: 'Global', owner_profile_uuid: owner });
    }
  }
}
