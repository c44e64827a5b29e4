/** Identity over HTTP: PLATFORM.md sections 5 and 6 (registration, activation, sessions, TOTP, step-up, contact, closure, tenancy). */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentPrincipal, PlatformAdminOnly, PRINCIPAL_RESOLVER, type Principal, type PrincipalResolver } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { PageQuery, pageLimit } from '../../platform/http/pagination';
import { Public, SecretResponse } from '../../platform/http/public.decorator';
import { Inject } from '@nestjs/common';
import {
  ActivateAccount,
  ConfirmContactChange,
  IssueStepUp,
  RegisterAccount,
  RequestContactChange,
  RevokeSession,
  StartSession,
} from './commands/identity.commands';
import { ConfirmAuthenticatorEnrollment, DisableAuthenticator, StartAuthenticatorEnrollment } from './commands/authenticator.commands';
import { AssignTenantAuthority, CancelAccountClosure, closureView, CreateTenant, CreateWorkspace, EraseAccount, RequestAccountClosure, SelectActiveWorkspace } from './commands/account-lifecycle.commands';
import {
  AccountActivationRequest,
  AccountClosureCancellationRequest,
  AccountErasureRequest,
  AccountParam,
  AccountClosureRequest,
  AccountRegistrationRequest,
  ActiveWorkspaceRequest,
  AddWorkspaceMemberRequest,
  ChangeWorkspaceMemberRoleRequest,
  LeaveWorkspaceRequest,
  RemoveWorkspaceMemberQuery,
  WorkspaceMemberParam,
  WorkspaceParam,
  AssignTenantAuthorityRequest,
  AuthenticatorConfirmationRequest,
  AuthenticatorDisableRequest,
  AuthenticatorEnrollmentRequest,
  ContactChangeConfirmation,
  ContactChangeRequest,
  CreateTenantRequest,
  CreateWorkspaceRequest,
  EnrollmentParam,
  SessionParam,
  LoginRequest,
  StepUpRequest,
  TenantParam,
  TenantInvitationParam,
  TenantInvitationRequest,
  TenantJoinPolicyRequest,
  VerifyTokenRequest,
} from './dto/identity.dto';
import { GetAccount, GetActiveWorkspace, GetTenantJoinPolicy, ListAuthenticationEvents, ListTenantAuthorities, ListTenantInvitations, ListWorkspaceMembers, ListWorkspaces } from './queries/identity.queries';
import { InviteToTenant, RevokeTenantInvitation, SetTenantJoinPolicy } from './commands/tenant-joins.commands';
import { AddWorkspaceMember, ChangeWorkspaceMemberRole, LeaveWorkspace, RemoveWorkspaceMember, type WorkspaceMemberChange } from './commands/workspace-members.commands';
import { CommandExecutor } from '../../platform/command/command-executor';
import { accountDecider } from './domain/account';
import { accountStream } from './domain/identity.constants';
import { deviceFromUserAgent } from './security/user-agent';
import { MailThrottle } from './identity.services';
import { AGENT_INTEGRATION_PROFILE, declaredAuthenticationProfiles } from '../../platform/capabilities/capability';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { ApiErrors } from '../../platform/http/openapi';
import {
  AccountErasureResponse,
  AccountActivationReceiptResponse,
  AccountRegistrationReceiptResponse,
  SessionTokenResponse,
  AccountClosureResponse,
  ActiveWorkspaceResponse,
  AuthenticationEventPageResponse,
  AuthenticationProfilesResponse,
  AuthenticatorDisableReceiptResponse,
  AuthenticatorEnrollmentReceiptResponse,
  AuthenticatorEnrollmentResponse,
  ContactChangeReceiptResponse,
  ContactProfileResponse,
  SessionRevocationResponse,
  StepUpTokenResponse,
  TenantAuthorityAssignmentResponse,
  TenantAuthorityListResponse,
  TenantInvitationPageResponse,
  TenantInvitationResponse,
  TenantJoinPolicyChangeResponse,
  TenantJoinPolicyResponse,
  TenantResponse,
  TokenVerificationResponse,
  WorkspaceListResponse,
  WorkspaceMemberListResponse,
  WorkspaceMembershipResponse,
  WorkspaceResponse,
} from './dto/responses.dto';

const device = (req: FastifyRequest) => deviceFromUserAgent(req.headers['user-agent']);

@ApiTags('identity')
@Controller('api/v1')
export class IdentityController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly commands: CommandExecutor,
    @Inject(PRINCIPAL_RESOLVER) private readonly principals: PrincipalResolver,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly mails: MailThrottle,
  ) {}

  // --- registration and activation ---------------------------------------------------------------------------
  @Public()
  @Capability('registration')
  @Post('identity/registrations')
  @ApiOperation({ summary: 'Register an account; an activation token is delivered to the address.' })
  @ApiErrors(429)
  @ApiCreatedResponse({ type: AccountRegistrationReceiptResponse })
  async registerAccount(@Body() body: AccountRegistrationRequest, @Req() req: FastifyRequest): Promise<object> {
    await this.mails.consume(body.email, req.ip);
    return this.commandBus.execute(new RegisterAccount(body));
  }

  @Public()
  @Capability('registration')
  @Post('identity/activations')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activate an account with its activation token.' })
  @ApiOkResponse({ type: AccountActivationReceiptResponse })
  activateAccount(@Body() body: AccountActivationRequest): Promise<object> {
    return this.commandBus.execute(new ActivateAccount(body.token));
  }

  // --- sessions -------------------------------------------------------------------------------------------------
  @Public()
  @SecretResponse()
  @Capability('sessions')
  @Post('auth/sessions')
  @ApiOperation({ summary: 'Sign in with email and password (and a TOTP code when enrolled); answers a bearer token.' })
  @ApiErrors(401, 429)
  @ApiCreatedResponse({ type: SessionTokenResponse })
  signIn(@Body() body: LoginRequest, @Req() req: FastifyRequest): Promise<object> {
    return this.commandBus.execute(new StartSession(body.email, body.password, body.totp_code, device(req), req.ip));
  }

  @Capability('sessions')
  @Delete('auth/sessions/:session_uuid')
  @ApiOperation({ summary: 'Revoke one of your sessions.' })
  @ApiOkResponse({ type: SessionRevocationResponse })
  revokeSession(@Param() params: SessionParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new RevokeSession(principal, params.session_uuid));
  }

  @Public()
  @Capability('sessions')
  @Post('auth/verify')
  @HttpCode(200)
  @ApiOperation({ summary: 'Verify a bearer token and read the principal it stands for.' })
  @ApiErrors(401)
  @ApiOkResponse({ type: TokenVerificationResponse })
  async verifyToken(@Body() body: VerifyTokenRequest): Promise<object> {
    if (!(await this.principals.resolve(body.hashed_token))) throw new PlatformError('UNAUTHENTICATED', 'Credentials are not valid.');
    return { message: 'Credentials are valid.', success: true };
  }

  @Capability('sign-in-history')
  @Get('auth/events')
  @ApiOperation({ summary: 'Your authentication history (sign-ins, step-ups, session changes), newest first.' })
  @ApiOkResponse({ type: AuthenticationEventPageResponse })
  listAuthEvents(@Query() query: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListAuthenticationEvents(principal, pageLimit(query.limit, { default: 50, max: 200 }), query.cursor));
  }

  @SecretResponse()
  @Capability('step-up')
  @Post('auth/step-up')
  @ApiOperation({ summary: 'Prove your presence again for one sensitive action; answers a one-use step-up token.' })
  @ApiCreatedResponse({ type: StepUpTokenResponse })
  stepUp(@Body() body: StepUpRequest, @CurrentPrincipal() principal: Principal, @Req() req: FastifyRequest): Promise<object> {
    return this.commandBus.execute(new IssueStepUp(principal, body.purpose, body.password, body.totp_code, device(req), req.ip));
  }

  @Public()
  @Capability('integration-profiles')
  @Get('auth/profiles')
  @ApiOperation({ summary: 'Every way to authenticate (AuthenticationProfile) and the conventions an agent integrates with (AgentIntegrationProfile).' })
  @ApiOkResponse({ type: AuthenticationProfilesResponse })
  listProfiles(): object {
    // Every way to authenticate any module offers (each declares its own), and the platform's conventions.
    return { profiles: declaredAuthenticationProfiles(this.config), agent_integration: AGENT_INTEGRATION_PROFILE };
  }

  // --- authenticator ----------------------------------------------------------------------------------------------
  @SecretResponse()
  @Capability('two-factor-authentication')
  @Post('identity/authenticator/enrollments')
  @ApiOperation({ summary: 'Start a TOTP authenticator enrolment; answers the secret and its otpauth URI once.' })
  @ApiCreatedResponse({ type: AuthenticatorEnrollmentResponse })
  enrollAuthenticator(@Body() body: AuthenticatorEnrollmentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new StartAuthenticatorEnrollment(principal, body.issuer ?? undefined, body.label ?? undefined));
  }

  @SecretResponse()
  @Capability('two-factor-authentication')
  @Post('identity/authenticator/enrollments/:enrollment_uuid/confirm')
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm a TOTP enrolment with a current code; answers the recovery codes once.' })
  @ApiOkResponse({ type: AuthenticatorEnrollmentReceiptResponse })
  confirmAuthenticatorEnrollment(@Param() params: EnrollmentParam, @Body() body: AuthenticatorConfirmationRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new ConfirmAuthenticatorEnrollment(principal, params.enrollment_uuid, body.code));
  }

  @Capability('two-factor-authentication')
  @Post('identity/authenticator/disable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Disable the TOTP authenticator (needs a step-up token).' })
  @ApiOkResponse({ type: AuthenticatorDisableReceiptResponse })
  disableAuthenticator(@Body() body: AuthenticatorDisableRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    // Both may be null (seeds 001): a null one is not supplied, so `{recovery_code: null, step_up_token: …}` is one method.
    return this.commandBus.execute(new DisableAuthenticator(principal, body.recovery_code ?? undefined, body.step_up_token ?? undefined));
  }

  // --- contact ------------------------------------------------------------------------------------------------------
  @Capability('contact-details')
  @Get('identity/contact')
  @ApiOperation({ summary: 'Your contact details and profile id.' })
  @ApiOkResponse({ type: ContactProfileResponse })
  async getContact(@CurrentPrincipal() principal: Principal): Promise<object> {
    const a = await this.queryBus.execute(new GetAccount(principal.profile_uuid));
    return { profile_uuid: a.profile_uuid, email: a.email, email_verified: a.email_verified === 1, phone: a.phone, phone_verified: a.phone_verified === 1 };
  }

  @Capability('contact-details')
  @Post('identity/contact-changes')
  @ApiOperation({ summary: 'Request a change of email address; a confirmation token goes to the new address.' })
  @ApiErrors(429)
  @ApiCreatedResponse({ type: ContactChangeReceiptResponse })
  async requestContactChange(@Body() body: ContactChangeRequest, @CurrentPrincipal() principal: Principal, @Req() req: FastifyRequest): Promise<object> {
    await this.mails.consume(body.value, req.ip);
    return this.commandBus.execute(new RequestContactChange(principal, body.contact_type, body.value, body.current_password));
  }

  @Public()
  @Capability('contact-details')
  @Post('identity/contact-changes/confirm')
  @HttpCode(200)
  @ApiOperation({ summary: 'Confirm a contact change with its token.' })
  @ApiOkResponse({ type: ContactChangeReceiptResponse })
  confirmContactChange(@Body() body: ContactChangeConfirmation): Promise<object> {
    return this.commandBus.execute(new ConfirmContactChange(body.token));
  }

  // --- closure -------------------------------------------------------------------------------------------------------
  @Capability('account-closure')
  @Post('identity/closure')
  @HttpCode(202)
  @ApiOperation({ summary: 'Request closure of your account; it completes after the grace period.' })
  @ApiAcceptedResponse({ type: AccountClosureResponse })
  requestClosure(@Body() body: AccountClosureRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    // A null reason_code or step_up_token (seeds 001: may be null) is not supplied.
    return this.commandBus.execute(new RequestAccountClosure(principal, body.current_password, body.reason_code ?? undefined, body.step_up_token ?? undefined));
  }

  @Capability('account-closure')
  @Get('identity/closure')
  @ApiOperation({ summary: 'The state of your account closure request.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: AccountClosureResponse })
  async getClosure(@CurrentPrincipal() principal: Principal): Promise<object> {
    const { state, version } = await this.commands.load(accountStream(principal.profile_uuid), accountDecider);
    return closureView(state, version);
  }

  @Capability('account-closure')
  @Post('identity/closure/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a pending account closure.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: AccountClosureResponse })
  cancelClosure(@Body() body: AccountClosureCancellationRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new CancelAccountClosure(principal, body.step_up_token ?? undefined));
  }

  // --- erasure -------------------------------------------------------------------------------------------------------
  @Capability('account-closure', { exposure: 'restricted', stepUp: 'ACCOUNT_ERASURE' })
  @PlatformAdminOnly()
  @Post('identity/admin/accounts/:profile_uuid/erasure')
  @HttpCode(200)
  @ApiOperation({
    summary: "Erase a closed account's personal data (platform admin, step-up ACCOUNT_ERASURE).",
    description:
      "Destroys the person's keys, so every personal and secret value of theirs in the log reads as erased from then on, records AccountErased (audited: the admin, the reason), and the read models scrub what they hold of the person; the audit chain still verifies. 422 unless the account's closure has completed; 409 when already erased. See docs/privacy.md.",
  })
  @ApiErrors(403)
  @ApiOkResponse({ type: AccountErasureResponse })
  eraseAccount(@Param() p: AccountParam, @Body() body: AccountErasureRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new EraseAccount(principal, p.profile_uuid, body.step_up_token, body.reason_code));
  }

  // --- tenants and workspaces -------------------------------------------------------------------------------------
  @Capability('tenants', { exposure: 'restricted' })
  @Post('tenants')
  @ApiOperation({ summary: 'Create a tenant; you become its owner.' })
  @ApiCreatedResponse({ type: TenantResponse })
  createTenant(@Body() body: CreateTenantRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new CreateTenant(principal, body.name));
  }

  @Capability('tenants', { exposure: 'restricted' })
  @Post('tenants/:tenant_uuid/authorities')
  @ApiOperation({ summary: 'Give a member of the tenant an authority (TENANT_ADMIN, TENANT_MODERATOR).' })
  @ApiCreatedResponse({ type: TenantAuthorityAssignmentResponse })
  assignAuthority(@Param() params: TenantParam, @Body() body: AssignTenantAuthorityRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new AssignTenantAuthority(principal, params.tenant_uuid, body.profile_uuid, body.role_code, body.reason));
  }

  @Capability('tenants')
  @Get('tenants/:tenant_uuid/authorities')
  @ApiOperation({ summary: 'The authorities granted in a tenant.' })
  @ApiOkResponse({ type: TenantAuthorityListResponse })
  listAuthorities(@Param() params: TenantParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListTenantAuthorities(principal, params.tenant_uuid));
  }

  @Capability('tenants')
  @Get('tenants/:tenant_uuid/join-policy')
  @ApiOperation({ summary: "Who may join the tenant by registering into it: INVITATION (the default) or OPEN." })
  @ApiOkResponse({ type: TenantJoinPolicyResponse })
  getJoinPolicy(@Param() params: TenantParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetTenantJoinPolicy(principal, params.tenant_uuid));
  }

  @Capability('tenants', { exposure: 'restricted' })
  @Put('tenants/:tenant_uuid/join-policy')
  @ApiOperation({
    summary: "Set who may join the tenant (the owner): INVITATION, or OPEN to anyone who knows its tenant_uuid.",
    description: 'Setting the policy it already has changes nothing. The global tenant is always open (422).',
  })
  @ApiOkResponse({ type: TenantJoinPolicyChangeResponse })
  setJoinPolicy(@Param() params: TenantParam, @Body() body: TenantJoinPolicyRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new SetTenantJoinPolicy(principal, params.tenant_uuid, body.join_policy));
  }

  @Capability('tenants', { exposure: 'restricted' })
  @Post('tenants/:tenant_uuid/invitations')
  @ApiOperation({
    summary: 'Invite an address into the tenant (the owner or a tenant admin); a one-use token is mailed to it.',
    description: 'The invited person registers with that address, the tenant_uuid and the token as invitation_token; valid seven days.',
  })
  @ApiErrors(429)
  @ApiCreatedResponse({ type: TenantInvitationResponse })
  async invite(@Param() params: TenantParam, @Body() body: TenantInvitationRequest, @CurrentPrincipal() principal: Principal, @Req() req: FastifyRequest): Promise<object> {
    await this.mails.consume(body.email, req.ip);
    return this.commandBus.execute(new InviteToTenant(principal, params.tenant_uuid, body.email));
  }

  @Capability('tenants', { exposure: 'restricted' })
  @Get('tenants/:tenant_uuid/invitations')
  @ApiOperation({ summary: "The tenant's invitations, newest first (the owner or a tenant admin)." })
  @ApiOkResponse({ type: TenantInvitationPageResponse })
  listInvitations(@Param() params: TenantParam, @Query() query: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListTenantInvitations(principal, params.tenant_uuid, pageLimit(query.limit, { default: 50, max: 200 }), query.cursor, this.commands.now()));
  }

  @Capability('tenants', { exposure: 'restricted' })
  @Post('tenants/:tenant_uuid/invitations/:invitation_uuid/revoke')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Revoke an invitation not yet spent (the owner or a tenant admin); the address it was sent to is erased.',
    description: 'Revoking it again answers the same; an accepted invitation is 409 (the person is a member).',
  })
  @ApiOkResponse({ type: TenantInvitationResponse })
  revokeInvitation(@Param() params: TenantInvitationParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new RevokeTenantInvitation(principal, params.tenant_uuid, params.invitation_uuid));
  }

  @Capability('workspaces')
  @Post('workspaces')
  @ApiOperation({ summary: 'Create a workspace in your tenant; you become its owner.' })
  @ApiCreatedResponse({ type: WorkspaceResponse })
  createWorkspace(@Body() body: CreateWorkspaceRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new CreateWorkspace(principal, body.name));
  }

  @Capability('workspaces')
  @Get('workspaces')
  @ApiOperation({ summary: 'The workspaces you belong to.' })
  @ApiOkResponse({ type: WorkspaceListResponse })
  listWorkspaces(@CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListWorkspaces(principal));
  }

  @Capability('workspaces')
  @Post('workspaces/active')
  @HttpCode(200)
  @ApiOperation({ summary: 'Choose the workspace your session acts in.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: ActiveWorkspaceResponse })
  selectWorkspace(@Body() body: ActiveWorkspaceRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new SelectActiveWorkspace(principal, body.workspace_id));
  }

  @Capability('workspaces')
  @Get('workspaces/active')
  @ApiOperation({ summary: 'The workspace your session acts in.' })
  @ApiOkResponse({ type: ActiveWorkspaceResponse })
  getActiveWorkspace(@CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetActiveWorkspace(principal));
  }

  /** The workspace's members, longest-standing first, and its `version` for the next change. */
  @Capability('workspaces')
  @Get('workspaces/:workspace_id/members')
  @ApiOperation({ summary: 'A workspace\'s members and their roles.' })
  @ApiOkResponse({ type: WorkspaceMemberListResponse })
  listWorkspaceMembers(@Param() params: WorkspaceParam, @Query() query: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListWorkspaceMembers(principal, params.workspace_id, pageLimit(query.limit, { default: 50, max: 200 }), query.cursor));
  }

  @Capability('workspaces')
  @Post('workspaces/:workspace_id/members')
  @ApiOperation({ summary: 'Add a profile of the tenant to a workspace with a role.' })
  @ApiCreatedResponse({ type: WorkspaceMembershipResponse })
  addWorkspaceMember(@Param() params: WorkspaceParam, @Body() body: AddWorkspaceMemberRequest, @CurrentPrincipal() principal: Principal): Promise<WorkspaceMemberChange> {
    return this.commandBus.execute(new AddWorkspaceMember(principal, params.workspace_id, body.profile_uuid, body.role, body.expected_version));
  }

  @Capability('workspaces')
  @Patch('workspaces/:workspace_id/members/:profile_uuid')
  @ApiOperation({ summary: 'Change a member\'s role (expected_version guards concurrent changes).' })
  @ApiOkResponse({ type: WorkspaceMembershipResponse })
  changeWorkspaceMemberRole(@Param() params: WorkspaceMemberParam, @Body() body: ChangeWorkspaceMemberRoleRequest, @CurrentPrincipal() principal: Principal): Promise<WorkspaceMemberChange> {
    return this.commandBus.execute(new ChangeWorkspaceMemberRole(principal, params.workspace_id, params.profile_uuid, body.role, body.expected_version));
  }

  @Capability('workspaces')
  @Delete('workspaces/:workspace_id/members/:profile_uuid')
  @ApiOperation({ summary: 'Remove a member from a workspace.' })
  @ApiOkResponse({ type: WorkspaceMembershipResponse })
  removeWorkspaceMember(@Param() params: WorkspaceMemberParam, @Query() query: RemoveWorkspaceMemberQuery, @CurrentPrincipal() principal: Principal): Promise<WorkspaceMemberChange> {
    return this.commandBus.execute(new RemoveWorkspaceMember(principal, params.workspace_id, params.profile_uuid, Number(query.expected_version)));
  }

  @Capability('workspaces')
  @Post('workspaces/:workspace_id/leave')
  @HttpCode(200)
  @ApiOperation({ summary: 'Leave a workspace (its last owner cannot).' })
  @ApiOkResponse({ type: WorkspaceMembershipResponse })
  leaveWorkspace(@Param() params: WorkspaceParam, @Body() body: LeaveWorkspaceRequest, @CurrentPrincipal() principal: Principal): Promise<WorkspaceMemberChange> {
    return this.commandBus.execute(new LeaveWorkspace(principal, params.workspace_id, body.expected_version));
  }
}
