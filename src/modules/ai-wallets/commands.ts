/**
 * The AI-agent wallet commands: bindings and their workload clients, policies, state and execution mode, intent
 * evaluation (a dry run: loads the binding, decides, appends nothing) and live intents, approvals, expiry.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Logger } from 'nestjs-pino';
import type { Principal } from '../../platform/auth/principal';
import { WORKLOAD_TOKEN_PREFIX, type PrincipalResolver } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { CreditsGate } from '../../platform/credits/credits-gate';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { nextId } from '../../platform/context/request-context';
import { LeasedSweepService } from '../../platform/jobs/periodic-job';
import { CheckpointStore } from '../../platform/projections/checkpoint.store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../platform/projections/node-identity';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { hashToken, newToken, sameSecret } from '../../platform/security/tokens';
import type { BindingRow } from '../../../projections/ai-wallet-bindings/ai-wallet-bindings.read-model';
import type { ApprovalRow, IntentRow } from '../../../projections/ai-wallet-intents/ai-wallet-intents.read-model';
import { amountText, parseAmount } from './domain/assets';
import {
  bindingDecider, bindingStream, decideIntent, intentByKey, type AiWalletBudgetLedger, type AiWalletIntent, type AiWalletRationale, type ExecutionModeName, type IntentRequest,
} from './domain/binding';
import { NO_POLICY_COMMITMENT, NO_POLICY_UUID, type PolicyTerms } from './domain/policy';
import { CLIENT_SECRET_PREFIX, WORKLOAD_TOKEN_TTL_SECONDS, workloadDecider, workloadStream } from './domain/workload';
import type { AiWalletIntentEvaluationRequest, AiWalletPolicyRequest, CreateBindingRequest } from './dto/ai-wallets.dto';
import { WalletAccess } from './wallet-access';

export function policyTerms(p: AiWalletPolicyRequest): PolicyTerms {
  return {
    capabilities: p.capabilities,
    assets: p.assets,
    asset_budgets: p.asset_budgets.map((b) => ({ asset_code: b.asset_code, max_single_amount: b.max_single_amount, daily_limit: b.daily_limit, monthly_limit: b.monthly_limit })),
    destinations: p.destinations,
    max_single_amount: p.max_single_amount,
    daily_limit: p.daily_limit,
    monthly_limit: p.monthly_limit,
    velocity_window_seconds: p.velocity_window_seconds,
    velocity_max_count: p.velocity_max_count,
    autonomous_threshold: p.autonomous_threshold,
    currency: p.currency,
    expires_at: p.expires_at ?? null,
  };
}

/** The request in the engine's terms; an amount the asset cannot hold is a 400 naming the problem. */
export function intentRequest(body: AiWalletIntentEvaluationRequest): IntentRequest {
  const amount = parseAmount(body.asset, body.amount);
  if ('problem' in amount) {
    if (amount.problem === 'unknown asset') throw new ValidationFailed('Unknown asset.', [{ field: 'asset', issue: `${body.asset} is not a supported native asset` }]);
    throw new ValidationFailed('Invalid amount.', [{ field: 'amount', issue: `${amount.problem} (${body.asset})` }]);
  }
  return { type: body.type, asset: body.asset, amount: amount.atoms, destination: { type: body.destination.type, id: body.destination.id } };
}

// ---------------------------------------------------------------------------------------------------------------
// Bindings

export class CreateBinding {
  constructor(readonly principal: Principal, readonly body: CreateBindingRequest) {}
}

export interface CreatedBinding {
  binding_uuid: string;
  workload_client_id: string;
  client_secret: string;
}

@CommandHandler(CreateBinding)
export class CreateBindingHandler implements ICommandHandler<CreateBinding, CreatedBinding> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess) {}

  async execute({ principal, body }: CreateBinding): Promise<CreatedBinding> {
    const workspace = await this.access.workspace(principal, body.workspace_uuid, 'manage');
    const binding_uuid = nextId();
    const workload_client_id = nextId();
    const client_secret = newToken(CLIENT_SECRET_PREFIX);
    await this.commands.execute(bindingStream(binding_uuid), bindingDecider, {
      kind: 'CreateBinding',
      spec: {
        binding_uuid,
        workload_client_id,
        client_secret_hash: hashToken(client_secret),
        workspace_uuid: workspace.workspace_id,
        tenant_uuid: workspace.tenant_uuid,
        owner_profile_uuid: principal.profile_uuid,
        created_by_profile_uuid: principal.profile_uuid,
        agent_label: body.agent_label,
        environment: body.environment,
        network_id: body.network_id,
        native_address: body.native_address,
        operational_wallet_uuid: body.operational_wallet_uuid ?? null,
      },
      policy: body.policy ? policyTerms(body.policy) : null,
    });
    return { binding_uuid, workload_client_id, client_secret };
  }
}

export class PublishPolicy {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly terms: PolicyTerms) {}
}

@CommandHandler(PublishPolicy)
export class PublishPolicyHandler implements ICommandHandler<PublishPolicy, number> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess) {}

  async execute({ principal, binding_uuid, terms }: PublishPolicy): Promise<number> {
    await this.access.binding(principal, binding_uuid, 'manage');
    const outcome = await this.commands.execute(bindingStream(binding_uuid), bindingDecider, { kind: 'PublishPolicy', terms, by_profile_uuid: principal.profile_uuid });
    return outcome.state.policies[outcome.state.policies.length - 1].version;
  }
}

export class ChangeBindingState {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly to: 'ACTIVE' | 'SUSPENDED' | 'REVOKED', readonly reason: string) {}
}

@CommandHandler(ChangeBindingState)
export class ChangeBindingStateHandler implements ICommandHandler<ChangeBindingState> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess) {}

  async execute({ principal, binding_uuid, to, reason }: ChangeBindingState): Promise<void> {
    await this.access.binding(principal, binding_uuid, 'manage');
    await this.commands.execute(bindingStream(binding_uuid), bindingDecider, { kind: 'ChangeBindingState', to, reason });
  }
}

export class ChangeExecutionMode {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly mode: ExecutionModeName, readonly reason: string) {}
}

@CommandHandler(ChangeExecutionMode)
export class ChangeExecutionModeHandler implements ICommandHandler<ChangeExecutionMode> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess) {}

  async execute({ principal, binding_uuid, mode, reason }: ChangeExecutionMode): Promise<unknown> {
    await this.access.binding(principal, binding_uuid, 'manage');
    const outcome = await this.commands.execute(bindingStream(binding_uuid), bindingDecider, { kind: 'ChangeExecutionMode', mode, reason });
    return outcome.state.mode;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Workload clients

export class IssueWorkloadToken {
  constructor(readonly client_id: string, readonly client_secret: string) {}
}

export interface WorkloadToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

export const WORKLOAD_SCOPE = 'ai-wallet:intents ai-wallet:budget';

/** OAuth 2 client credentials: the binding's client id and secret for a bearer token limited to that binding. */
@CommandHandler(IssueWorkloadToken)
export class IssueWorkloadTokenHandler implements ICommandHandler<IssueWorkloadToken, WorkloadToken> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ client_id, client_secret }: IssueWorkloadToken): Promise<WorkloadToken> {
    const refused = new PlatformError('UNAUTHENTICATED', 'Unknown client, wrong secret, or a revoked binding.');
    const rows: BindingRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM ai_wallet_bindings WHERE workload_client_id = ?'), [client_id]);
    if (rows.length === 0) throw refused;
    // The binding stream has the last word (revocation holds even if the read model lags).
    const { state } = await this.commands.load(bindingStream(rows[0].binding_uuid), bindingDecider);
    if (!state.binding || !sameSecret(hashToken(client_secret), state.binding.client_secret_hash) || state.state === 'REVOKED') throw refused;
    const access_token = newToken(WORKLOAD_TOKEN_PREFIX);
    const expires_at = new Date(this.clock().getTime() + WORKLOAD_TOKEN_TTL_SECONDS * 1000).toISOString();
    await this.commands.execute(workloadStream(client_id), workloadDecider, {
      kind: 'IssueWorkloadToken',
      data: { workload_client_id: client_id, binding_uuid: state.binding.binding_uuid, token_hash: hashToken(access_token), expires_at },
    });
    return { access_token, token_type: 'Bearer', expires_in: WORKLOAD_TOKEN_TTL_SECONDS, scope: WORKLOAD_SCOPE };
  }
}

interface WorkloadPrincipalRow {
  workload_client_id: string;
  binding_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  expires_at: string;
  state: string;
  /** The binding record (JSON): its owner_profile_uuid answers for the agent. */
  binding: string;
}

/**
 * Live workload token by hash: not expired, its binding not revoked. The principal names the binding's owner (the
 * person who answers for the agent: the binding record's owner_profile_uuid, fixed at its creation), whom billing
 * bills for the agent's usage.
 */
@Injectable()
export class WorkloadPrincipalResolver implements PrincipalResolver {
  constructor(private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async resolve(tokenHash: string): Promise<Principal | null> {
    const rows: WorkloadPrincipalRow[] = await this.db.reader.query(
      this.db.sql(
        `SELECT t.workload_client_id, t.binding_uuid, t.expires_at, b.workspace_uuid, b.tenant_uuid, b.state, b.binding
         FROM ai_wallet_workload_tokens t JOIN ai_wallet_bindings b ON b.binding_uuid = t.binding_uuid WHERE t.token_hash = ?`,
      ),
      [tokenHash],
    );
    const row = rows[0];
    if (!row || row.state === 'REVOKED' || Date.parse(row.expires_at) <= this.clock().getTime()) return null;
    return {
      profile_uuid: row.workload_client_id,
      tenant_uuid: row.tenant_uuid,
      session_id: tokenHash.slice(0, 32),
      platform_role: null,
      workload: {
        client_id: row.workload_client_id,
        binding_uuid: row.binding_uuid,
        workspace_uuid: row.workspace_uuid,
        owner_profile_uuid: (JSON.parse(row.binding) as { owner_profile_uuid: string }).owner_profile_uuid,
      },
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Intents

export interface AiWalletIntentEvaluation {
  dry_run: true;
  state: string;
  decision_code: string;
  capability: string;
  asset_code: string;
  amount: string;
  /** NO_POLICY_UUID / NO_POLICY_COMMITMENT when the binding has no policy (decision_code POLICY_MISSING). */
  policy_uuid: string;
  policy_version: number;
  policy_commitment: string;
  budget_before: AiWalletBudgetLedger;
  projected_budget: { daily_committed: string; monthly_committed: string; asset_code: string };
  execution_created: false;
  reservation_created: false;
  event_created: false;
}

export class EvaluateIntent {
  constructor(readonly principal: Principal, readonly binding_uuid: string, readonly body: AiWalletIntentEvaluationRequest) {}
}

/** The same rules and the same state as a live intent, and nothing written: no event, no reservation. */
@CommandHandler(EvaluateIntent)
export class EvaluateIntentHandler implements ICommandHandler<EvaluateIntent, AiWalletIntentEvaluation> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, binding_uuid, body }: EvaluateIntent): Promise<AiWalletIntentEvaluation> {
    await this.access.binding(principal, binding_uuid, 'agent-or-read');
    const request = intentRequest(body);
    const { state } = await this.commands.load(bindingStream(binding_uuid), bindingDecider);
    const d = decideIntent(state, request, this.clock());
    return {
      dry_run: true,
      // Without a rationale nothing is authorized, not even hypothetically: a preview of what the rules say.
      state: body.rationale ? d.outcome : 'PREVIEW',
      decision_code: d.decision_code,
      capability: request.type,
      asset_code: request.asset,
      amount: amountText(request.amount),
      policy_uuid: d.policy?.policy_uuid ?? NO_POLICY_UUID,
      policy_version: d.policy?.version ?? 0,
      policy_commitment: d.policy?.policy_commitment ?? NO_POLICY_COMMITMENT,
      budget_before: d.budget_before,
      projected_budget: d.projected,
      execution_created: false,
      reservation_created: false,
      event_created: false,
    };
  }
}

export class CreateIntent {
  constructor(
    readonly principal: Principal,
    readonly binding_uuid: string,
    readonly body: AiWalletIntentEvaluationRequest,
    readonly idempotency_key: string | undefined,
  ) {}
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

@CommandHandler(CreateIntent)
export class CreateIntentHandler implements ICommandHandler<CreateIntent, { intent: AiWalletIntent; created: boolean }> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly access: WalletAccess,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly credits: CreditsGate,
  ) {}

  async execute({ principal, binding_uuid, body, idempotency_key }: CreateIntent): Promise<{ intent: AiWalletIntent; created: boolean }> {
    if (!idempotency_key || !IDEMPOTENCY_KEY.test(idempotency_key)) {
      throw new ValidationFailed('A live intent needs an Idempotency-Key header.', [{ field: 'Idempotency-Key', issue: 'required: 1-255 printable characters' }]);
    }
    if (!body.rationale) {
      throw new ValidationFailed('A live intent needs a complete rationale.', [{ field: 'rationale', issue: 'required: schema, summary, explanation, expected_outcome, reference' }]);
    }
    await this.access.binding(principal, binding_uuid, 'agent-or-read');
    // A live intent that reserves budget is billable usage (docs/billing.md): an account out of credits gets 402 (an
    // agent's is its binding owner's in the global tenant: the gate reads the request context's on_behalf_of).
    await this.credits.require({ tenant_uuid: principal.tenant_uuid, usage: 'AiWalletIntentReserved' });
    const request = intentRequest(body);
    const r = body.rationale;
    const rationale: AiWalletRationale = { schema: r.schema, summary: r.summary, explanation: r.explanation, expected_outcome: r.expected_outcome, reference: r.reference };
    const outcome = await this.commands.execute(bindingStream(binding_uuid), bindingDecider, {
      kind: 'CreateIntent',
      request,
      idempotency_key,
      purpose: body.purpose ?? r.summary,
      rationale,
      requested_by_profile_uuid: principal.workload ? null : principal.profile_uuid,
      intent_ttl_seconds: this.config.aiWalletIntentTtlSeconds,
      approval_ttl_seconds: this.config.aiWalletApprovalTtlSeconds,
    });
    const intent = intentByKey(outcome.state, idempotency_key)!;
    const created = outcome.events.length > 0;
    // The key names an intent already made: the same request gets it back, another request misuses the key.
    if (!created && !sameIntent(intent, request)) throw new PlatformError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key already names another intent of this binding.');
    return { intent, created };
  }
}

function sameIntent(intent: AiWalletIntent, request: IntentRequest): boolean {
  const amount = parseAmount(request.asset, intent.amount);
  return intent.intent_type === request.type && intent.asset_code === request.asset && 'atoms' in amount && amount.atoms === request.amount &&
    intent.destination_type === request.destination.type && intent.destination_reference === request.destination.id;
}

export class ReviewApproval {
  constructor(readonly principal: Principal, readonly approval_uuid: string, readonly approve: boolean, readonly reason: string | null) {}
}

@CommandHandler(ReviewApproval)
export class ReviewApprovalHandler implements ICommandHandler<ReviewApproval, unknown> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly access: WalletAccess,
    private readonly db: ReadModelDatabase,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute({ principal, approval_uuid, approve, reason }: ReviewApproval): Promise<unknown> {
    const rows: ApprovalRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM ai_wallet_approvals WHERE approval_uuid = ?'), [approval_uuid]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such approval.');
    await this.access.binding(principal, rows[0].binding_uuid, 'manage', () => new PlatformError('NOT_FOUND', 'No such approval.'));
    const outcome = await this.commands.execute(bindingStream(rows[0].binding_uuid), bindingDecider, { kind: 'ReviewApproval', approval_uuid, approve, by_profile_uuid: principal.profile_uuid, reason, intent_ttl_seconds: this.config.aiWalletIntentTtlSeconds });
    return outcome.state.approvals.get(approval_uuid);
  }
}

export class SettleIntent {
  constructor(readonly principal: Principal, readonly intent_uuid: string, readonly transaction_hash: string) {}
}

/** A person of the workspace reports an approved intent carried out (outside the platform) with its transaction. */
@CommandHandler(SettleIntent)
export class SettleIntentHandler implements ICommandHandler<SettleIntent, AiWalletIntent> {
  constructor(private readonly commands: CommandExecutor, private readonly access: WalletAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, intent_uuid, transaction_hash }: SettleIntent): Promise<AiWalletIntent> {
    const rows: IntentRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM ai_wallet_intents WHERE intent_uuid = ?'), [intent_uuid]);
    if (rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such intent.');
    await this.access.binding(principal, rows[0].binding_uuid, 'manage', () => new PlatformError('NOT_FOUND', 'No such intent.'));
    const outcome = await this.commands.execute(bindingStream(rows[0].binding_uuid), bindingDecider, { kind: 'SettleIntent', intent_uuid, transaction_hash, by_profile_uuid: principal.profile_uuid });
    return outcome.state.intents.get(intent_uuid)!.intent;
  }
}

export class ExpireIntent {
  constructor(readonly binding_uuid: string, readonly intent_uuid: string) {}
}

@CommandHandler(ExpireIntent)
export class ExpireIntentHandler implements ICommandHandler<ExpireIntent> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ binding_uuid, intent_uuid }: ExpireIntent): Promise<void> {
    await this.commands.execute(bindingStream(binding_uuid), bindingDecider, { kind: 'ExpireIntent', intent_uuid });
  }
}

/**
 * Records expiries: every AI_WALLET_EXPIRY_SWEEP_MS, intents past expires_at still open get AiWalletIntentExpired
 * (budget decisions already ignore them from the instant they expire; the event makes it visible and final).
 * Run by the node holding the `ai-wallet-intent-expiry` lease; expiring twice decides nothing the second time, so a
 * late run after a lease moved changes nothing.
 */
@Injectable()
export class IntentExpirySweep extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly commandBus: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'ai-wallet-intent-expiry', config.aiWalletExpirySweepMs, logger);
  }

  /** Expires what is due now; returns how many intents it expired. */
  async sweep(): Promise<number> {
    const due: IntentRow[] = await this.db.reader.query(
      this.db.sql("SELECT * FROM ai_wallet_intents WHERE state IN ('PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED') AND expires_at <= ? ORDER BY expires_at LIMIT 200"),
      [this.clock().toISOString()],
    );
    for (const row of due) await this.commandBus.execute(new ExpireIntent(row.binding_uuid, row.intent_uuid));
    return due.length;
  }
}
