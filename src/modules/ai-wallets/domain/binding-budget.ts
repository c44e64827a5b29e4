/** Budgets: reservations held by intents, counted per UTC day and month against a policy's limits (the seeds' ledger). */
import { amountText, parseAmount } from './assets';
import { committedAt } from './budget-index';
import type { LimitSet, PolicyTerms } from './policy';
import { ACCOUNTING_MODEL, AiWalletIntent, IntentState, ReservationData } from './binding-records';
import type { BindingAggregate } from './binding-state';

/** States whose reservation still counts against the budget (until expires_at, SETTLED for good). */
const HOLDING: ReadonlySet<IntentState> = new Set(['PENDING_APPROVAL', 'POLICY_APPROVED', 'APPROVED', 'SETTLED']);

// ---------------------------------------------------------------------------------------------------------------
// Budgets and evaluation

export interface AiWalletBudgetLedger {
  accounting_model: string;
  max_single_amount: string;
  daily_limit: string;
  daily_committed: string;
  daily_remaining: string;
  monthly_limit: string;
  monthly_committed: string;
  monthly_remaining: string;
  active_intent_count: number;
  asset_code: string | null;
  currency: string | null;
}

export const utcDay = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString()).slice(0, 10);
export const utcMonth = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString()).slice(0, 7);

/** Whether an intent's reservation still counts at `now`: settled ones always, open ones until they expire. */
export function holds(intent: Pick<AiWalletIntent, 'state' | 'expires_at'>, now: Date): boolean {
  if (!HOLDING.has(intent.state)) return false;
  if (intent.state === 'SETTLED') return true;
  return intent.expires_at === null || Date.parse(intent.expires_at) > now.getTime();
}

/** A reservation as the budget counts it (from the binding's state, or from the budget read model's rows). */
export interface ReservationView extends ReservationData {
  state: IntentState | string;
  expires_at: string | null;
}

/**
 * Reserved amounts of one asset in the UTC day and month of `now`, and the number of open intents holding them.
 * The one budget arithmetic: the decision and the budget read model's query both count with it.
 */
export function sumReservations(items: Iterable<ReservationView>, asset: string, now: Date): { day: bigint; month: bigint; active: number } {
  const day = utcDay(now);
  const month = utcMonth(now);
  let d = 0n;
  let m = 0n;
  let active = 0;
  for (const r of items) {
    if (r.asset_code !== asset || !holds({ state: r.state as IntentState, expires_at: r.expires_at }, now)) continue;
    const amount = parseAmount(asset, r.amount);
    if (!('atoms' in amount)) continue;
    if (r.month === month) m += amount.atoms;
    if (r.day === day) d += amount.atoms;
    if (r.state !== 'SETTLED') active += 1;
  }
  return { day: d, month: m, active };
}

/** Every reservation the binding ever made, as the budget read model holds them (for checks: `committed` is the fast path). */
export function* reservationsOf(s: BindingAggregate): Iterable<ReservationView> {
  for (const { intent, reservation } of s.intents.values()) if (reservation) yield { ...reservation, state: intent.state, expires_at: intent.expires_at };
}

/** What `sumReservations` gives over `reservationsOf(s)`, from the budget index: no walk over the intents. */
export const committed = (s: BindingAggregate, asset: string, now: Date): { day: bigint; month: bigint; active: number } =>
  committedAt(s.budget, asset, utcDay(now), utcMonth(now), now.getTime());

const nonNegative = (v: bigint): bigint => (v < 0n ? 0n : v);

/** The seeds' ledger for one asset under one limit set, from committed amounts. */
export function ledger(limits: LimitSet | null, asset: string, currency: string | null, used: { day: bigint; month: bigint; active: number }): AiWalletBudgetLedger {
  const atoms = (v: string | undefined): bigint => {
    const p = v === undefined ? null : parseAmount(asset, v, { allowZero: true });
    return p && 'atoms' in p ? p.atoms : 0n;
  };
  const daily = atoms(limits?.daily_limit);
  const monthly = atoms(limits?.monthly_limit);
  return {
    accounting_model: ACCOUNTING_MODEL,
    max_single_amount: amountText(atoms(limits?.max_single_amount)),
    daily_limit: amountText(daily),
    daily_committed: amountText(used.day),
    daily_remaining: amountText(nonNegative(daily - used.day)),
    monthly_limit: amountText(monthly),
    monthly_committed: amountText(used.month),
    monthly_remaining: amountText(nonNegative(monthly - used.month)),
    active_intent_count: used.active,
    asset_code: asset,
    currency,
  };
}

export interface AiWalletBudget extends AiWalletBudgetLedger {
  /** One ledger per asset budget of the policy; never added up (unlike assets are not converted). */
  per_asset: AiWalletBudgetLedger[];
}

/** The budget at `now`: the policy currency under the main limits, and each asset budget on its own. */
export function budgetOf(policy: PolicyTerms | null, reservations: ReservationView[], now: Date): AiWalletBudget {
  if (!policy) {
    return { ...ledger(null, '', null, { day: 0n, month: 0n, active: 0 }), asset_code: null, per_asset: [] };
  }
  const main: LimitSet = { asset_code: policy.currency, max_single_amount: policy.max_single_amount, daily_limit: policy.daily_limit, monthly_limit: policy.monthly_limit };
  return {
    ...ledger(main, policy.currency, policy.currency, sumReservations(reservations, policy.currency, now)),
    per_asset: policy.asset_budgets.map((b) => ledger(b, b.asset_code, policy.currency, sumReservations(reservations, b.asset_code, now))),
  };
}
