/**
 * The billing account as the read model keeps it (the decider's state, credits as decimal strings) and as the API
 * shows it (the seeds' BillingAccount). Pure: the read model folds events with the decider's own `evolve`, so the
 * projection and the command side can never disagree on a balance.
 */
import { formatPlain, parseDecimal } from '../../../platform/decimal/fixed18';
import { billingAccountDecider, type BillingAccountState, type BillingEvent, type BillingPeriod, type LotRecord, type Subscription, type TopupStatus } from './account';
import { billingAccountKey } from './account-key';
import { availableAt, poolView, POOLS, type CreditPoolView, type Pool } from './credits';

/** The state with its bigints as strings (JSON). */
export interface StoredAccountState {
  account: BillingAccountState['account'];
  period: BillingPeriod;
  lots: LotRecord[];
  uncovered: string;
  rated_position: string;
  period_usage: { credits: string; events: number };
  subscriptions: Record<string, Subscription>;
  topups: Record<string, { status: TopupStatus; credit_units: string }>;
  version: number;
}

export function storeState(s: BillingAccountState): StoredAccountState {
  return {
    account: s.account,
    period: s.period,
    lots: s.lots.map((l) => ({ ...l, granted: formatPlain(l.granted), remaining: formatPlain(l.remaining) })),
    uncovered: formatPlain(s.uncovered),
    rated_position: s.rated_position.toString(),
    period_usage: { credits: formatPlain(s.period_usage.credits), events: s.period_usage.events },
    subscriptions: s.subscriptions,
    topups: s.topups,
    version: s.version,
  };
}

export function loadState(j: StoredAccountState): BillingAccountState {
  return {
    // Accounts stored before people of the global tenant had their own: a tenant's (profile_uuid null).
    account: j.account && { ...j.account, profile_uuid: j.account.profile_uuid ?? null },
    period: j.period,
    lots: j.lots.map((l) => ({ ...l, granted: parseDecimal(l.granted), remaining: parseDecimal(l.remaining) })),
    uncovered: parseDecimal(j.uncovered),
    rated_position: BigInt(j.rated_position),
    period_usage: { credits: parseDecimal(j.period_usage.credits), events: j.period_usage.events },
    subscriptions: j.subscriptions,
    topups: j.topups,
    version: j.version,
  };
}

/** The stored state after one more event (the read model's fold). */
export const foldStored = (j: StoredAccountState | null, event: BillingEvent): StoredAccountState =>
  storeState(billingAccountDecider.evolve(j ? loadState(j) : billingAccountDecider.initialState(), event));

export const ACCOUNT_STATUSES = ['ACTIVE', 'CREDITS_REQUIRED'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];
export const SETTLEMENT_METHODS = ['SIMULATED_RAIL'] as const;
/** CURRENT: nothing open; PAYMENT_PENDING: a top-up waits for the rail; REVIEW_REQUIRED: a settled payment was reversed. */
export const SETTLEMENT_STATES = ['CURRENT', 'PAYMENT_PENDING', 'REVIEW_REQUIRED'] as const;

/** The seeds' BillingAccount, with whose account it is (its key, tenant and person), what is owed and the stream version besides. */
export interface BillingAccountView {
  account_id: string;
  account_key: string;
  tenant_uuid: string;
  profile_uuid: string | null;
  status: AccountStatus;
  available_credits: string;
  included_credits: string;
  rated_usage_credits: string;
  uncovered_credits: string;
  usage_events: number;
  pending_usage_events: number;
  period: BillingPeriod;
  credit_pools: Record<Pool, CreditPoolView>;
  subscriptions: Array<Pick<Subscription, 'product_code' | 'status' | 'cancel_at_period_end' | 'period_started_at' | 'period_ends_at'>>;
  settlement_methods: string[];
  settlement_state: (typeof SETTLEMENT_STATES)[number];
  version: number;
}

/** What the account can spend at `at`: its live lots less what is owed, never below 0. */
export function spendable(s: BillingAccountState, at: string): bigint {
  const left = availableAt(s.lots, at) - s.uncovered;
  return left > 0n ? left : 0n;
}

/** The API view at `at`; `checked` is how many billable events of the period the rater examined (reconciliation). */
export function accountView(s: BillingAccountState, at: string, checked: number): BillingAccountView {
  if (!s.account) throw new Error('no account');
  const available = spendable(s, at);
  const included = s.lots.filter((l) => (l.pool === 'allowance' || l.pool === 'subscriptions') && l.expires_at === s.period.ends_at).reduce((sum, l) => sum + l.granted, 0n);
  const topups = Object.values(s.topups).map((t) => t.status);
  return {
    account_id: s.account.account_id,
    account_key: billingAccountKey(s.account),
    tenant_uuid: s.account.tenant_uuid,
    profile_uuid: s.account.profile_uuid,
    status: available === 0n ? 'CREDITS_REQUIRED' : 'ACTIVE',
    available_credits: formatPlain(available),
    included_credits: formatPlain(included),
    rated_usage_credits: formatPlain(s.period_usage.credits),
    uncovered_credits: formatPlain(s.uncovered),
    usage_events: s.period_usage.events,
    pending_usage_events: Math.max(0, checked - s.period_usage.events),
    period: s.period,
    credit_pools: Object.fromEntries(POOLS.map((p) => [p, poolView(s.lots, p)])) as Record<Pool, CreditPoolView>,
    subscriptions: Object.values(s.subscriptions)
      .sort((a, b) => a.product_code.localeCompare(b.product_code))
      .map(({ product_code, status, cancel_at_period_end, period_started_at, period_ends_at }) => ({ product_code, status, cancel_at_period_end, period_started_at, period_ends_at })),
    settlement_methods: [...SETTLEMENT_METHODS],
    settlement_state: topups.includes('REVIEW_REQUIRED') ? 'REVIEW_REQUIRED' : topups.includes('PENDING') ? 'PAYMENT_PENDING' : 'CURRENT',
    version: s.version,
  };
}
