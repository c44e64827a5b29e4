/**
 * A billing account as its topic (`<prefix>.projections.billing-accounts`) carries it: the seeds' BillingAccount the
 * API shows (GET /api/v1/billing/account), from the account's row alone, so a seed and a live change agree.
 *
 * Two members of the API's answer are not the row's own, so the topic's record differs there:
 * - `pending_usage_events` counts what the rater examined (`billing_rating_checks`, the rater's table, written with its
 *   checkpoint, not by this projector): it is left out (GET /api/v1/billing/usage answers it);
 * - `status` and `available_credits` are read at the time of reading: a lot whose expiry has passed stops counting
 *   the moment it passes, without any event. The topic has them as the stored state says: every lot still holding
 *   credits counts (the period close takes the expired ones out, an event that is published), i.e. as the API answers
 *   before any lot's expiry. A consumer that needs them at another instant compares the pools' `first_expires_at`.
 */
import { accountView, loadState, type BillingAccountView, type StoredAccountState } from '../../src/modules/billing/domain/account-view';

/** An instant before every lot's expiry: the account as its stored state has it (see above). */
const STORED = new Date(0).toISOString();

export type PublishedBillingAccount = Omit<BillingAccountView, 'pending_usage_events'>;

/** The topic's record of an account row (members in the API's order). */
export function publishedAccount(row: { state: StoredAccountState }): PublishedBillingAccount {
  const { pending_usage_events: _pending, ...view } = accountView(loadState(row.state), STORED, 0);
  return view;
}
