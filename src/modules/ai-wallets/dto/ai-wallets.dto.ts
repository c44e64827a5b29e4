/**
 * Requests of the AI-agent wallet routes. Amounts are decimal strings in native units: a JSON number is a 400 that
 * says so; sign, zero, exponent and digits beyond the asset's smallest unit are checked against the asset after
 * validation (the asset decides the precision).
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsString, Length, Matches, Max, Min, ValidateNested } from 'class-validator';
import { IsDecimalString, NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { EXECUTION_MODES } from '../domain/binding';
import { CAPABILITIES, MAX_DESTINATIONS, MAX_VELOCITY_COUNT, MAX_VELOCITY_WINDOW_SECONDS } from '../domain/policy';
import { hex32Param } from '../../../platform/http/api-properties';

const HEX32 = /^[0-9a-f]{32}$/;
const hex32 = (field: string) => ({ message: `${field} must be 32 lowercase hex characters` });
/** Any decimal text, so that the asset-aware check can name the precise problem (sign, zero, precision). */
const amount = () => IsDecimalString({ signed: true, maxIntegerDigits: 30 });

export class BindingParam {
  @ApiProperty(hex32Param('The binding'))
  @Matches(HEX32, hex32('binding_uuid'))
  binding_uuid!: string;
}

export class IntentParam {
  @ApiProperty(hex32Param('The intent'))
  @Matches(HEX32, hex32('intent_uuid'))
  intent_uuid!: string;
}

export class ApprovalParam {
  @ApiProperty(hex32Param('The approval'))
  @Matches(HEX32, hex32('approval_uuid'))
  approval_uuid!: string;
}

/** The seeds' AiWalletAssetBudget: written in a policy and read back in it. */
@ApiSchema({ name: 'AiWalletAssetBudget' })
export class AiWalletAssetBudgetDto {
  @ApiProperty({ example: 'ETH' }) @IsString() @Length(1, 16)
  asset_code!: string;

  @ApiProperty({ example: '0.5' }) @amount()
  max_single_amount!: string;

  @ApiProperty({ example: '2', description: 'per UTC day' }) @amount()
  daily_limit!: string;

  @ApiProperty({ example: '20', description: 'per UTC month' }) @amount()
  monthly_limit!: string;
}

/** A policy as a person writes it; publishing makes the next version. */
export class AiWalletPolicyRequest {
  @ApiProperty({ enum: CAPABILITIES, isArray: true }) @IsArray() @ArrayMaxSize(CAPABILITIES.length * 4) @IsString({ each: true })
  capabilities!: string[];

  @ApiProperty({ example: ['ETH'], description: 'native asset codes' }) @IsArray() @ArrayMaxSize(64) @IsString({ each: true })
  assets!: string[];

  @ApiProperty({ type: () => [AiWalletAssetBudgetDto] }) @IsArray() @ArrayMaxSize(64) @ValidateNested({ each: true }) @Type(() => AiWalletAssetBudgetDto)
  asset_budgets!: AiWalletAssetBudgetDto[];

  @ApiProperty({ example: ['0x52908400098527886E0F7030069857D2E4169EE7'], description: 'exact identifiers; an empty list allows no destination at all' })
  @IsArray() @ArrayMaxSize(MAX_DESTINATIONS) @IsString({ each: true })
  destinations!: string[];

  @ApiProperty({ example: '1', description: 'in the policy currency' }) @amount()
  max_single_amount!: string;

  @ApiProperty({ example: '3' }) @amount()
  daily_limit!: string;

  @ApiProperty({ example: '30' }) @amount()
  monthly_limit!: string;

  @ApiProperty({ example: 3600 }) @IsInt() @Min(1) @Max(MAX_VELOCITY_WINDOW_SECONDS)
  velocity_window_seconds!: number;

  @ApiProperty({ example: 20 }) @IsInt() @Min(1) @Max(MAX_VELOCITY_COUNT)
  velocity_max_count!: number;

  @ApiProperty({ example: '0.1', description: 'intents of the policy currency up to this amount need no person in SUPERVISED mode' }) @amount()
  autonomous_threshold!: string;

  @ApiProperty({ example: 'ETH', description: 'a native asset, never fiat' }) @IsString() @Length(1, 16)
  currency!: string;

  /** expires_at? (seeds 001, AiWalletPolicy): null, like absent, is a policy without expiry (policyTerms' `?? null`). */
  @ApiPropertyOptional({ type: String, example: '2027-01-01T00:00:00Z', nullable: true }) @OptionalNullable() @IsString() @Length(1, 40)
  expires_at?: string | null;
}

export class CreateBindingRequest {
  @ApiProperty() @Matches(HEX32, hex32('workspace_uuid'))
  workspace_uuid!: string;

  @ApiProperty({ example: 'treasury-rebalancer' }) @IsString() @Length(1, 64)
  agent_label!: string;

  @ApiProperty({ enum: ['PRODUCTION', 'SANDBOX'] }) @IsIn(['PRODUCTION', 'SANDBOX'])
  environment!: 'PRODUCTION' | 'SANDBOX';

  @ApiProperty({ example: 'ethereum-mainnet' }) @IsString() @Length(1, 64)
  network_id!: string;

  @ApiProperty({ example: '0x52908400098527886E0F7030069857D2E4169EE7' }) @IsString() @Matches(/^[A-Za-z0-9:._-]{8,128}$/, { message: 'native_address must be 8-128 characters of [A-Za-z0-9:._-]' })
  native_address!: string;

  // operational_wallet_uuid? and policy? are nullable on the seeds' AiWalletBinding (001), which this request creates:
  // null is none (CreateBinding stores `?? null`; a null policy leaves the binding PENDING, as an absent one does).
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @Matches(HEX32, hex32('operational_wallet_uuid'))
  operational_wallet_uuid?: string | null;

  @ApiPropertyOptional({ type: () => AiWalletPolicyRequest, nullable: true, description: 'the first policy; the binding is PENDING until it has one' })
  @OptionalNullable() @ValidateNested() @Type(() => AiWalletPolicyRequest)
  policy?: AiWalletPolicyRequest | null;
}

export class ChangeBindingStateRequest {
  @ApiProperty({ enum: ['ACTIVE', 'SUSPENDED', 'REVOKED'] }) @IsIn(['ACTIVE', 'SUSPENDED', 'REVOKED'])
  state!: 'ACTIVE' | 'SUSPENDED' | 'REVOKED';

  @ApiProperty({ example: 'Rotating the agent host.' }) @IsString() @Length(8, 320)
  state_reason!: string;
}

@ApiSchema({ name: 'AiWalletDestination' })
export class AiWalletDestinationDto {
  @ApiProperty({ enum: ['ADDRESS', 'PROFILE', 'MERCHANT', 'CONTRACT'] }) @IsIn(['ADDRESS', 'PROFILE', 'MERCHANT', 'CONTRACT'])
  type!: 'ADDRESS' | 'PROFILE' | 'MERCHANT' | 'CONTRACT';

  @ApiProperty({ description: 'exact identifier, compared as is with the allowlist' }) @IsString() @Length(1, 256)
  id!: string;
}

/** The seeds' AiWalletRationale: written with a live intent and read back in it. */
@ApiSchema({ name: 'AiWalletRationale' })
export class AiWalletRationaleDto {
  @ApiProperty({ example: 'agent-rationale/v1' }) @IsString() @Length(1, 64)
  schema!: string;

  @ApiProperty() @IsString() @Length(1, 280)
  summary!: string;

  @ApiProperty() @IsString() @Length(1, 4000)
  explanation!: string;

  @ApiProperty() @IsString() @Length(1, 1000)
  expected_outcome!: string;

  @ApiProperty() @IsString() @Length(1, 256)
  reference!: string;
}

export class AiWalletIntentEvaluationRequest {
  @ApiProperty({ enum: CAPABILITIES }) @IsIn(CAPABILITIES as unknown as string[])
  type!: string;

  @ApiProperty({ example: 'ETH' }) @IsString() @Length(1, 16)
  asset!: string;

  @ApiProperty({ example: '0.25', description: 'positive decimal string in native units' }) @amount()
  amount!: string;

  @ApiProperty({ type: () => AiWalletDestinationDto }) @ValidateNested() @Type(() => AiWalletDestinationDto)
  destination!: AiWalletDestinationDto;

  // purpose? and rationale? (seeds 001, AiWalletIntentEvaluationRequest) may be null: null is omitted (the handlers'
  // `purpose ?? rationale.summary` and `!rationale`: a preview, or a 400 for a live intent).
  @ApiPropertyOptional({ type: String, nullable: true, description: 'used when rationale is omitted' }) @OptionalNullable() @IsString() @Length(1, 280)
  purpose?: string | null;

  @ApiPropertyOptional({ type: () => AiWalletRationaleDto, nullable: true, description: 'required for live intents; without it an evaluation is a non-authorizing preview' })
  @OptionalNullable() @ValidateNested() @Type(() => AiWalletRationaleDto)
  rationale?: AiWalletRationaleDto | null;
}

export class ReviewApprovalRequest {
  @ApiPropertyOptional({ example: 'Matches the invoice.' }) @Optional() @IsString() @Length(1, 320)
  reason?: string;
}

export class SettleIntentRequest {
  @ApiProperty({ example: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060', description: 'the transaction that carried the intent out, as the chain identifies it (hex or base58)' })
  @IsString() @Matches(/^(0x)?[0-9A-Za-z]{16,128}$/, { message: 'transaction_hash must be a transaction identifier (hex or base58, 16 to 128 characters)' })
  transaction_hash!: string;
}

export class ExecutionModeRequest {
  @ApiProperty({ enum: EXECUTION_MODES }) @IsIn(EXECUTION_MODES as unknown as string[])
  mode!: 'MANUAL_APPROVAL' | 'SUPERVISED' | 'AUTONOMOUS';

  @ApiProperty({ example: 'Small top-ups may go without a person.' }) @IsString() @Length(8, 320)
  state_reason!: string;
}

@NoExtraFields()
export class WorkloadTokenRequest {
  @ApiProperty({ enum: ['client_credentials'] }) @IsIn(['client_credentials'], { message: 'grant_type must be client_credentials' })
  grant_type!: 'client_credentials';

  @ApiProperty() @Matches(HEX32, hex32('client_id'))
  client_id!: string;

  @ApiProperty() @IsString() @Length(1, 128)
  client_secret!: string;

  @ApiPropertyOptional() @Optional() @IsString() @Length(0, 256)
  scope?: string;
}

// --- responses --------------------------------------------------------------------------------------------------

/** AiWalletBudgetLedger (seeds): decimal strings; asset_code and currency may be null (no policy to name them). */
@ApiSchema({ name: 'AiWalletBudgetLedger' })
export class AiWalletBudgetLedgerView {
  @ApiProperty({ example: 'RESERVE_ON_ACCEPT' }) accounting_model!: string;
  @ApiProperty({ example: '1' }) max_single_amount!: string;
  @ApiProperty({ example: '10' }) daily_limit!: string;
  @ApiProperty({ example: '0' }) daily_committed!: string;
  @ApiProperty({ example: '10' }) daily_remaining!: string;
  @ApiProperty({ example: '100' }) monthly_limit!: string;
  @ApiProperty({ example: '0' }) monthly_committed!: string;
  @ApiProperty({ example: '100' }) monthly_remaining!: string;
  @ApiProperty({ type: 'integer', format: 'int64' }) active_intent_count!: number;
  @ApiProperty({ type: String, nullable: true, required: false }) asset_code?: string | null;
  @ApiProperty({ type: String, nullable: true, required: false }) currency?: string | null;
}

@ApiSchema({ name: 'AiWalletProjectedBudget' })
export class AiWalletProjectedBudgetView {
  @ApiProperty({ example: '0.5' }) daily_committed!: string;
  @ApiProperty({ example: '0.5' }) monthly_committed!: string;
  @ApiProperty({ example: 'ETH' }) asset_code!: string;
}

/**
 * AiWalletIntentEvaluation (seeds): every field required and never null. Without a policy to apply the decision is
 * DENIED with decision_code POLICY_MISSING, policy_uuid the nil id (32 zeros), policy_commitment the nil commitment
 * (64 zeros) and policy_version 0.
 */
export class AiWalletIntentEvaluation {
  @ApiProperty({ enum: [true] }) dry_run!: true;
  @ApiProperty({ example: 'DENIED', description: 'ALLOWED, APPROVAL_REQUIRED, DENIED, or PREVIEW without a rationale.' }) state!: string;
  @ApiProperty({ example: 'POLICY_MISSING' }) decision_code!: string;
  @ApiProperty({ example: 'TRANSFER' }) capability!: string;
  @ApiProperty({ example: 'ETH' }) asset_code!: string;
  @ApiProperty({ example: '0.5' }) amount!: string;
  @ApiProperty({ pattern: '^[0-9a-f]{32}$', description: '00000000000000000000000000000000 when no policy applied.' }) policy_uuid!: string;
  @ApiProperty({ type: 'integer', format: 'int64', description: '0 when no policy applied.' }) policy_version!: number;
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: '64 zeros when no policy applied.' }) policy_commitment!: string;
  @ApiProperty({ type: AiWalletBudgetLedgerView }) budget_before!: AiWalletBudgetLedgerView;
  @ApiProperty({ type: AiWalletProjectedBudgetView }) projected_budget!: AiWalletProjectedBudgetView;
  @ApiProperty({ enum: [false] }) execution_created!: false;
  @ApiProperty({ enum: [false] }) reservation_created!: false;
  @ApiProperty({ enum: [false] }) event_created!: false;
}
