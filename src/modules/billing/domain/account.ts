/**
 * A billing account (pure decider): one stream per account (`billing-account-<account key>`, account-key.ts: a
 * tenant's, or one person's of the global tenant) holding its
 * credit lots (credits.ts), its current period, its subscriptions, the usage rated against it and how far the log has
 * been rated. Usage is never reported by clients: the rater turns billable events of the log into `BillingUsageRated`
 * here, and the decider ignores a source event at or below the position already rated, so each is rated exactly once,
 * also when the rater crashes between its append and its checkpoint.
 *
 * Periods are UTC calendar months: `started_at` inclusive, `ends_at` exclusive; an event at `ends_at` belongs to the
 * next period. Closing a period expires the lots due at its end (the allowance, the subscriptions' grants), opens the
 * next one with a fresh allowance, renews the subscriptions that continue and ends those cancelled at period end.
 * Usage that no credit covers is recorded as uncovered and paid off first by the next grant; while any is uncovered, or
 * nothing is left, the account is CREDITS_REQUIRED.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { formatPlain, parseDecimal } from '../../../platform/decimal/fixed18';
import { PlatformError, StateConflict } from '../../../platform/errors';
import { billingAccountKey, type BillingPayer } from './account-key';
import { availableAt, draw, type CreditLot, type Draw, type Pool } from './credits';

/** The account's stream, named by its key (account-key.ts). */
export const accountStream = (account_key: string): string => `billing-account-${account_key}`;
/** The account's id: not a workspace's, not the tenant's own, derived from the account's key. */
export const accountIdOf = (account_key: string): string => sha256Hex(canonicalJson(['billing-account', account_key])).slice(0, 32);
const lotIdOf = (...parts: string[]): string => sha256Hex(canonicalJson(['billing-lot', ...parts])).slice(0, 32);

export interface BillingPeriod {
  started_at: string;
  ends_at: string;
}

/** The UTC calendar month holding `at`. */
export function periodOf(at: string): BillingPeriod {
  const d = new Date(at);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { started_at: new Date(start).toISOString(), ends_at: new Date(end).toISOString() };
}

/** A lot as events carry it (credits as decimal strings). */
export interface LotRecord {
  lot_id: string;
  pool: Pool;
  source: string;
  granted: string;
  remaining: string;
  granted_at: string;
  expires_at: string | null;
}

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'TRIALING', 'CANCELED'] as const;
export interface Subscription {
  product_code: string;
  status: (typeof SUBSCRIPTION_STATUSES)[number];
  cancel_at_period_end: boolean;
  period_started_at: string;
  period_ends_at: string;
  credit_units: string;
}

export type BillingEvent =
  /** profile_uuid: the person whose own account it is (global tenant), null for a tenant's; absent on accounts opened before. */
  | { type: 'BillingAccountOpened'; data: { account_id: string; tenant_uuid: string; profile_uuid?: string | null; currency: string; period: BillingPeriod; allowance: LotRecord } }
  | { type: 'BillingCreditsGranted'; data: { lot: LotRecord; paid_uncovered: string; reason: string | null; by_profile_uuid: string | null } }
  | { type: 'BillingCreditsDebited'; data: { adjustment_id: string; credits: string; draws: Draw[]; uncovered_added: string; reason: string; by_profile_uuid: string; at: string } }
  | {
      type: 'BillingUsageRated';
      data: { source_event_id: string; source_position: string; source_type: string; rate_card_version: number; credits: string; draws: Draw[]; uncovered_added: string; credits_left: string; at: string };
    }
  | { type: 'BillingPeriodClosed'; data: { closed: BillingPeriod; expired: Draw[]; next: BillingPeriod; allowance: LotRecord; renewals: LotRecord[]; ended: string[]; paid_uncovered: string } }
  | { type: 'BillingSubscriptionStarted'; data: { subscription: Subscription; lot: LotRecord; paid_uncovered: string } }
  | { type: 'BillingSubscriptionCancelRequested'; data: { product_code: string; at: string } }
  | { type: 'BillingTopupRequested'; data: { topup: Topup } }
  | { type: 'BillingTopupSettled'; data: { topup_id: string; rail_reference: string; lot: LotRecord; paid_uncovered: string; at: string } }
  | { type: 'BillingTopupFailed'; data: { topup_id: string; rail_reference: string; at: string } }
  | { type: 'BillingTopupFlagged'; data: { topup_id: string; rail_reference: string; at: string } };

/**
 * A top-up: a TOPUP product bought through the payment rail. Its credits are granted only when the rail reports the
 * payment SETTLED; a report that reverses a settled payment (a chargeback) flags it for review (REVIEW_REQUIRED) and
 * never takes the credits back by itself: a person decides, with an adjustment if need be.
 */
export const TOPUP_STATUSES = ['PENDING', 'SETTLED', 'FAILED', 'REVIEW_REQUIRED'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];
export const RAIL_OUTCOMES = ['SETTLED', 'FAILED', 'REVERSED'] as const;
export type RailOutcome = (typeof RAIL_OUTCOMES)[number];
export interface Topup {
  topup_id: string;
  product_code: string;
  credit_units: string;
  amount_minor: number;
  currency: string;
  status: TopupStatus;
  requested_at: string;
  by_profile_uuid: string;
}

export interface BillingAccountState {
  account: { account_id: string; tenant_uuid: string; profile_uuid: string | null; currency: string } | null;
  period: BillingPeriod;
  lots: CreditLot[];
  uncovered: bigint;
  /** The highest log position rated (−1: none). */
  rated_position: bigint;
  /** This period's rated usage. */
  period_usage: { credits: bigint; events: number };
  subscriptions: Record<string, Subscription>;
  /** Each top-up's status and the credits it buys. */
  topups: Record<string, { status: TopupStatus; credit_units: string }>;
  version: number;
}

export type RateUsage = { kind: 'RateUsage'; source_event_id: string; source_position: bigint; source_type: string; occurred_at: string; credits: string; rate_card_version: number; free_allowance: string };
export type BillingCommand =
  /** Opens the account in the period holding `at` (default: now); a no-op when it is open. */
  | { kind: 'OpenAccount'; tenant_uuid: string; profile_uuid: string | null; currency: string; free_allowance: string; at?: string }
  | RateUsage
  /**
   * The rater's batch: each usage in log order, as RateUsage would one by one, in one append; with `opening`, an
   * account not open yet is opened first (in the first usage's period), in the same append.
   */
  | { kind: 'RateUsages'; usages: RateUsage[]; opening?: { tenant_uuid: string; profile_uuid: string | null; currency: string; free_allowance: string } }
  | { kind: 'RequestTopup'; topup: Omit<Topup, 'status' | 'requested_at'> }
  | { kind: 'ReportTopupPayment'; topup_id: string; outcome: RailOutcome; rail_reference: string }
  | { kind: 'GrantCredits'; lot_id: string; pool: Pool; source: string; credits: string; expires_at: string | null; reason: string | null; by_profile_uuid: string | null }
  | { kind: 'DebitCredits'; adjustment_id: string; credits: string; reason: string; by_profile_uuid: string }
  | { kind: 'ClosePeriod'; free_allowance: string }
  | { kind: 'StartSubscription'; product_code: string; credit_units: string; trial: boolean }
  | { kind: 'CancelSubscription'; product_code: string };

export class TopupNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such top-up.');
  }
}

export class BillingAccountNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No billing account is open on this stream.');
  }
}

const lotOf = (r: LotRecord): CreditLot => ({ ...r, granted: parseDecimal(r.granted), remaining: parseDecimal(r.remaining) });
const record = (l: Omit<LotRecord, 'granted' | 'remaining'> & { granted: bigint; remaining: bigint }): LotRecord => ({ ...l, granted: formatPlain(l.granted), remaining: formatPlain(l.remaining) });

/** Whether the account may spend: something left and nothing owed. */
export const creditsRequired = (s: Pick<BillingAccountState, 'lots' | 'uncovered'>): boolean => s.uncovered > 0n || s.lots.every((l) => l.remaining <= 0n);

function initialState(): BillingAccountState {
  return { account: null, period: { started_at: '', ends_at: '' }, lots: [], uncovered: 0n, rated_position: -1n, period_usage: { credits: 0n, events: 0 }, subscriptions: {}, topups: {}, version: -1 };
}

const applyDraws = (lots: CreditLot[], draws: Draw[]): CreditLot[] =>
  lots.map((l) => {
    const d = draws.find((x) => x.lot_id === l.lot_id);
    return d ? { ...l, remaining: l.remaining - parseDecimal(d.credits) } : l;
  });

function evolve(state: BillingAccountState, event: BillingEvent): BillingAccountState {
  const s = { ...state, version: state.version + 1 };
  switch (event.type) {
    case 'BillingAccountOpened': {
      const d = event.data;
      return { ...s, account: { account_id: d.account_id, tenant_uuid: d.tenant_uuid, profile_uuid: d.profile_uuid ?? null, currency: d.currency }, period: d.period, lots: [lotOf(d.allowance)], version: 0 };
    }
    case 'BillingCreditsGranted':
      return { ...s, lots: [...s.lots, lotOf(event.data.lot)], uncovered: s.uncovered - parseDecimal(event.data.paid_uncovered) };
    case 'BillingCreditsDebited':
      return { ...s, lots: applyDraws(s.lots, event.data.draws), uncovered: s.uncovered + parseDecimal(event.data.uncovered_added) };
    case 'BillingUsageRated': {
      const d = event.data;
      return {
        ...s,
        lots: applyDraws(s.lots, d.draws),
        uncovered: s.uncovered + parseDecimal(d.uncovered_added),
        rated_position: BigInt(d.source_position),
        period_usage: { credits: s.period_usage.credits + parseDecimal(d.credits), events: s.period_usage.events + 1 },
      };
    }
    case 'BillingPeriodClosed': {
      const d = event.data;
      const lots = applyDraws(s.lots, d.expired).filter((l) => l.remaining > 0n);
      const subscriptions = { ...s.subscriptions };
      for (const code of d.ended) subscriptions[code] = { ...subscriptions[code], status: 'CANCELED' };
      for (const lot of d.renewals) {
        const code = lot.source.slice('SUBSCRIPTION:'.length);
        subscriptions[code] = { ...subscriptions[code], status: 'ACTIVE', period_started_at: d.next.started_at, period_ends_at: d.next.ends_at };
      }
      return {
        ...s,
        period: d.next,
        lots: [...lots, lotOf(d.allowance), ...d.renewals.map(lotOf)],
        uncovered: s.uncovered - parseDecimal(d.paid_uncovered),
        period_usage: { credits: 0n, events: 0 },
        subscriptions,
      };
    }
    case 'BillingSubscriptionStarted': {
      const d = event.data;
      return { ...s, subscriptions: { ...s.subscriptions, [d.subscription.product_code]: d.subscription }, lots: [...s.lots, lotOf(d.lot)], uncovered: s.uncovered - parseDecimal(d.paid_uncovered) };
    }
    case 'BillingSubscriptionCancelRequested': {
      const code = event.data.product_code;
      return { ...s, subscriptions: { ...s.subscriptions, [code]: { ...s.subscriptions[code], cancel_at_period_end: true } } };
    }
    case 'BillingTopupRequested':
      return { ...s, topups: { ...s.topups, [event.data.topup.topup_id]: { status: 'PENDING', credit_units: event.data.topup.credit_units } } };
    case 'BillingTopupSettled':
      return { ...s, topups: withStatus(s.topups, event.data.topup_id, 'SETTLED'), lots: [...s.lots, lotOf(event.data.lot)], uncovered: s.uncovered - parseDecimal(event.data.paid_uncovered) };
    case 'BillingTopupFailed':
      return { ...s, topups: withStatus(s.topups, event.data.topup_id, 'FAILED') };
    case 'BillingTopupFlagged':
      return { ...s, topups: withStatus(s.topups, event.data.topup_id, 'REVIEW_REQUIRED') };
  }
}

const withStatus = (topups: BillingAccountState['topups'], id: string, status: TopupStatus): BillingAccountState['topups'] => ({ ...topups, [id]: { ...topups[id], status } });

/** A top-up's lot: non-expiring, in the topups pool, named after the top-up (a repeated report grants nothing twice). */
export const topupLotId = (account_id: string, topup_id: string): string => lotIdOf(account_id, `TOPUP:${topup_id}`);

/** One usage rated on the state: the periods it closes first, then its BillingUsageRated; none when already rated. */
function rateOne(command: RateUsage, state: BillingAccountState, account_id: string): BillingEvent[] {
  // Exactly once: a source event at or below what was rated is already in.
  if (command.source_position <= state.rated_position) return [];
  const events: BillingEvent[] = [];
  let current = state;
  // An event at or after the period's end belongs to a later period: close up to it first.
  while (Date.parse(command.occurred_at) >= Date.parse(current.period.ends_at)) {
    const { event, after } = closeOf(current, account_id, parseDecimal(command.free_allowance));
    events.push(event);
    current = after;
  }
  const credits = parseDecimal(command.credits);
  const { draws, uncovered } = draw(current.lots, credits, command.occurred_at);
  // What the account can still spend after this usage (0 once it owes anything): the moment it runs out is visible.
  const left = availableAt(current.lots, command.occurred_at) - (credits - uncovered) - current.uncovered - uncovered;
  events.push({
    type: 'BillingUsageRated',
    data: {
      source_event_id: command.source_event_id, source_position: command.source_position.toString(), source_type: command.source_type, rate_card_version: command.rate_card_version,
      credits: formatPlain(credits), draws, uncovered_added: formatPlain(uncovered), credits_left: formatPlain(left > 0n ? left : 0n), at: command.occurred_at,
    },
  });
  return events;
}

/** A grant of `credits` first pays off what is uncovered; the lot keeps the rest. */
function grant(state: BillingAccountState, lot: Omit<LotRecord, 'granted' | 'remaining'>, credits: bigint): { lot: LotRecord; paid: bigint } {
  const paid = state.uncovered < credits ? state.uncovered : credits;
  return { lot: record({ ...lot, granted: credits, remaining: credits - paid }), paid };
}

/** The close of the account's current period, as one event, given the state as it is at that close. */
function closeOf(state: BillingAccountState, account_id: string, free_allowance: bigint): { event: BillingEvent; after: BillingAccountState } {
  const closed = state.period;
  const next = periodOf(closed.ends_at);
  const expired: Draw[] = state.lots.filter((l) => l.remaining > 0n && l.expires_at !== null && Date.parse(l.expires_at) <= Date.parse(closed.ends_at)).map((l) => ({ lot_id: l.lot_id, credits: formatPlain(l.remaining) }));
  let owed = state.uncovered;
  const pay = (credits: bigint): bigint => {
    const paid = owed < credits ? owed : credits;
    owed -= paid;
    return paid;
  };
  const lotFor = (pool: Pool, source: string, credits: bigint): LotRecord => {
    const paid = pay(credits);
    return record({ lot_id: lotIdOf(account_id, source, next.started_at), pool, source, granted: credits, remaining: credits - paid, granted_at: next.started_at, expires_at: next.ends_at });
  };
  const allowance = lotFor('allowance', 'ALLOWANCE', free_allowance);
  const continuing = Object.values(state.subscriptions).filter((sub) => sub.status !== 'CANCELED' && !sub.cancel_at_period_end);
  const ended = Object.values(state.subscriptions).filter((sub) => sub.status !== 'CANCELED' && sub.cancel_at_period_end).map((sub) => sub.product_code);
  const renewals = continuing.map((sub) => lotFor('subscriptions', `SUBSCRIPTION:${sub.product_code}`, parseDecimal(sub.credit_units)));
  const event: BillingEvent = { type: 'BillingPeriodClosed', data: { closed, expired, next, allowance, renewals, ended, paid_uncovered: formatPlain(state.uncovered - owed) } };
  return { event, after: evolve(state, event) };
}

function decide(command: BillingCommand, state: BillingAccountState, ctx: DecideContext): BillingEvent[] {
  const now = ctx.now.toISOString();
  if (command.kind === 'OpenAccount') {
    if (state.account) return [];
    const payer: BillingPayer = { tenant_uuid: command.tenant_uuid, profile_uuid: command.profile_uuid };
    const account_id = accountIdOf(billingAccountKey(payer));
    const period = periodOf(command.at ?? now);
    const allowance = record({ lot_id: lotIdOf(account_id, 'ALLOWANCE', period.started_at), pool: 'allowance', source: 'ALLOWANCE', granted: parseDecimal(command.free_allowance), remaining: parseDecimal(command.free_allowance), granted_at: command.at ?? now, expires_at: period.ends_at });
    return [{ type: 'BillingAccountOpened', data: { account_id, ...payer, currency: command.currency, period, allowance } }];
  }
  if (command.kind === 'RateUsages' && command.opening && !state.account && command.usages.length > 0) {
    const opened = decide({ kind: 'OpenAccount', ...command.opening, at: command.usages[0].occurred_at }, state, ctx);
    return [...opened, ...decide({ kind: 'RateUsages', usages: command.usages }, opened.reduce(evolve, state), ctx)];
  }
  const account = state.account;
  if (!account) throw new BillingAccountNotFound();
  switch (command.kind) {
    case 'RateUsage':
      return rateOne(command, state, account.account_id);
    case 'RateUsages': {
      const events: BillingEvent[] = [];
      let current = state;
      for (const usage of command.usages) {
        for (const e of rateOne(usage, current, account.account_id)) {
          events.push(e);
          current = evolve(current, e);
        }
      }
      return events;
    }
    case 'RequestTopup': {
      if (state.topups[command.topup.topup_id]) return [];
      return [{ type: 'BillingTopupRequested', data: { topup: { ...command.topup, status: 'PENDING', requested_at: now } } }];
    }
    case 'ReportTopupPayment': {
      const topup = state.topups[command.topup_id];
      if (!topup) throw new TopupNotFound();
      const status = topup.status;
      const { outcome, rail_reference, topup_id } = command;
      // Reports repeat and arrive late: one that changes nothing is a no-op; one that contradicts a final state a conflict.
      if (outcome === 'SETTLED') {
        if (status === 'SETTLED' || status === 'REVIEW_REQUIRED') return [];
        if (status === 'FAILED') throw new StateConflict('The top-up’s payment failed; a settlement cannot follow.', { details: [{ field: 'outcome', issue: 'top-up FAILED' }] });
        const { lot, paid } = grant(state, { lot_id: topupLotId(account.account_id, topup_id), pool: 'topups', source: `TOPUP:${topup_id}`, granted_at: now, expires_at: null }, parseDecimal(topup.credit_units));
        return [{ type: 'BillingTopupSettled', data: { topup_id, rail_reference, lot, paid_uncovered: formatPlain(paid), at: now } }];
      }
      if (outcome === 'FAILED') {
        if (status === 'FAILED') return [];
        if (status !== 'PENDING') throw new StateConflict('The top-up settled; a reversal is reported as REVERSED.', { details: [{ field: 'outcome', issue: `top-up ${status}` }] });
        return [{ type: 'BillingTopupFailed', data: { topup_id, rail_reference, at: now } }];
      }
      if (status === 'REVIEW_REQUIRED') return [];
      if (status !== 'SETTLED') throw new StateConflict('Only a settled top-up can be reversed.', { details: [{ field: 'outcome', issue: `top-up ${status}` }] });
      return [{ type: 'BillingTopupFlagged', data: { topup_id, rail_reference, at: now } }];
    }
    case 'GrantCredits': {
      if (state.lots.some((l) => l.lot_id === command.lot_id)) return [];
      const { lot, paid } = grant(state, { lot_id: command.lot_id, pool: command.pool, source: command.source, granted_at: now, expires_at: command.expires_at }, parseDecimal(command.credits));
      return [{ type: 'BillingCreditsGranted', data: { lot, paid_uncovered: formatPlain(paid), reason: command.reason, by_profile_uuid: command.by_profile_uuid } }];
    }
    case 'DebitCredits': {
      const { draws, uncovered } = draw(state.lots, parseDecimal(command.credits), now);
      return [{ type: 'BillingCreditsDebited', data: { adjustment_id: command.adjustment_id, credits: formatPlain(parseDecimal(command.credits)), draws, uncovered_added: formatPlain(uncovered), reason: command.reason, by_profile_uuid: command.by_profile_uuid, at: now } }];
    }
    case 'ClosePeriod':
      if (ctx.now.getTime() < Date.parse(state.period.ends_at)) return [];
      return [closeOf(state, account.account_id, parseDecimal(command.free_allowance)).event];
    case 'StartSubscription': {
      const existing = state.subscriptions[command.product_code];
      if (existing && existing.status !== 'CANCELED') throw new StateConflict(`A subscription to ${command.product_code} is already ${existing.status}.`, { details: [{ field: 'product_code', issue: `already ${existing.status}` }] });
      const subscription: Subscription = {
        product_code: command.product_code, status: command.trial ? 'TRIALING' : 'ACTIVE', cancel_at_period_end: false, period_started_at: now, period_ends_at: state.period.ends_at, credit_units: command.credit_units,
      };
      const source = `SUBSCRIPTION:${command.product_code}`;
      const { lot, paid } = grant(state, { lot_id: lotIdOf(account.account_id, source, now), pool: 'subscriptions', source, granted_at: now, expires_at: state.period.ends_at }, parseDecimal(command.credit_units));
      return [{ type: 'BillingSubscriptionStarted', data: { subscription, lot, paid_uncovered: formatPlain(paid) } }];
    }
    case 'CancelSubscription': {
      const sub = state.subscriptions[command.product_code];
      if (!sub || sub.status === 'CANCELED') throw new StateConflict(`No live subscription to ${command.product_code}.`, { details: [{ field: 'product_code', issue: 'no live subscription' }] });
      if (sub.cancel_at_period_end) return [];
      return [{ type: 'BillingSubscriptionCancelRequested', data: { product_code: command.product_code, at: now } }];
    }
  }
}

export const billingAccountDecider: Decider<BillingCommand, BillingAccountState, BillingEvent> = { initialState, evolve, decide };
