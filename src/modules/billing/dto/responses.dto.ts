/**
 * Answers of the billing routes: the seeds' BillingAccount, BillingPeriod, BillingCreditPool(s), BillingSubscription,
 * BillingProduct, BillingProductCatalog and BillingUsage, with the fields the platform adds (marked so), and the
 * top-ups and adjustments. Credits are decimal strings; counts are int64.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { pageOf } from '../../../platform/http/openapi';
import { HEX32_ID } from '../../../platform/http/api-properties';
import { SUBSCRIPTION_STATUSES, TOPUP_STATUSES } from '../domain/account';
import { ACCOUNT_STATUSES, SETTLEMENT_METHODS, SETTLEMENT_STATES } from '../domain/account-view';
import { PLAN_INTERVALS, PRODUCT_TYPES } from '../domain/catalog';
import { ADJUSTMENT_DIRECTIONS } from './billing.dto';

const TIME = { format: 'date-time' } as const;
const CREDITS = { description: 'Credits, a decimal string.', example: '125.5', pattern: '^\\d{1,33}(\\.\\d{1,18})?$' } as const;
const COUNT = { type: 'integer', format: 'int64', minimum: 0 } as const;

/** The 202 of a billing command whose record the read model has not shown yet: the record's id. */
@ApiSchema({ name: 'BillingCommandReceipt' })
export class BillingCommandReceipt {
  @ApiProperty({ description: 'The id of the record the command created or changed (a tenant, a top-up, an adjustment, a product code).' }) id!: string;
}

@ApiSchema({ name: 'BillingPeriod' })
export class BillingPeriodResponse {
  @ApiProperty({ ...TIME, description: 'Inclusive.' }) started_at!: string;
  @ApiProperty({ ...TIME, description: 'Exclusive: an event at this instant belongs to the next period.' }) ends_at!: string;
}

@ApiSchema({ name: 'BillingCreditPool' })
export class BillingCreditPoolResponse {
  @ApiProperty({ ...CREDITS, description: 'Credits granted by the lots still holding credits.' }) granted_credits!: string;
  @ApiProperty(CREDITS) remaining_credits!: string;
  @ApiProperty({ description: 'Whether any of its lots holding credits expires.' }) expires!: boolean;
  @ApiPropertyOptional(TIME) first_expires_at?: string;
  @ApiPropertyOptional(TIME) last_expires_at?: string;
}

@ApiSchema({ name: 'BillingCreditPools' })
export class BillingCreditPoolsResponse {
  @ApiProperty({ type: BillingCreditPoolResponse, description: 'Periodic; expires at the period boundary.' }) allowance!: BillingCreditPoolResponse;
  @ApiProperty({ type: BillingCreditPoolResponse, description: 'Purchased; no expiry.' }) topups!: BillingCreditPoolResponse;
  @ApiProperty({ type: BillingCreditPoolResponse, description: 'Expire with their period.' }) subscriptions!: BillingCreditPoolResponse;
  @ApiProperty({ type: BillingCreditPoolResponse, description: 'Governed manual grants.' }) adjustments!: BillingCreditPoolResponse;
}

@ApiSchema({ name: 'BillingSubscription' })
export class BillingSubscriptionResponse {
  @ApiProperty({ example: 'PRO_MONTHLY' }) product_code!: string;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES }) status!: string;
  @ApiProperty() cancel_at_period_end!: boolean;
  @ApiPropertyOptional(TIME) period_started_at?: string;
  @ApiPropertyOptional(TIME) period_ends_at?: string;
}

@ApiSchema({ name: 'BillingSubscriptionList' })
export class BillingSubscriptionListResponse {
  @ApiProperty({ ...HEX32_ID, description: 'The billing account.' }) account_id!: string;
  @ApiProperty({ type: [BillingSubscriptionResponse] }) items!: BillingSubscriptionResponse[];
}

@ApiSchema({ name: 'BillingAccount' })
export class BillingAccountResponse {
  @ApiProperty({ ...HEX32_ID, description: 'The account (not a workspace identifier).' }) account_id!: string;
  @ApiProperty({ ...HEX32_ID, description: 'Platform field: the account\'s key, naming its stream (billing-account-<key>): the tenant\'s id for a tenant\'s account, derived from the person for a person\'s own.' })
  account_key!: string;
  @ApiProperty({ ...HEX32_ID, description: 'Platform field: the tenant it bills.' }) tenant_uuid!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID, description: 'Platform field: in the global tenant, the person whose own account it is; null for a tenant\'s shared account.' })
  profile_uuid!: string | null;
  @ApiProperty({ enum: ACCOUNT_STATUSES }) status!: string;
  @ApiProperty(CREDITS) available_credits!: string;
  @ApiProperty({ ...CREDITS, description: 'Granted this period by the allowance and the subscriptions.' }) included_credits!: string;
  @ApiProperty({ ...CREDITS, description: 'Usage rated this period.' }) rated_usage_credits!: string;
  @ApiProperty({ ...CREDITS, description: 'Platform field: usage no credit covered, paid off first by the next grant.' }) uncovered_credits!: string;
  @ApiProperty({ ...COUNT, description: 'Usage events rated this period.' }) usage_events!: number;
  @ApiProperty({ ...COUNT, description: 'Billable events of this period the rater examined and whose usage is not on the account yet.' }) pending_usage_events!: number;
  @ApiProperty({ type: BillingPeriodResponse }) period!: BillingPeriodResponse;
  @ApiProperty({ type: BillingCreditPoolsResponse }) credit_pools!: BillingCreditPoolsResponse;
  @ApiProperty({ type: [BillingSubscriptionResponse] }) subscriptions!: BillingSubscriptionResponse[];
  @ApiProperty({ enum: SETTLEMENT_METHODS, isArray: true }) settlement_methods!: string[];
  @ApiProperty({ enum: SETTLEMENT_STATES }) settlement_state!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: -1, description: 'Platform field: the account stream\'s version (-1: not opened yet).' }) version!: number;
}

@ApiSchema({ name: 'BillingProduct' })
export class BillingProductResponse {
  @ApiProperty(HEX32_ID) product_id!: string;
  @ApiProperty({ example: 'PRO_MONTHLY' }) code!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ enum: PRODUCT_TYPES }) product_type!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0, description: 'In the currency\'s smallest unit.' }) amount_minor!: number;
  @ApiProperty({ example: 'USD', description: 'ISO 4217.' }) currency!: string;
  @ApiProperty(CREDITS) credit_units!: string;
  @ApiPropertyOptional({ enum: PLAN_INTERVALS, description: 'Absent for top-ups.' }) interval?: string;
}

@ApiSchema({ name: 'BillingProductCatalog' })
export class BillingProductCatalogResponse {
  @ApiProperty({ type: [BillingProductResponse] }) plans!: BillingProductResponse[];
  @ApiProperty({ type: [BillingProductResponse], description: 'Non-expiring credits.' }) topups!: BillingProductResponse[];
  @ApiProperty({ ...CREDITS, description: 'Credits every account gets each period.' }) free_allowance_credits!: string;
  @ApiProperty({ example: 'USD' }) currency!: string;
}

@ApiSchema({ name: 'BillingUsageReconciliation' })
export class BillingUsageReconciliationResponse {
  @ApiProperty({ enum: ['INGEST_TIME'] }) mode!: string;
  @ApiProperty({ ...COUNT, description: 'Billable events of the period the rater examined.' }) checked!: number;
  @ApiProperty({ ...COUNT, description: 'Usage rated for them, on the account.' }) posted!: number;
  @ApiProperty({ ...COUNT, description: 'checked − posted: 0 in a healthy system once the account has caught up.' }) pending!: number;
}

@ApiSchema({ name: 'BillingUsageBySource' })
export class BillingUsageBySourceResponse {
  @ApiProperty({ description: 'What consumed the credits (the product): the event type the rate card priced, e.g. OrderAccepted, AiWalletIntentReserved, AgenticMemoryRequestAccepted.', example: 'OrderAccepted' })
  source_type!: string;
  @ApiProperty({ ...CREDITS, description: 'Credits rated for this source type in the period.' }) credits!: string;
  @ApiProperty({ ...COUNT, description: 'Usage events of this source type rated in the period.' }) usage_events!: number;
}

@ApiSchema({ name: 'BillingUsage' })
export class BillingUsageResponse {
  @ApiProperty({ type: BillingPeriodResponse }) period!: BillingPeriodResponse;
  @ApiProperty(CREDITS) rated_usage_credits!: string;
  @ApiProperty(COUNT) usage_events!: number;
  @ApiProperty(COUNT) pending_usage_events!: number;
  @ApiProperty({ type: BillingUsageReconciliationResponse }) reconciliation!: BillingUsageReconciliationResponse;
  @ApiProperty({
    type: [BillingUsageBySourceResponse],
    description: 'The usage of the period per source type (product), sorted by source_type; they add up to rated_usage_credits and usage_events (for periods projected before this breakdown existed, once billing-accounts is rebuilt). Empty when nothing was rated.',
  })
  by_source!: BillingUsageBySourceResponse[];
}

@ApiSchema({ name: 'BillingTopup' })
export class BillingTopupResponse {
  @ApiProperty(HEX32_ID) topup_id!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiPropertyOptional({ type: String, nullable: true, ...HEX32_ID, description: 'In the global tenant, the person whose own account it is on; null for a tenant\'s account.' })
  profile_uuid?: string | null;
  @ApiProperty() product_code!: string;
  @ApiProperty(CREDITS) credit_units!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) amount_minor!: number;
  @ApiProperty({ example: 'USD' }) currency!: string;
  @ApiProperty({ enum: TOPUP_STATUSES }) status!: string;
  @ApiProperty({ type: String, nullable: true }) rail_reference!: string | null;
  @ApiProperty(TIME) requested_at!: string;
  @ApiProperty({ type: String, nullable: true, ...TIME }) settled_at!: string | null;
  @ApiProperty(HEX32_ID) by_profile_uuid!: string;
  @ApiProperty(TIME) updated!: string;
}

@ApiSchema({ name: 'BillingLotDraw' })
export class BillingLotDrawResponse {
  @ApiProperty(HEX32_ID) lot_id!: string;
  @ApiProperty(CREDITS) credits!: string;
}

@ApiSchema({ name: 'BillingAdjustment' })
export class BillingAdjustmentResponse {
  @ApiProperty(HEX32_ID) adjustment_id!: string;
  @ApiProperty(HEX32_ID) tenant_uuid!: string;
  @ApiPropertyOptional({ type: String, nullable: true, ...HEX32_ID, description: 'In the global tenant, the person whose own account it is on; null for a tenant\'s account.' })
  profile_uuid?: string | null;
  @ApiProperty({ enum: ADJUSTMENT_DIRECTIONS }) direction!: string;
  @ApiProperty(CREDITS) credits!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: String, nullable: true, ...TIME }) expires_at!: string | null;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID, description: 'CREDIT: the lot granted.' }) lot_id!: string | null;
  @ApiProperty({ type: [BillingLotDrawResponse], description: 'DEBIT: what was taken from which lots.' }) draws!: BillingLotDrawResponse[];
  @ApiProperty({ ...CREDITS, description: 'DEBIT: what no lot covered (owed).' }) uncovered_credits!: string;
  @ApiProperty(HEX32_ID) by_profile_uuid!: string;
  @ApiProperty(TIME) created!: string;
}

export const BillingTopupPageResponse = pageOf(BillingTopupResponse, 'BillingTopupPage');
export const BillingAdjustmentPageResponse = pageOf(BillingAdjustmentResponse, 'BillingAdjustmentPage');
