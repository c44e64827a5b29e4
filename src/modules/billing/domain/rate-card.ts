/**
 * The rate card: which events of the log are billable usage and what each costs in credits. Versioned: a rated usage
 * records the version it was rated with, so a change of prices applies from its adoption on and never re-rates the
 * past. The rater resolves the account from the event's tenant (its metadata's `tenant_uuid`).
 *
 * Format: `{ version, rates: { <event type>: <credits as a decimal string> } }`; an event type not listed is free.
 */
import { parseDecimal } from '../../../platform/decimal/fixed18';

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
