/**
 * Credit lots and the order they are consumed in (pure). A billing account's credits are lots, each in one of the
 * seeds' four pools (BillingCreditPools): `allowance` (periodic, expires at the period boundary), `subscriptions`
 * (expire with their period), `topups` (purchased, never expire), `adjustments` (governed manual grants).
 *
 * **Consumption order**: soonest-expiring first, the consensus of Stripe credit grants, Orb credit blocks and
 * OpenMeter grants: a credit that will lapse is worth less than one that keeps, so it is spent first and the customer
 * loses as little as possible. Ties (same expiry, or none) go allowance → subscriptions → adjustments → top-ups (what
 * was given before what was bought: a purchase is kept longest), then the oldest lot first within a pool. A lot whose
 * `expires_at` has passed at the usage's instant is not drawn from (expiry is exclusive: a lot expiring at `ends_at`
 * does not cover usage at `ends_at`).
 *
 * Credits are decimal strings on the wire, exact fixed-point atoms inside (src/platform/decimal/fixed18.ts).
 */
import { formatPlain } from '../../../platform/decimal/fixed18';

export const POOLS = ['allowance', 'subscriptions', 'topups', 'adjustments'] as const;
export type Pool = (typeof POOLS)[number];
/** Tie-break between pools when expiries are equal. */
const POOL_ORDER: Record<Pool, number> = { allowance: 0, subscriptions: 1, adjustments: 2, topups: 3 };

export interface CreditLot {
  lot_id: string;
  pool: Pool;
  /** Where it came from: `ALLOWANCE`, `SUBSCRIPTION:<product_code>`, `TOPUP:<topup_id>`, `ADJUSTMENT:<adjustment_id>`. */
  source: string;
  granted: bigint;
  remaining: bigint;
  granted_at: string;
  /** Exclusive: the lot covers usage strictly before it; null: never expires. */
  expires_at: string | null;
}

/** One lot's part of a draw. */
export interface Draw {
  lot_id: string;
  credits: string;
}

const live = (lot: CreditLot, at: string): boolean => lot.remaining > 0n && (lot.expires_at === null || Date.parse(at) < Date.parse(lot.expires_at));

/** The lots in consumption order (see above), only those that can cover usage at `at`. */
export function consumptionOrder(lots: readonly CreditLot[], at: string): CreditLot[] {
  const expiry = (l: CreditLot): number => (l.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(l.expires_at));
  return lots
    .filter((l) => live(l, at))
    .sort((a, b) => expiry(a) - expiry(b) || POOL_ORDER[a.pool] - POOL_ORDER[b.pool] || Date.parse(a.granted_at) - Date.parse(b.granted_at) || a.lot_id.localeCompare(b.lot_id));
}

/**
 * Draws `credits` from the lots at `at`: which lots give how much, and what no lot could cover (`uncovered`, paid off
 * by the next grant). Pure: the lots are not changed (evolve applies the draws).
 */
export function draw(lots: readonly CreditLot[], credits: bigint, at: string): { draws: Draw[]; uncovered: bigint } {
  let left = credits;
  const draws: Draw[] = [];
  for (const lot of consumptionOrder(lots, at)) {
    if (left === 0n) break;
    const take = lot.remaining < left ? lot.remaining : left;
    draws.push({ lot_id: lot.lot_id, credits: formatPlain(take) });
    left -= take;
  }
  return { draws, uncovered: left };
}

/** Credits the account can spend at `at`. */
export const availableAt = (lots: readonly CreditLot[], at: string): bigint => consumptionOrder(lots, at).reduce((sum, l) => sum + l.remaining, 0n);

/** The seeds' BillingCreditPool of one pool, from its lots still holding credits. */
export interface CreditPoolView {
  granted_credits: string;
  remaining_credits: string;
  expires: boolean;
  first_expires_at?: string;
  last_expires_at?: string;
}

export function poolView(lots: readonly CreditLot[], pool: Pool): CreditPoolView {
  const mine = lots.filter((l) => l.pool === pool && l.remaining > 0n);
  const expiries = mine.map((l) => l.expires_at).filter((e): e is string => e !== null).sort();
  return {
    granted_credits: formatPlain(mine.reduce((s, l) => s + l.granted, 0n)),
    remaining_credits: formatPlain(mine.reduce((s, l) => s + l.remaining, 0n)),
    expires: expiries.length > 0,
    ...(expiries.length ? { first_expires_at: expiries[0], last_expires_at: expiries[expiries.length - 1] } : {}),
  };
}
