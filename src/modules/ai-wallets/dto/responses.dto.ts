/** What the AI-wallet routes answer (response DTOs: the OpenAPI schemas, checked against every e2e answer). */
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { AiWalletBudgetLedgerView } from './ai-wallets.dto';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';


/** A binding's budget: the policy currency's ledger and one per asset budget. */
@ApiSchema({ name: 'AiWalletBudget' })
export class AiWalletBudgetResponse extends AiWalletBudgetLedgerView {
  @ApiProperty({ type: [AiWalletBudgetLedgerView] }) per_asset!: AiWalletBudgetLedgerView[];
}

@ApiSchema({ name: 'AiWalletAssetBudget' })
export class AiWalletAssetBudgetResponse {
  @ApiProperty() asset_code!: string;
  @ApiProperty() daily_limit!: string;
  @ApiProperty() max_single_amount!: string;
  @ApiProperty() monthly_limit!: string;
}

/** A published policy version (seeds 001, AiWalletPolicy), its commitment recomputable (docs/ai-wallets.md). */
@ApiSchema({ name: 'AiWalletPolicy' })
export class AiWalletPolicyResponse {
  @ApiProperty({ type: [AiWalletAssetBudgetResponse] }) asset_budgets!: AiWalletAssetBudgetResponse[];
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

