/**
 * The rate card: which events of the log are billable usage and what each costs in credits. Versioned: a rated usage
 * records the version it was rated with, so a change of prices applies from its adoption on and never re-rates the
 * past. The rater resolves the account from the event's envelope: its tenant (`metadata.tenant_uuid`) and, in the
 * global tenant, its actor (`metadata.actor`) or, for an agent, the person it acts for (`metadata.on_behalf_of`), by
 * the rule of account-key.ts.
 *
 * Format: `{ version, rates: { <event type>: <credits as a decimal string> } }`; an event type not listed is free.
 */
import { parseDecimal } from '../../../platform/decimal/fixed18';
import type { BillingCommand } from './account';
import { billingPayer, GLOBAL_TENANT_UUID, type BillingActor, type BillingPayer } from './account-key';

export interface RateCard {
  version: number;
  rates: Readonly<Record<string, string>>;
}

/** Version 1: an order the engine accepted, a live AI-wallet intent that reserved budget, a memory request accepted. */
export const RATE_CARD_V1: RateCard = {
  version: 1,
  rates: {
    OrderAccepted: '0.1',
    AiWalletIntentReserved: '1',
    AgenticMemoryRequestAccepted: '0.5',
  },
};

/** The credits an event of this type costs under the card, or null when it is not billable. */
export function rateOf(card: RateCard, eventType: string): string | null {
  const rate = card.rates[eventType];
  return rate === undefined || parseDecimal(rate) === 0n ? null : rate;
}

/** The parts of a recorded event the rater reads. */
export interface BillableEvent {
  event_id: string;
  type: string;
  position: bigint;
  occurred_at: string;
  metadata: { tenant_uuid?: string | null; actor?: BillingActor | null; on_behalf_of?: BillingActor | null };
}

/**
 * What the rater appends for an event: the account that pays (account-key.ts) and its RateUsage, or null when the
 * event is free or belongs to no tenant. Rated at the event's own instant (its period), by its log position (exactly
 * once: the envelope never changes, so a batch read again goes to the same account, which skips what it rated).
 */
export function usageFor(e: BillableEvent, card: RateCard, free_allowance: string): { payer: BillingPayer; command: Extract<BillingCommand, { kind: 'RateUsage' }> } | null {
  const credits = rateOf(card, e.type);
  const tenant_uuid = e.metadata.tenant_uuid;
  if (credits === null || typeof tenant_uuid !== 'string' || !/^[0-9a-f]{32}$/.test(tenant_uuid)) return null;
  const payer = billingPayer(tenant_uuid, e.metadata.actor, e.metadata.on_behalf_of);
  // The global tenant's usage with no person behind it has nobody to bill: its former shared account rates nothing
  // more, so how far it rated stays the line between the earlier rule and this one (rater.ts, sharedGlobalRatedUntil).
  if (payer.tenant_uuid === GLOBAL_TENANT_UUID && payer.profile_uuid === null) return null;
  return {
    payer,
    command: { kind: 'RateUsage', source_event_id: e.event_id, source_position: e.position, source_type: e.type, occurred_at: e.occurred_at, credits, rate_card_version: card.version, free_allowance },
  };
}
