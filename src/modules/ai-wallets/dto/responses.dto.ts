/** What the AI-wallet routes answer (response DTOs: the OpenAPI schemas, checked against every e2e answer). */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { AiWalletAssetBudgetDto, AiWalletBudgetLedgerView, AiWalletRationaleDto } from './ai-wallets.dto';
import { DECISION_CODES } from '../domain/binding';
import { CAPABILITIES } from '../domain/policy';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';


/** A binding's budget: the policy currency's ledger and one per asset budget. */
@ApiSchema({ name: 'AiWalletBudget' })
export class AiWalletBudgetResponse extends AiWalletBudgetLedgerView {
  @ApiProperty({ type: [AiWalletBudgetLedgerView] }) per_asset!: AiWalletBudgetLedgerView[];
}

/** A published policy version (seeds 001, AiWalletPolicy), its commitment recomputable (docs/ai-wallets.md). */
@ApiSchema({ name: 'AiWalletPolicy' })
export class AiWalletPolicyResponse {
  @ApiProperty({ type: [AiWalletAssetBudgetDto] }) asset_budgets!: AiWalletAssetBudgetDto[];
  @ApiProperty({ type: [String] }) assets!: string[];
  @ApiProperty() autonomous_threshold!: string;
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty({ type: [String] }) capabilities!: string[];
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty() currency!: string;
  @ApiProperty() daily_limit!: string;
  @ApiProperty({ type: [String] }) destinations!: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at!: string | null;
  @ApiProperty({ enum: ['ACTIVE', 'EXPIRED', 'SUPERSEDED'], description: 'ACTIVE (EXPIRED past expires_at) for the current version, SUPERSEDED for earlier ones.' }) lifecycle!: string;
  @ApiProperty() max_single_amount!: string;
  @ApiProperty() monthly_limit!: string;
  @ApiProperty(SHA256_HEX) policy_commitment!: string;
  @ApiProperty(HEX32_ID) policy_uuid!: string;
  @ApiProperty({ type: 'integer' }) velocity_max_count!: number;
  @ApiProperty({ type: 'integer' }) velocity_window_seconds!: number;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
}

/** A binding's execution mode and what keeps AUTONOMOUS closed. */
@ApiSchema({ name: 'AiWalletExecutionMode' })
export class AiWalletExecutionModeResponse {
  @ApiProperty({ enum: ['MANUAL_APPROVAL', 'SUPERVISED', 'AUTONOMOUS'] }) mode!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) mode_version!: number;
  @ApiProperty({ type: String, nullable: true }) state_reason!: string | null;
  @ApiProperty() autonomous_available!: boolean;
  @ApiProperty({ type: [String] }) autonomous_readiness_gates!: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) mandate_expires_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) mandate_uuid!: string | null;
  @ApiProperty({ type: String, enum: [null], nullable: true, description: 'null while no mandate exists.' }) remaining_limits!: null;
  @ApiProperty({ format: 'date-time' }) updated!: string;
}

/** The binding stream's hash chain recomputed from the stored events. */
@ApiSchema({ name: 'AiWalletActivityVerification' })
export class AiWalletActivityVerificationResponse {
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty() verified!: boolean;
  @ApiProperty({ type: 'integer', minimum: 0 }) events!: number;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX }) head_commitment!: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true, description: 'The first link that does not hold; null when verified.' }) first_break!: Record<string, unknown> | null;
}

/** OAuth 2 client-credentials token response for an agent (limited to its binding). */
@ApiSchema({ name: 'WorkloadToken' })
export class WorkloadTokenResponse {
  @ApiProperty({ description: 'Opaque bearer token (hcwt_…).' }) access_token!: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) expires_in!: number;
  @ApiProperty({ example: 'ai-wallet:intents ai-wallet:budget' }) scope!: string;
}


/** A 202 answer's body: what the command knows while the read model catches up (X-Position reads the rest back). */
const PENDING = 'What the command knows; the full record reads back with X-Min-Position.';

/** The seeds' AiWalletBinding: the binding with its budget, execution mode and current policy. */
@ApiSchema({ name: 'AiWalletBinding' })
export class AiWalletBindingResponse {
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty(HEX32_ID) owner_profile_uuid!: string;
  @ApiProperty({ ...HEX32_ID, description: 'The agent\'s OAuth client id (POST /api/v1/ai-wallets/token).' }) workload_client_id!: string;
  @ApiProperty() agent_label!: string;
  @ApiProperty({ enum: ['PRODUCTION', 'SANDBOX'] }) environment!: string;
  @ApiProperty(HEX32_ID) enrollment_uuid!: string;
  @ApiProperty(HEX32_ID) activation_uuid!: string;
  @ApiProperty({ example: 'ethereum-sepolia' }) network_id!: string;
  @ApiProperty() native_address!: string;
  @ApiProperty({ enum: ['PENDING', 'ACTIVE', 'SUSPENDED', 'REVOKED'], description: 'PENDING until a first policy is published.' }) state!: string;
  @ApiProperty({ type: String, nullable: true }) state_reason!: string | null;
  @ApiProperty(SHA256_HEX) binding_commitment!: string;
  @ApiProperty(HEX32_ID) created_by_profile_uuid!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ format: 'date-time' }) updated!: string;
  @ApiProperty() legacy_primary_binding!: boolean;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) operational_wallet_uuid!: string | null;
  @ApiProperty({ type: AiWalletBudgetResponse }) budget!: AiWalletBudgetResponse;
  @ApiProperty({ type: AiWalletExecutionModeResponse }) execution_mode!: AiWalletExecutionModeResponse;
  @ApiProperty({ type: AiWalletPolicyResponse, nullable: true, description: 'The current policy version; null while PENDING.' }) policy!: AiWalletPolicyResponse | null;
}

/** A new binding as created: the binding and, this once, the workload client secret. */
@ApiSchema({ name: 'CreatedAiWalletBinding' })
export class CreatedAiWalletBindingResponse extends AiWalletBindingResponse {
  @ApiProperty({ description: 'The workload client secret (hcws_…), shown once and never again.' }) client_secret!: string;
}

@ApiSchema({ name: 'PendingAiWalletBinding', description: PENDING })
export class PendingAiWalletBindingResponse {
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty(HEX32_ID) workload_client_id!: string;
  @ApiProperty({ description: 'The workload client secret (hcws_…), shown once and never again.' }) client_secret!: string;
}

@ApiSchema({ name: 'AiWalletBindingStateReceipt', description: PENDING })
export class AiWalletBindingStateReceiptResponse {
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty({ enum: ['ACTIVE', 'SUSPENDED', 'REVOKED'] }) state!: string;
  @ApiProperty() state_reason!: string;
}

@ApiSchema({ name: 'AiWalletPolicyReceipt', description: PENDING })
export class AiWalletPolicyReceiptResponse {
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
}

@ApiSchema({ name: 'AiWalletBindingList' })
export class AiWalletBindingListResponse {
  @ApiProperty({ type: [AiWalletBindingResponse] }) items!: AiWalletBindingResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** The seeds' AiWalletIntent: a live intent, its decision and where it stands. */
@ApiSchema({ name: 'AiWalletIntent' })
export class AiWalletIntentResponse {
  @ApiProperty(HEX32_ID) intent_uuid!: string;
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty({ ...HEX32_ID, description: '32 zeros when no policy applied (POLICY_MISSING).' }) policy_uuid!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) policy_version!: number;
  @ApiProperty(HEX32_ID) workload_client_id!: string;
  @ApiProperty() idempotency_key!: string;
  @ApiProperty({ enum: CAPABILITIES }) intent_type!: string;
  @ApiProperty({ enum: CAPABILITIES }) capability!: string;
  @ApiProperty({ example: 'ETH' }) asset_code!: string;
  @ApiProperty({ example: '0.5', description: 'Decimal string in native units.' }) amount!: string;
  @ApiProperty({ enum: ['ADDRESS', 'PROFILE', 'MERCHANT', 'CONTRACT'] }) destination_type!: string;
  @ApiProperty() destination_reference!: string;
  @ApiProperty() purpose!: string;
  @ApiProperty({ enum: ['DENIED', 'PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED', 'REJECTED', 'EXPIRED', 'SETTLED'] }) state!: string;
  @ApiProperty({ enum: DECISION_CODES }) decision_code!: string;
  @ApiProperty(SHA256_HEX) intent_commitment!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ format: 'date-time' }) updated!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When an open reservation lapses; null for a denied intent.' }) expires_at!: string | null;
  @ApiProperty({ type: AiWalletRationaleDto }) rationale!: AiWalletRationaleDto;
  @ApiProperty(SHA256_HEX) rationale_commitment!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) requested_by_profile_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX, description: 'null when nothing was reserved (denied).' }) reservation_commitment!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) settled_at!: string | null;
}

@ApiSchema({ name: 'AiWalletIntentList' })
export class AiWalletIntentListResponse {
  @ApiProperty({ type: [AiWalletIntentResponse] }) items!: AiWalletIntentResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** A step the platform cannot take yet (no transaction builder): why. */
@ApiSchema({ name: 'AiWalletUnavailableStep' })
export class AiWalletUnavailableStepResponse {
  @ApiProperty({ enum: ['UNAVAILABLE'] }) state!: string;
  @ApiProperty({ example: 'TRANSACTION_BUILDER_NOT_CONFIGURED' }) reason!: string;
}

@ApiSchema({ name: 'AiWalletMpcProgress' })
export class AiWalletMpcProgressResponse {
  @ApiProperty({ enum: ['NOT_STARTED'] }) state!: string;
}

/** The seeds' AiWalletApproval: an intent waiting for (or reviewed by) a person; never signing authority. */
@ApiSchema({ name: 'AiWalletApproval' })
export class AiWalletApprovalResponse {
  @ApiProperty(HEX32_ID) approval_uuid!: string;
  @ApiProperty(HEX32_ID) binding_uuid!: string;
  @ApiProperty(HEX32_ID) intent_uuid!: string;
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty() network_id!: string;
  @ApiProperty(HEX32_ID) workload_client_id!: string;
  @ApiProperty(HEX32_ID) policy_uuid!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1 }) policy_version!: number;
  @ApiProperty(SHA256_HEX) policy_commitment!: string;
  @ApiProperty(SHA256_HEX) intent_commitment!: string;
  @ApiProperty({ enum: ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'] }) state!: string;
  @ApiProperty({ example: 'EVM' }) chain_family!: string;
  @ApiProperty() asset_code!: string;
  @ApiProperty() amount!: string;
  @ApiProperty() destination_reference!: string;
  @ApiProperty({ type: AiWalletUnavailableStepResponse }) fees!: AiWalletUnavailableStepResponse;
  @ApiProperty({ type: [String], example: ['AMOUNT_ABOVE_AUTONOMOUS_THRESHOLD'] }) risk_warnings!: string[];
  @ApiProperty({ type: AiWalletUnavailableStepResponse }) simulation!: AiWalletUnavailableStepResponse;
  @ApiProperty(SHA256_HEX) approval_commitment!: string;
  @ApiProperty({ type: AiWalletMpcProgressResponse }) mpc_progress!: AiWalletMpcProgressResponse;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) confirmations!: number;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ format: 'date-time' }) updated!: string;
  @ApiProperty({ enum: [false] }) execution_available!: boolean;
  @ApiProperty({ enum: [false], description: 'A policy decision is not signing or broadcast authority.' }) policy_approved_is_execution!: boolean;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
  @ApiProperty({ example: 'TRANSACTION_BUILDER_NOT_CONFIGURED' }) readiness_gate!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) reviewed_at!: string | null;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) reviewed_by_profile_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true }) review_reason!: string | null;
  @ApiPropertyOptional({ description: 'Set once a person reports the approved intent settled.' }) transaction_hash?: string;
}

@ApiSchema({ name: 'AiWalletApprovalList' })
export class AiWalletApprovalListResponse {
  @ApiProperty({ type: [AiWalletApprovalResponse] }) items!: AiWalletApprovalResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}

/** The seeds' AiWalletActivityEvent: one binding event, who did it and why, and its link in the hash chain. */
@ApiSchema({ name: 'AiWalletActivityEvent' })
export class AiWalletActivityEventResponse {
  @ApiProperty(HEX32_ID) event_uuid!: string;
  @ApiProperty({ example: 'AiWalletIntentReserved' }) event_type!: string;
  @ApiProperty({ example: 'profile' }) actor_type!: string;
  @ApiProperty() actor_reference!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The commitments and values that show what was decided; keys depend on event_type.' }) evidence!: Record<string, unknown>;
  @ApiProperty(SHA256_HEX) event_commitment!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) intent_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX, description: 'null for the stream\'s first event.' }) previous_event_commitment!: string | null;
}

@ApiSchema({ name: 'AiWalletActivityPage' })
export class AiWalletActivityPageResponse {
  @ApiProperty({ type: [AiWalletActivityEventResponse] }) items!: AiWalletActivityEventResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
}
