/**
 * The privacy class of every field of the billing events (src/platform/privacy/field-classes.ts, docs/privacy.md).
 * Accounts, lots, usage and products are the platform's facts (a person's own account in the global tenant names the
 * person by profile_uuid, an internal identifier as in every module's events); the reasons an admin writes for an
 * adjustment are that person's words (personal).
 */
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { BillingEvent } from './account';
import type { CatalogEvent } from './catalog';

export const BILLING_EVENT_CLASSES = declareEventClasses<BillingEvent>('billing', {
  // profile_uuid: whose own account it is in the global tenant; an identifier, internal as in every module's events.
  BillingAccountOpened: { account_id: 'internal', tenant_uuid: 'internal', profile_uuid: 'internal', currency: 'internal', period: 'internal', allowance: 'internal' },
  BillingCreditsGranted: { lot: 'internal', paid_uncovered: 'internal', reason: 'personal', by_profile_uuid: 'internal' },
  BillingCreditsDebited: { adjustment_id: 'internal', credits: 'internal', draws: 'internal', uncovered_added: 'internal', reason: 'personal', by_profile_uuid: 'internal', at: 'internal' },
  BillingUsageRated: {
    source_event_id: 'internal', source_position: 'internal', source_type: 'internal', rate_card_version: 'internal', credits: 'internal', draws: 'internal', uncovered_added: 'internal', credits_left: 'internal', at: 'internal',
  },
  BillingPeriodClosed: { closed: 'internal', expired: 'internal', next: 'internal', allowance: 'internal', renewals: 'internal', ended: 'internal', paid_uncovered: 'internal' },
  BillingSubscriptionStarted: { subscription: 'internal', lot: 'internal', paid_uncovered: 'internal' },
  BillingSubscriptionCancelRequested: { product_code: 'internal', at: 'internal' },
  BillingTopupRequested: { topup: 'internal' },
  BillingTopupSettled: { topup_id: 'internal', rail_reference: 'internal', lot: 'internal', paid_uncovered: 'internal', at: 'internal' },
  BillingTopupFailed: { topup_id: 'internal', rail_reference: 'internal', at: 'internal' },
  BillingTopupFlagged: { topup_id: 'internal', rail_reference: 'internal', at: 'internal' },
});

export const CATALOG_EVENT_CLASSES = declareEventClasses<CatalogEvent>('billing', {
  BillingProductDefined: { product: 'internal', by_profile_uuid: 'internal', at: 'internal' },
  BillingProductRetired: { code: 'internal', by_profile_uuid: 'internal', at: 'internal' },
});
