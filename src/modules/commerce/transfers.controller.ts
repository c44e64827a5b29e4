/**
 * Transfer routes (`/api/v1/transfers/…`, docs/transfers.md): create, list, read, and one route per seed shape
 * (envelope, governance, compliance cancel), the admin routes through which the simulated screening, governance and
 * rail report, the compliance queue, and the recipient key directory. The seeds' shapes allow no extra field, so the
 * version they act on is `If-Match` and the compliance step-up token is `X-Step-Up-Token`.
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { TenantRoleRequired } from '../../platform/auth/tenant-role';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import { CommandAnswers } from '../../platform/http/command-answers';
import {
  AuthorizeTransferEnvelope, BindTransferGovernance, CancelTransferForCompliance, RegisterRecipientKey, ReportTransfer, RequestTransfer, RetireRecipientKey,
} from './commands';
import { ExpectedVersionRequest } from './dto/commerce.dto';
import { CommerceCommandReceipt } from './dto/responses.dto';
import { RecipientKeyPageResponse, RecipientKeyResponse, TransferPageResponse, TransferResponse } from './dto/transfer-responses.dto';
import {
  AuthorizeTransferEnvelopeRequest, BindContractGovernanceRequest, CancelTransferComplianceRequest, ComplianceQueueQuery, CreateTransferRequest, RecipientKeyListQuery, RecipientKeyParam,
  RegisterRecipientKeyRequest, RotateRecipientKeyRequest, TransferGovernanceReport, TransferListQuery, TransferParam, TransferRailReport, TransferScreeningReport,
} from './dto/transfers.dto';
import { GetRecipientKey, GetTransfer, ListComplianceQueue, ListRecipientKeys, ListTransfers } from './transfer-queries';
import { COMPLIANCE_ROLES } from './commerce-access';

const IF_MATCH = { name: 'If-Match', required: true, description: 'The transfer\'s version you read (e.g. "3"): 409 VERSION_CONFLICT when it changed since.' };

@ApiTags('transfers')
@Controller('api/v1/transfers')
export class TransfersController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private act(command: object, read: (id: string) => object): Promise<object> {
    return this.answers.act(command, read);
  }

  @Capability('transfers')
  @Post()
  @ApiOperation({ summary: 'Request a transfer of settled funds from an operational wallet; the amount is reserved and screening starts.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  requestTransfer(@Body() body: CreateTransferRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RequestTransfer(principal, body), (id) => new GetTransfer(principal, id));
  }

  @Capability('transfers')
  @Get()
  @ApiOperation({ summary: 'The transfers of your active workspace (filters: merchant_uuid, status).' })
  @ApiOkResponse({ type: TransferPageResponse })
  listTransfers(@Query() query: TransferListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListTransfers(principal, query));
  }

  @Capability('compliance', { exposure: 'restricted' })
  @TenantRoleRequired(COMPLIANCE_ROLES, { tenant: 'any' })
  @Get('compliance-queue')
  @ApiOperation({ summary: 'A tenant\'s transfers in one state, HELD by default (its compliance officers).' })
  @ApiErrors(404)
  @ApiOkResponse({ type: TransferPageResponse })
  complianceQueue(@Query() query: ComplianceQueueQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListComplianceQueue(principal, query));
  }

  @Capability('transfers')
  @Get(':transfer_uuid')
  @ApiOperation({ summary: 'A transfer: its workspace\'s members, its tenant\'s compliance officers and platform admins read it.' })
  @ApiOkResponse({ type: TransferResponse })
  getTransfer(@Param() p: TransferParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetTransfer(principal, p.transfer_uuid));
  }

  @Capability('travel-rule')
  @Post(':transfer_uuid/envelope')
  @HttpCode(200)
  @ApiOperation({ summary: 'Authorize the travel-rule envelope (commitments only; the platform never sees the payload).' })
  @ApiHeader(IF_MATCH)
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  authorizeEnvelope(@Param() p: TransferParam, @Headers('if-match') ifMatch: string | undefined, @Body() body: AuthorizeTransferEnvelopeRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new AuthorizeTransferEnvelope(principal, p.transfer_uuid, ifMatch, body), (id) => new GetTransfer(principal, id));
  }

  @Capability('compliance')
  @Post(':transfer_uuid/governance')
  @HttpCode(200)
  @ApiOperation({ summary: 'Bind the transfer to a governance proposal and an MPC signing request (each id binds one transfer: 409 otherwise).' })
  @ApiHeader(IF_MATCH)
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  bindGovernance(@Param() p: TransferParam, @Headers('if-match') ifMatch: string | undefined, @Body() body: BindContractGovernanceRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new BindTransferGovernance(principal, p.transfer_uuid, ifMatch, body), (id) => new GetTransfer(principal, id));
  }

  @Capability('compliance', { exposure: 'restricted', stepUp: 'TRANSFER_COMPLIANCE_CANCELLATION' })
  @TenantRoleRequired(COMPLIANCE_ROLES, { tenant: 'any' })
  @Post(':transfer_uuid/compliance-cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a transfer before submission for compliance (the tenant\'s compliance officers; step-up TRANSFER_COMPLIANCE_CANCELLATION).' })
  @ApiHeader(IF_MATCH)
  @ApiHeader({ name: 'X-Step-Up-Token', required: true, description: 'A step-up token of purpose TRANSFER_COMPLIANCE_CANCELLATION, issued to your session.' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  complianceCancel(
    @Param() p: TransferParam,
    @Headers('if-match') ifMatch: string | undefined,
    @Headers('x-step-up-token') stepUp: string | undefined,
    @Body() body: CancelTransferComplianceRequest,
    @CurrentPrincipal() principal: Principal,
  ): Promise<object> {
    return this.act(new CancelTransferForCompliance(principal, p.transfer_uuid, ifMatch, stepUp, body), (id) => new GetTransfer(principal, id));
  }

  @Capability('compliance', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/:transfer_uuid/screening')
  @HttpCode(200)
  @ApiOperation({ summary: 'The simulated screening reports (platform admins): CLEAR moves on, FLAGGED holds it for compliance.' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reportScreening(@Param() p: TransferParam, @Body() body: TransferScreeningReport, @CurrentPrincipal() principal: Principal): Promise<object> {
    const report = { kind: 'ReportScreening' as const, transfer_uuid: p.transfer_uuid, expected_version: body.expected_version, result: body.result, screening_reference: body.screening_reference ?? null, by_profile_uuid: principal.profile_uuid };
    return this.act(new ReportTransfer(principal, p.transfer_uuid, report), (id) => new GetTransfer(principal, id));
  }

  @Capability('compliance', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/:transfer_uuid/governance')
  @HttpCode(200)
  @ApiOperation({ summary: 'The simulated governance reports a decision on the proposal or the MPC request (platform admins).' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reportGovernance(@Param() p: TransferParam, @Body() body: TransferGovernanceReport, @CurrentPrincipal() principal: Principal): Promise<object> {
    const report = { kind: 'DecideGovernance' as const, transfer_uuid: p.transfer_uuid, expected_version: body.expected_version, governance_kind: body.kind, outcome: body.outcome };
    return this.act(new ReportTransfer(principal, p.transfer_uuid, report), (id) => new GetTransfer(principal, id));
  }

  @Capability('transfers', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('admin/:transfer_uuid/rail')
  @HttpCode(200)
  @ApiOperation({ summary: 'The simulated rail reports a transfer\'s move (platform admins): submit, confirm, fail.' })
  @ApiOkResponse({ type: TransferResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  reportTransferRail(@Param() p: TransferParam, @Body() body: TransferRailReport, @CurrentPrincipal() principal: Principal): Promise<object> {
    const report = {
      kind: 'TransferRail' as const, transfer_uuid: p.transfer_uuid, expected_version: body.expected_version, transition: body.transition, transaction_reference: body.transaction_reference ?? null,
      failure_code: body.failure_code ?? null,
    };
    return this.act(new ReportTransfer(principal, p.transfer_uuid, report), (id) => new GetTransfer(principal, id));
  }
}

/**
 * The directory of receiving institutions' public keys for travel-rule envelopes (`/api/v1/travel-rule/recipient-keys`:
 * its own resource, so no path of it can be read as a transfer's).
 */
@ApiTags('transfers')
@Controller('api/v1/travel-rule/recipient-keys')
export class RecipientKeysController {
  constructor(
    private readonly queryBus: QueryBus,
    private readonly answers: CommandAnswers,
  ) {}

  private act(command: object, read: (id: string) => object): Promise<object> {
    return this.answers.act(command, read);
  }

  @Capability('travel-rule')
  @Get()
  @ApiOperation({ summary: 'The directory of receiving institutions\' public keys (filter: status).' })
  @ApiOkResponse({ type: RecipientKeyPageResponse })
  listRecipientKeys(@Query() query: RecipientKeyListQuery): Promise<object> {
    return this.queryBus.execute(new ListRecipientKeys(query));
  }

  @Capability('travel-rule')
  @PlatformAdminOnly()
  @Post()
  @ApiOperation({ summary: 'Register a receiving institution\'s X25519 public key (platform admins).' })
  @ApiCreatedResponse({ type: RecipientKeyResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  registerRecipientKey(@Body() body: RegisterRecipientKeyRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RegisterRecipientKey(principal, body), (id) => new GetRecipientKey(id));
  }

  @Capability('travel-rule')
  @Get(':recipient_key_id')
  @ApiOperation({ summary: 'A recipient key.' })
  @ApiOkResponse({ type: RecipientKeyResponse })
  getRecipientKey(@Param() p: RecipientKeyParam): Promise<object> {
    return this.queryBus.execute(new GetRecipientKey(p.recipient_key_id));
  }

  @Capability('travel-rule')
  @PlatformAdminOnly()
  @Post(':recipient_key_id/rotate')
  @ApiOperation({ summary: 'Rotate a key: its successor is registered and it is RETIRED, pointing at it (platform admins).' })
  @ApiCreatedResponse({ type: RecipientKeyResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  rotateRecipientKey(@Param() p: RecipientKeyParam, @Body() body: RotateRecipientKeyRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RegisterRecipientKey(principal, { public_key: body.public_key }, { recipient_key_id: p.recipient_key_id, expected_version: body.expected_version }), (id) => new GetRecipientKey(id));
  }

  @Capability('travel-rule')
  @PlatformAdminOnly()
  @Post(':recipient_key_id/retire')
  @HttpCode(200)
  @ApiOperation({ summary: 'Retire a key: envelopes can no longer name it (platform admins).' })
  @ApiOkResponse({ type: RecipientKeyResponse })
  @ApiPendingReadBack(CommerceCommandReceipt)
  retireRecipientKey(@Param() p: RecipientKeyParam, @Body() body: ExpectedVersionRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.act(new RetireRecipientKey(principal, p.recipient_key_id, body.expected_version), (id) => new GetRecipientKey(id));
  }
}
