/**
 * Billing's notification rules (registered with the notification inbox, src/modules/notifications/domain/rule-port.ts):
 * what the people who pay want to hear — the tenant's credits ran out (billable commands now answer 402), a top-up's
 * payment settled (its credits granted), failed, or was reversed and is held for review. Recipients: for a tenant's
 * account, the tenant's OWNER and TENANT_ADMINs at the time, kept as a fact from identity's tenant events
 * (TenantCreated, TenantAuthorityAssigned); for a person's own account in the global tenant, that person (named by
 * the account's BillingAccountOpened). Facts are kept per account key (a tenant's account's key is the tenant's id).
 * Each top-up's few facts are remembered from its request, to say which one it was.
 */
import type { TenantEvent } from '../../identity/domain/access';
import { fact, getFact, id32, notifier, plainDecimal, recipients, streamId, untrusted, type FactKey, type Facts, type InboxChange, type NotificationRules, type SourceEvent } from '../../notifications/domain/rule-port';
import type { BillingEvent } from './account';

/** Who manages an account's billing: a tenant's OWNER and TENANT_ADMINs, or the person whose own account it is. */
interface TenantFact {
  managers: string[];
  /** A person's own account (global tenant): the messages say "you", not "your tenant". */
  personal?: boolean;
  /** Whether the "credits ran out" notification went out and no usage has left credits since. */
  exhausted?: boolean;
}
interface TopupFact {
  tenant: string;
  credits: string;
  product: string;
}

const TYPES = ['BILLING_CREDITS_EXHAUSTED', 'BILLING_TOPUP_SETTLED', 'BILLING_TOPUP_FAILED', 'BILLING_TOPUP_REVIEW_REQUIRED'] as const;
const notify = notifier('billing', TYPES);
const TENANT = 'billing-tenant';
const TOPUP = 'billing-topup';
const ACCOUNT_STREAM = 'billing-account-';
const MANAGING = new Set(['OWNER', 'TENANT_ADMIN']);

function factsNeeded(e: SourceEvent): FactKey[] {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'TenantCreated':
    case 'TenantAuthorityAssigned':
      return [{ scope: TENANT, key: String(d.tenant_uuid) }];
    case 'BillingAccountOpened':
    case 'BillingUsageRated':
      return [{ scope: TENANT, key: String(streamId(e, ACCOUNT_STREAM)) }];
    case 'BillingTopupSettled':
    case 'BillingTopupFailed':
    case 'BillingTopupFlagged':
      return [
        { scope: TENANT, key: String(streamId(e, ACCOUNT_STREAM)) },
        { scope: TOPUP, key: String(d.topup_id) },
      ];
    default:
      return [];
  }
}

function tenantChange(ev: TenantEvent, facts: Facts): InboxChange[] {
  const tenant = id32(ev.data.tenant_uuid);
  if (!tenant) return [];
  const known = (getFact(facts, TENANT, tenant) as TenantFact | undefined) ?? { managers: [] };
  if (ev.type === 'TenantCreated') return [fact(TENANT, tenant, { ...known, managers: recipients(ev.data.owner_profile_uuid, ...known.managers) } satisfies TenantFact)];
  const others = known.managers.filter((p) => p !== ev.data.profile_uuid);
  const managers = MANAGING.has(ev.data.role_code) ? recipients(...others, ev.data.profile_uuid) : others;
  return [fact(TENANT, tenant, { ...known, managers } satisfies TenantFact)];
}

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (e.type === 'TenantCreated' || e.type === 'TenantAuthorityAssigned') return tenantChange({ type: e.type, data: e.data } as unknown as TenantEvent, facts);
  const tenant = id32(streamId(e, ACCOUNT_STREAM));
  if (!tenant) return [];
  const ev = { type: e.type, data: e.data } as unknown as BillingEvent;
  const known = (getFact(facts, TENANT, tenant) as TenantFact | undefined) ?? { managers: [] };
  const href = '/api/v1/billing/account';
  switch (ev.type) {
    case 'BillingAccountOpened': {
      const holder = id32(ev.data.profile_uuid);
      return holder ? [fact(TENANT, tenant, { ...known, managers: recipients(holder), personal: true } satisfies TenantFact)] : [];
    }
    case 'BillingUsageRated': {
      const out = ev.data.credits_left === '0';
      if (out === (known.exhausted === true)) return [];
      const remember = fact(TENANT, tenant, { ...known, exhausted: out } satisfies TenantFact);
      if (!out) return [remember];
      return [
        remember,
        ...recipients(...known.managers).map((p) =>
          notify(e, p, {
            type: 'BILLING_CREDITS_EXHAUSTED',
            title: 'Credits used up',
            message: `${known.personal ? 'You have used up your credits' : 'Your tenant has used up its credits'}: orders, live AI-wallet intents and memory requests are refused (402) until a top-up, a subscription or the next period's allowance.`,
            href,
            reference: tenant,
          }),
        ),
      ];
    }
    case 'BillingTopupRequested': {
      const t = ev.data.topup;
      if (!id32(t?.topup_id)) return [];
      return [fact(TOPUP, t.topup_id, { tenant, credits: t.credit_units, product: untrusted(t.product_code, 40) } satisfies TopupFact)];
    }
    case 'BillingTopupSettled':
    case 'BillingTopupFailed':
    case 'BillingTopupFlagged': {
      const topup_id = id32(ev.data.topup_id);
      const t = getFact(facts, TOPUP, topup_id) as TopupFact | undefined;
      if (!topup_id || !t) return [];
      const content =
        ev.type === 'BillingTopupSettled'
          ? { type: 'BILLING_TOPUP_SETTLED' as const, title: 'Top-up paid', message: `Your top-up ${t.product} was paid: ${plainDecimal(t.credits)} credits were added.` }
          : ev.type === 'BillingTopupFailed'
            ? { type: 'BILLING_TOPUP_FAILED' as const, title: 'Top-up payment failed', message: `The payment of your top-up ${t.product} failed: no credits were added.` }
            : { type: 'BILLING_TOPUP_REVIEW_REQUIRED' as const, title: 'Top-up payment reversed', message: `The payment of your top-up ${t.product} was reversed after it settled; the credits stay while the platform reviews it.` };
      return [
        ...(ev.type === 'BillingTopupSettled' ? [] : [fact(TOPUP, topup_id, null)]),
        ...recipients(...known.managers).map((p) => notify(e, p, { ...content, href: `/api/v1/billing/topups/${topup_id}`, reference: topup_id })),
      ];
    }
    default:
      return [];
  }
}

export const billingNotificationRules: NotificationRules = {
  source: 'billing',
  types: TYPES,
  handles: ['TenantCreated', 'TenantAuthorityAssigned', 'BillingAccountOpened', 'BillingUsageRated', 'BillingTopupRequested', 'BillingTopupSettled', 'BillingTopupFailed', 'BillingTopupFlagged'],
  factScopes: [TENANT, TOPUP],
  factsNeeded,
  plan,
};
