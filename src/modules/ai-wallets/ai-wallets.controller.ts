/** AI-agent wallet routes (`/api/v1/ai-wallets/…`, PLATFORM.md section 6) and the agents' token endpoint. */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AiWalletIntentEvaluation } from './dto/ai-wallets.dto';
import type { FastifyReply } from 'fastify';
import { IsIn, Matches } from 'class-validator';
import { CurrentPrincipal, WorkloadAllowed, type Principal } from '../../platform/auth/principal';
import { pageLimit, PageQuery } from '../../platform/http/pagination';
import { Optional } from '../../platform/http/validation';
import { Public, SecretResponse } from '../../platform/http/public.decorator';
import {
  ChangeBindingState, ChangeExecutionMode, CreateBinding, CreateIntent, EvaluateIntent, IssueWorkloadToken, policyTerms, PublishPolicy, ReviewApproval, SettleIntent, type CreatedBinding,
} from './commands';
import {
  AiWalletIntentEvaluationRequest, AiWalletPolicyRequest, ApprovalParam, BindingParam, ChangeBindingStateRequest, CreateBindingRequest, ExecutionModeRequest, IntentParam,
  ReviewApprovalRequest, SettleIntentRequest, WorkloadTokenRequest,
} from './dto/ai-wallets.dto';
import { GetBinding, GetBudget, GetIntent, GetPolicy, ListActivity, ListApprovals, ListBindings, ListIntents, VerifyActivity } from './queries';
import { ApiErrors, ApiPendingReadBack } from '../../platform/http/openapi';
import {
  AiWalletActivityPageResponse, AiWalletActivityVerificationResponse, AiWalletApprovalListResponse, AiWalletApprovalResponse, AiWalletBindingListResponse, AiWalletBindingResponse,
  AiWalletBindingStateReceiptResponse, AiWalletBudgetResponse, AiWalletExecutionModeResponse, AiWalletIntentListResponse, AiWalletIntentResponse, AiWalletPolicyReceiptResponse,
  AiWalletPolicyResponse, CreatedAiWalletBindingResponse, PendingAiWalletBindingResponse, WorkloadTokenResponse,
} from './dto/responses.dto';

const PAGE = { default: 50, max: 200 };

export class BindingListQuery extends PageQuery {
  @Matches(/^[0-9a-f]{32}$/, { message: 'workspace_uuid must be 32 lowercase hex characters' })
  workspace_uuid!: string;
}

export class PolicyVersionQuery {
  @Optional() @Matches(/^[1-9]\d{0,8}$/, { message: 'version must be a positive integer' })
  version?: string;
}

export class ApprovalListQuery extends PageQuery {
  @Optional() @IsIn(['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'])
  state?: string;
}

@ApiTags('ai-wallets')
@Controller('api/v1/ai-wallets')
export class AiWalletsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly runner: ProjectionRunner,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  /** Commands whose answer is read back from the read models wait for their own writes first. */
  /** The read model's answer once it holds the command's writes; else (202) what the command knows. */
  private readBack<T>(query: object, pending: () => T): Promise<T> {
    return this.runner.readBack(() => this.queryBus.execute(query), pending, this.config.readYourWritesTimeoutMs);
  }

  @Capability('bindings')
  @Post('bindings')
  @SecretResponse()
  @ApiOperation({ summary: 'Create a binding; the answer carries the workload client secret, once.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CreatedAiWalletBindingResponse })
  @ApiPendingReadBack(PendingAiWalletBindingResponse)
  async createBinding(@Body() body: CreateBindingRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const created: CreatedBinding = await this.commandBus.execute(new CreateBinding(principal, body));
    // The secret is shown once: it goes out even when the read model lags (202).
    const binding = await this.readBack<object>(new GetBinding(principal, created.binding_uuid), () => ({ binding_uuid: created.binding_uuid, workload_client_id: created.workload_client_id }));
    return { ...binding, client_secret: created.client_secret };
  }

  @Capability('bindings')
  @Get('bindings')
  @ApiOperation({ summary: 'The AI-agent wallet bindings of your workspace.' })
  @ApiErrors(404)
  @ApiOkResponse({ type: AiWalletBindingListResponse })
  listBindings(@Query() query: BindingListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListBindings(principal, query.workspace_uuid, pageLimit(query.limit, PAGE), query.cursor));
  }

  @Capability('bindings')
  @Get('bindings/:binding_uuid')
  @ApiOperation({ summary: 'A binding with its policy and budget.' })
  @ApiOkResponse({ type: AiWalletBindingResponse })
  getBinding(@Param() p: BindingParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetBinding(principal, p.binding_uuid));
  }

  @Capability('bindings')
  @Patch('bindings/:binding_uuid')
  @ApiOperation({ summary: 'Suspend, reactivate or revoke a binding.' })
  @ApiOkResponse({ type: AiWalletBindingResponse })
  @ApiPendingReadBack(AiWalletBindingStateReceiptResponse)
  async changeBindingState(@Param() p: BindingParam, @Body() body: ChangeBindingStateRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    await this.commandBus.execute(new ChangeBindingState(principal, p.binding_uuid, body.state, body.state_reason));
    return this.readBack(new GetBinding(principal, p.binding_uuid), () => ({ binding_uuid: p.binding_uuid, state: body.state, state_reason: body.state_reason }));
  }

  @Capability('spending-policy')
  @Get('bindings/:binding_uuid/policy')
  @ApiOperation({ summary: 'A binding\'s policy (the active version, or ?version=n).' })
  @ApiOkResponse({ type: AiWalletPolicyResponse })
  getPolicy(@Param() p: BindingParam, @Query() q: PolicyVersionQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetPolicy(principal, p.binding_uuid, q.version === undefined ? undefined : Number(q.version)));
  }

  @Capability('spending-policy')
  @Put('bindings/:binding_uuid/policy')
  @ApiOperation({ summary: 'Publish the next policy version (earlier versions stay readable with ?version=).' })
  @ApiOkResponse({ type: AiWalletPolicyResponse })
  @ApiPendingReadBack(AiWalletPolicyReceiptResponse)
  async publishPolicy(@Param() p: BindingParam, @Body() body: AiWalletPolicyRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    const version: number = await this.commandBus.execute(new PublishPolicy(principal, p.binding_uuid, policyTerms(body)));
    return this.readBack(new GetPolicy(principal, p.binding_uuid, version), () => ({ binding_uuid: p.binding_uuid, version }));
  }

  @Capability('budgets')
  @Get('bindings/:binding_uuid/budget')
  @WorkloadAllowed()
  @ApiOperation({ summary: 'A binding\'s budget: limits, reserved and remaining amounts.' })
  @ApiOkResponse({ type: AiWalletBudgetResponse })
  getBudget(@Param() p: BindingParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetBudget(principal, p.binding_uuid));
  }

  @Capability('intents')
  @Post('bindings/:binding_uuid/intents/evaluate')
  @HttpCode(200)
  @WorkloadAllowed()
  @ApiOperation({ summary: 'Dry run: which rule decides, the budget before and after; appends and reserves nothing.' })
  @ApiOkResponse({ type: AiWalletIntentEvaluation })
  evaluateIntent(@Param() p: BindingParam, @Body() body: AiWalletIntentEvaluationRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new EvaluateIntent(principal, p.binding_uuid, body));
  }

  @Capability('intents')
  @Post('bindings/:binding_uuid/intents')
  @WorkloadAllowed()
  @ApiOperation({ summary: 'Live intent (needs Idempotency-Key and a complete rationale); an accepted one reserves budget.' })
  @ApiErrors(402)
  @ApiResponse({ status: 201, type: AiWalletIntentResponse, description: 'The intent, decided (an accepted one reserves budget).' })
  @ApiResponse({ status: 200, type: AiWalletIntentResponse, description: 'The intent this Idempotency-Key already created on this binding: nothing new was decided.' })
  async createIntent(
    @Param() p: BindingParam,
    @Body() body: AiWalletIntentEvaluationRequest,
    @Headers('idempotency-key') key: string | undefined,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    const { intent, created } = await this.commandBus.execute(new CreateIntent(principal, p.binding_uuid, body, key));
    if (!created) void reply.status(200);
    return intent;
  }

  @Capability('intents')
  @Get('bindings/:binding_uuid/intents')
  @ApiOperation({ summary: 'A binding\'s intents, newest first.' })
  @ApiOkResponse({ type: AiWalletIntentListResponse })
  listIntents(@Param() p: BindingParam, @Query() q: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListIntents(principal, p.binding_uuid, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('intents')
  @Get('intents/:intent_uuid')
  @ApiOperation({ summary: 'One intent with its decision and state.' })
  @ApiOkResponse({ type: AiWalletIntentResponse })
  getIntent(@Param() p: IntentParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new GetIntent(principal, p.intent_uuid));
  }

  @Capability('intents')
  @Post('intents/:intent_uuid/settle')
  @HttpCode(200)
  @ApiOperation({ summary: 'Records an approved intent as settled outside the platform (its transaction hash); its reservation then counts for good.' })
  @ApiOkResponse({ type: AiWalletIntentResponse })
  settleIntent(@Param() p: IntentParam, @Body() body: SettleIntentRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new SettleIntent(principal, p.intent_uuid, body.transaction_hash));
  }

  @Capability('approvals')
  @Get('bindings/:binding_uuid/approvals')
  @ApiOperation({ summary: 'A binding\'s intents waiting for a person\'s approval.' })
  @ApiOkResponse({ type: AiWalletApprovalListResponse })
  listApprovals(@Param() p: BindingParam, @Query() q: ApprovalListQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListApprovals(principal, p.binding_uuid, q.state, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('approvals')
  @Post('approvals/:approval_uuid/approve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve an intent that waits for a person.' })
  @ApiOkResponse({ type: AiWalletApprovalResponse })
  approveIntent(@Param() p: ApprovalParam, @Body() body: ReviewApprovalRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new ReviewApproval(principal, p.approval_uuid, true, body.reason ?? null));
  }

  @Capability('approvals')
  @Post('approvals/:approval_uuid/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject an intent that waits for a person; its reservation is released.' })
  @ApiOkResponse({ type: AiWalletApprovalResponse })
  rejectIntent(@Param() p: ApprovalParam, @Body() body: ReviewApprovalRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new ReviewApproval(principal, p.approval_uuid, false, body.reason ?? null));
  }

  @Capability('execution-mode')
  @Get('bindings/:binding_uuid/execution-mode')
  @ApiOperation({ summary: 'A binding\'s execution mode and its readiness gates.' })
  @ApiOkResponse({ type: AiWalletExecutionModeResponse })
  async getExecutionMode(@Param() p: BindingParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    const binding = (await this.queryBus.execute(new GetBinding(principal, p.binding_uuid))) as { execution_mode: object };
    return binding.execution_mode;
  }

  @Capability('execution-mode')
  @Put('bindings/:binding_uuid/execution-mode')
  @ApiOperation({ summary: 'Change the execution mode; AUTONOMOUS is refused (422) while readiness gates are open.' })
  @ApiOkResponse({ type: AiWalletExecutionModeResponse })
  changeExecutionMode(@Param() p: BindingParam, @Body() body: ExecutionModeRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new ChangeExecutionMode(principal, p.binding_uuid, body.mode, body.state_reason));
  }

  @Capability('activity')
  @Get('bindings/:binding_uuid/activity')
  @ApiOperation({ summary: 'A binding\'s activity (its events), oldest first, paged.' })
  @ApiOkResponse({ type: AiWalletActivityPageResponse })
  listActivity(@Param() p: BindingParam, @Query() q: PageQuery, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new ListActivity(principal, p.binding_uuid, pageLimit(q.limit, PAGE), q.cursor));
  }

  @Capability('activity')
  @Get('bindings/:binding_uuid/activity/verify')
  @ApiOperation({ summary: "Recompute the binding stream's hash chain from the stored events." })
  @ApiOkResponse({ type: AiWalletActivityVerificationResponse })
  verifyActivity(@Param() p: BindingParam, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.queryBus.execute(new VerifyActivity(principal, p.binding_uuid));
  }
}

@ApiTags('ai-wallets')
@Controller('api/v1/auth')
export class WorkloadTokenController {
  constructor(private readonly commandBus: CommandBus) {}

  @Capability('workload-tokens', { authentication: 'client-credentials: client_id and client_secret in the body' })
  @Post('token')
  @Public()
  @SecretResponse()
  @HttpCode(200)
  @ApiOperation({ summary: "OAuth 2 client credentials: an agent's bearer token, limited to its binding." })
  @ApiErrors(401)
  @ApiOkResponse({ type: WorkloadTokenResponse })
  issueWorkloadToken(@Body() body: WorkloadTokenRequest): Promise<object> {
    return this.commandBus.execute(new IssueWorkloadToken(body.client_id, body.client_secret));
  }
}
