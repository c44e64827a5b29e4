/** The billing account decider, given/when/then: consumption order, exactly-once rating, period boundaries, grants. */
import { accountIdOf, billingAccountDecider, creditsRequired, periodOf, topupLotId, type BillingAccountState, type BillingCommand, type BillingEvent, type RateUsage } from '../../src/modules/billing/domain/account';
import { accountView, foldStored, loadState, spendable, storeState } from '../../src/modules/billing/domain/account-view';
import { availableAt, consumptionOrder, draw, poolView, type CreditLot } from '../../src/modules/billing/domain/credits';
import { RATE_CARD_V1, rateOf, usageFor } from '../../src/modules/billing/domain/rate-card';
import { billingAccountKey, billingPayer, GLOBAL_TENANT_UUID, ratedOnSharedGlobalAccount } from '../../src/modules/billing/domain/account-key';
import { catalogDecider, type BillingProduct } from '../../src/modules/billing/domain/catalog';
import { BILLING_EVENT_CLASSES, CATALOG_EVENT_CLASSES } from '../../src/modules/billing/domain/privacy';
import { parseDecimal } from '../../src/platform/decimal/fixed18';
import { PlatformError } from '../../src/platform/errors';
import { billingNotificationRules } from '../../src/modules/billing/domain/notification-rules';
import type { FactValue, SourceEvent } from '../../src/modules/notifications/domain/rule-port';

const T0 = new Date('2026-11-25T10:00:00.000Z');
const TENANT = '0'.repeat(32);
const ALLOWANCE = '100';
const ctx = (now = T0) => ({ now, newId: () => '0'.repeat(32) });

function given(steps: Array<BillingCommand | [BillingCommand, Date]>): BillingAccountState {
  let state = billingAccountDecider.initialState();
  for (const step of steps) {
    const [command, now] = Array.isArray(step) ? step : [step, T0];
    for (const e of billingAccountDecider.decide(command, state, ctx(now))) state = billingAccountDecider.evolve(state, e);
  }
  return state;
}
const open: BillingCommand = { kind: 'OpenAccount', tenant_uuid: TENANT, profile_uuid: null, currency: 'USD', free_allowance: ALLOWANCE };
let position = 0n;
const usage = (credits: string, occurred_at = T0.toISOString(), source_position = ++position): BillingCommand => ({
  kind: 'RateUsage', source_event_id: source_position.toString(16).padStart(32, '0'), source_position, source_type: 'OrderAccepted', occurred_at, credits, rate_card_version: 1, free_allowance: ALLOWANCE,
});
const grant = (lot_id: string, pool: 'topups' | 'adjustments', credits: string, expires_at: string | null = null): BillingCommand => ({
  kind: 'GrantCredits', lot_id, pool, source: `${pool.toUpperCase()}:${lot_id}`, credits, expires_at, reason: null, by_profile_uuid: null,
});
const atoms = (v: string) => parseDecimal(v);

describe('consumption order', () => {
  const lot = (lot_id: string, pool: CreditLot['pool'], credits: string, granted_at: string, expires_at: string | null): CreditLot => ({ lot_id, pool, source: pool, granted: atoms(credits), remaining: atoms(credits), granted_at, expires_at });
  const lots = [
    lot('topup', 'topups', '50', '2026-11-01T00:00:00.000Z', null),
    lot('adj-late', 'adjustments', '10', '2026-11-02T00:00:00.000Z', '2027-01-01T00:00:00.000Z'),
    lot('allow', 'allowance', '5', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'),
    lot('sub', 'subscriptions', '20', '2026-11-03T00:00:00.000Z', '2026-12-01T00:00:00.000Z'),
    lot('adj-old', 'adjustments', '7', '2026-10-01T00:00:00.000Z', null),
  ];
  it('soonest-expiring first; same expiry: allowance, subscriptions, adjustments, top-ups; then the oldest lot', () => {
    expect(consumptionOrder(lots, '2026-11-25T00:00:00.000Z').map((l) => l.lot_id)).toEqual(['allow', 'sub', 'adj-late', 'adj-old', 'topup']);
    expect(draw(lots, atoms('30'), '2026-11-25T00:00:00.000Z')).toEqual({ draws: [{ lot_id: 'allow', credits: '5' }, { lot_id: 'sub', credits: '20' }, { lot_id: 'adj-late', credits: '5' }], uncovered: 0n });
    expect(draw(lots, atoms('100'), '2026-11-25T00:00:00.000Z').uncovered).toBe(atoms('8'));
  });
  it('a lot expiring at an instant does not cover usage at that instant', () => {
    expect(consumptionOrder(lots, '2026-12-01T00:00:00.000Z').map((l) => l.lot_id)).toEqual(['adj-late', 'adj-old', 'topup']);
    expect(availableAt(lots, '2026-11-30T23:59:59.999Z')).toBe(atoms('92'));
    expect(availableAt(lots, '2026-12-01T00:00:00.000Z')).toBe(atoms('67'));
  });
  it('the seeds\' BillingCreditPool of a pool, from its lots still holding credits', () => {
    expect(poolView(lots, 'adjustments')).toEqual({ granted_credits: '17', remaining_credits: '17', expires: true, first_expires_at: '2027-01-01T00:00:00.000Z', last_expires_at: '2027-01-01T00:00:00.000Z' });
    expect(poolView(lots, 'topups')).toEqual({ granted_credits: '50', remaining_credits: '50', expires: false });
  });
});

describe('billing account', () => {
  it('opens in the UTC month with the free allowance expiring at its end', () => {
    const s = given([open]);
    expect(s.period).toEqual({ started_at: '2026-11-01T00:00:00.000Z', ends_at: '2026-12-01T00:00:00.000Z' });
    expect(s.lots).toEqual([expect.objectContaining({ pool: 'allowance', remaining: atoms('100'), expires_at: '2026-12-01T00:00:00.000Z' })]);
    expect(periodOf('2026-12-31T23:59:59.999Z')).toEqual({ started_at: '2026-12-01T00:00:00.000Z', ends_at: '2027-01-01T00:00:00.000Z' });
  });

  it('rates each source event exactly once: at or below the rated position it changes nothing', () => {
    const s = given([open, usage('1', undefined, 10n)]);
    expect([s.rated_position, s.period_usage]).toEqual([10n, { credits: atoms('1'), events: 1 }]);
    expect(billingAccountDecider.decide(usage('1', undefined, 10n), s, ctx())).toEqual([]);
    expect(billingAccountDecider.decide(usage('1', undefined, 9n), s, ctx())).toEqual([]);
    expect(billingAccountDecider.decide(usage('1', undefined, 11n), s, ctx()).map((e) => e.type)).toEqual(['BillingUsageRated']);
  });

  it('usage beyond the credits is uncovered and makes the account CREDITS_REQUIRED; the next grant pays it off first', () => {
    const s = given([open, usage('130')]);
    expect([s.uncovered, s.lots[0].remaining, creditsRequired(s)]).toEqual([atoms('30'), 0n, true]);
    const topped = given([open, usage('130'), grant('t1', 'topups', '50')]);
    expect([topped.uncovered, topped.lots[1].remaining, creditsRequired(topped)]).toEqual([0n, atoms('20'), false]);
    expect(creditsRequired(given([open, usage('130'), grant('t1', 'topups', '30')]))).toBe(true);
  });

  it('an event at ends_at belongs to the next period: the period closes first, the allowance lapses and renews', () => {
    const s = given([open, usage('30', '2026-11-30T23:59:59.999Z'), usage('5', '2026-12-01T00:00:00.000Z')]);
    expect(s.period).toEqual({ started_at: '2026-12-01T00:00:00.000Z', ends_at: '2027-01-01T00:00:00.000Z' });
    expect(s.lots.map((l) => [l.pool, l.remaining.toString(), l.expires_at])).toEqual([['allowance', atoms('95').toString(), '2027-01-01T00:00:00.000Z']]);
    expect(s.period_usage).toEqual({ credits: atoms('5'), events: 1 });
  });

  it('ClosePeriod closes only at or after ends_at; top-ups survive it, subscriptions renew or end', () => {
    const base: Array<BillingCommand | [BillingCommand, Date]> = [open, grant('t1', 'topups', '40'), { kind: 'StartSubscription', product_code: 'PRO', credit_units: '500', trial: false }, { kind: 'StartSubscription', product_code: 'ADDON', credit_units: '50', trial: true }, { kind: 'CancelSubscription', product_code: 'ADDON' }];
    const before = given(base);
    expect(billingAccountDecider.decide({ kind: 'ClosePeriod', free_allowance: ALLOWANCE }, before, ctx(new Date('2026-11-30T23:59:59.999Z')))).toEqual([]);
    const after = given([...base, [{ kind: 'ClosePeriod', free_allowance: ALLOWANCE }, new Date('2026-12-01T00:00:00.000Z')]]);
    expect(after.subscriptions.PRO).toMatchObject({ status: 'ACTIVE', period_started_at: '2026-12-01T00:00:00.000Z', period_ends_at: '2027-01-01T00:00:00.000Z' });
    expect(after.subscriptions.ADDON.status).toBe('CANCELED');
    expect(after.lots.map((l) => `${l.pool}:${l.remaining}`).sort()).toEqual([`allowance:${atoms('100')}`, `subscriptions:${atoms('500')}`, `topups:${atoms('40')}`]);
  });

  it('a debit draws like usage; subscriptions cannot start twice; an unknown account is 404', () => {
    const s = given([open, { kind: 'DebitCredits', adjustment_id: 'a1', credits: '30', reason: 'Correction of a double grant', by_profile_uuid: 'e'.repeat(32) }]);
    expect(s.lots[0].remaining).toBe(atoms('70'));
    const subbed = given([open, { kind: 'StartSubscription', product_code: 'PRO', credit_units: '500', trial: false }]);
    expect(() => billingAccountDecider.decide({ kind: 'StartSubscription', product_code: 'PRO', credit_units: '500', trial: false }, subbed, ctx())).toThrow(PlatformError);
    expect(() => billingAccountDecider.decide(usage('1'), billingAccountDecider.initialState(), ctx())).toThrow('No billing account');
  });
});

describe('billing account: the rater\'s batches, top-ups and the read model\'s view', () => {
  const rateUsage = (credits: string, source_position: bigint, occurred_at = T0.toISOString()) => usage(credits, occurred_at, source_position) as RateUsage;

  it('given a batch of usages, when rated in one command, then each is rated once, in order, as RateUsage would one by one', () => {
    const batch: BillingCommand = { kind: 'RateUsages', usages: [rateUsage('30', 20n), rateUsage('5', 21n, '2026-12-01T00:00:00.000Z'), rateUsage('5', 21n), rateUsage('1', 19n)] };
    const events = billingAccountDecider.decide(batch, given([open]), ctx());
    expect(events.map((e) => e.type)).toEqual(['BillingUsageRated', 'BillingPeriodClosed', 'BillingUsageRated']);
    const one = given([open, rateUsage('30', 20n), rateUsage('5', 21n, '2026-12-01T00:00:00.000Z')]);
    const batched = given([open, batch]);
    expect(batched).toEqual(one);
    // The same batch again (a rater that crashed before its checkpoint): nothing.
    expect(billingAccountDecider.decide(batch, batched, ctx())).toEqual([]);
  });

  it('given an account opened for an earlier event, then its period is that event\'s month', () => {
    expect(given([{ ...open, at: '2026-10-31T23:59:59.999Z' } as BillingCommand]).period).toEqual({ started_at: '2026-10-01T00:00:00.000Z', ends_at: '2026-11-01T00:00:00.000Z' });
    expect(billingAccountDecider.decide(open, given([open]), ctx())).toEqual([]);
    // The rater's batch opens an account that is not open yet, in the same append, in its first usage's period.
    const opening = { tenant_uuid: TENANT, profile_uuid: null, currency: 'USD', free_allowance: ALLOWANCE };
    const first = billingAccountDecider.decide({ kind: 'RateUsages', usages: [rateUsage('1', 30n, '2026-10-15T00:00:00.000Z')], opening }, billingAccountDecider.initialState(), ctx());
    expect(first.map((e) => e.type)).toEqual(['BillingAccountOpened', 'BillingUsageRated']);
    expect(first[0].data).toMatchObject({ period: { started_at: '2026-10-01T00:00:00.000Z' } });
    expect(() => billingAccountDecider.decide({ kind: 'RateUsages', usages: [rateUsage('1', 31n)] }, billingAccountDecider.initialState(), ctx())).toThrow('No billing account');
  });

  it('top-ups: requested PENDING with no credits; SETTLED grants a non-expiring lot (owed paid first) once; FAILED only while pending; REVERSED flags', () => {
    const topup = { topup_id: 't'.repeat(32), product_code: 'CREDITS_50', credit_units: '50', amount_minor: 500, currency: 'USD', by_profile_uuid: 'e'.repeat(32) };
    const report = (outcome: 'SETTLED' | 'FAILED' | 'REVERSED'): BillingCommand => ({ kind: 'ReportTopupPayment', topup_id: topup.topup_id, outcome, rail_reference: `r-${outcome}` });
    const requested = given([open, usage('130'), { kind: 'RequestTopup', topup }]);
    expect([requested.topups[topup.topup_id], requested.lots.length, requested.uncovered]).toEqual([{ status: 'PENDING', credit_units: '50' }, 1, atoms('30')]);
    expect(() => billingAccountDecider.decide({ kind: 'ReportTopupPayment', topup_id: 'x'.repeat(32), outcome: 'SETTLED', rail_reference: 'r' }, requested, ctx())).toThrow('No such top-up');
    expect(() => billingAccountDecider.decide(report('REVERSED'), requested, ctx())).toThrow('Only a settled top-up');
    const settled = given([open, usage('130'), { kind: 'RequestTopup', topup }, report('SETTLED')]);
    const lot = settled.lots.find((l) => l.pool === 'topups')!;
    expect([lot.granted, lot.remaining, lot.expires_at, lot.lot_id, settled.uncovered]).toEqual([atoms('50'), atoms('20'), null, topupLotId(settled.account!.account_id, topup.topup_id), 0n]);
    expect(billingAccountDecider.decide(report('SETTLED'), settled, ctx())).toEqual([]);
    expect(() => billingAccountDecider.decide(report('FAILED'), settled, ctx())).toThrow('REVERSED');
    const flagged = given([open, usage('130'), { kind: 'RequestTopup', topup }, report('SETTLED'), report('REVERSED')]);
    expect([flagged.topups[topup.topup_id].status, flagged.lots.find((l) => l.pool === 'topups')!.remaining]).toEqual(['REVIEW_REQUIRED', atoms('20')]);
    const failed = given([open, { kind: 'RequestTopup', topup }, report('FAILED')]);
    expect(failed.topups[topup.topup_id].status).toBe('FAILED');
    expect(() => billingAccountDecider.decide(report('SETTLED'), failed, ctx())).toThrow('failed');
    expect(billingAccountDecider.decide({ kind: 'RequestTopup', topup }, failed, ctx())).toEqual([]);
  });

  it('the read model folds with the decider\'s evolve: stored and loaded state round-trips; the view derives status and pools', () => {
    const commands = [open, usage('100'), grant('adj', 'adjustments', '5', '2027-01-01T00:00:00.000Z'), usage('2')];
    const s = given(commands);
    let stored = null as ReturnType<typeof storeState> | null;
    const events = commands.reduce<{ state: BillingAccountState; events: BillingEvent[] }>(
      (acc, c) => {
        const decided = billingAccountDecider.decide(c, acc.state, ctx());
        return { state: decided.reduce(billingAccountDecider.evolve, acc.state), events: [...acc.events, ...decided] };
      },
      { state: billingAccountDecider.initialState(), events: [] },
    ).events;
    for (const e of events) stored = foldStored(stored, e);
    expect(loadState(JSON.parse(JSON.stringify(stored)))).toEqual(s);
    const view = accountView(s, T0.toISOString(), 4);
    expect(view).toMatchObject({ status: 'ACTIVE', available_credits: '3', included_credits: '100', rated_usage_credits: '102', usage_events: 2, pending_usage_events: 2, uncovered_credits: '0' });
    expect(view.credit_pools.allowance).toEqual({ granted_credits: '0', remaining_credits: '0', expires: false });
    expect(accountView(given([open, usage('101')]), T0.toISOString(), 1)).toMatchObject({ status: 'CREDITS_REQUIRED', available_credits: '0', uncovered_credits: '1' });
    expect(spendable(s, '2027-01-01T00:00:00.000Z')).toBe(0n);
  });
});

describe('billing notification rules', () => {
  const OWNER = 'a'.repeat(32);
  const ADMIN = 'b'.repeat(32);
  const TENANT_ID = 'c'.repeat(32);
  let n = 0;
  const source = (type: string, data: Record<string, unknown>, stream = `billing-account-${TENANT_ID}`): SourceEvent => ({
    event_id: (++n).toString(16).padStart(32, '0'), type, stream, position: n.toString().padStart(20, '0'), occurred_at: T0.toISOString(), data,
  });
  /** Plays events through the rules with the facts they keep; answers the notifications (type, recipient). */
  function play(events: SourceEvent[]): Array<[string, string]> {
    const facts = new Map<string, FactValue>();
    const told: Array<[string, string]> = [];
    for (const e of events) {
      for (const c of billingNotificationRules.plan(e, facts)) {
        if (c.kind === 'fact') {
          if (c.value === null) facts.delete(`${c.scope}/${c.key}`);
          else facts.set(`${c.scope}/${c.key}`, c.value);
        } else if (c.kind === 'notify') told.push([c.draft.type, c.draft.profile_uuid]);
      }
    }
    return told;
  }
  const tenant = [
    source('TenantCreated', { tenant_uuid: TENANT_ID, name: 'Co', owner_profile_uuid: OWNER }, `identity-tenant-${TENANT_ID}`),
    source('TenantAuthorityAssigned', { tenant_uuid: TENANT_ID, profile_uuid: ADMIN, role_code: 'TENANT_ADMIN', reason: 'x', assigned_by_profile_uuid: OWNER }, `identity-tenant-${TENANT_ID}`),
  ];
  const rated = (credits_left: string) => source('BillingUsageRated', { credits_left });

  it('given the owner and a tenant admin, when a usage leaves nothing, then both are told once; told again only after credits were left', () => {
    expect(play([...tenant, rated('0.5'), rated('0'), rated('0')])).toEqual([['BILLING_CREDITS_EXHAUSTED', OWNER], ['BILLING_CREDITS_EXHAUSTED', ADMIN]]);
    expect(play([...tenant, rated('0'), rated('3'), rated('0')]).filter(([, p]) => p === OWNER)).toHaveLength(2);
    // A moderator is not told.
    const moderator = source('TenantAuthorityAssigned', { tenant_uuid: TENANT_ID, profile_uuid: ADMIN, role_code: 'TENANT_MODERATOR', reason: 'x', assigned_by_profile_uuid: OWNER }, `identity-tenant-${TENANT_ID}`);
    expect(play([...tenant, moderator, rated('0')])).toEqual([['BILLING_CREDITS_EXHAUSTED', OWNER]]);
  });

  it('given a person\'s own account (global tenant), when its usage leaves nothing, then that person is told, not the global tenant\'s owner', () => {
    const PERSON = 'e'.repeat(32);
    const KEY = 'f'.repeat(32);
    const global = source('TenantCreated', { tenant_uuid: '0'.repeat(32), name: 'Global', owner_profile_uuid: OWNER }, `identity-tenant-${'0'.repeat(32)}`);
    const opened = source('BillingAccountOpened', { tenant_uuid: '0'.repeat(32), profile_uuid: PERSON }, `billing-account-${KEY}`);
    expect(play([global, opened, source('BillingUsageRated', { credits_left: '0' }, `billing-account-${KEY}`)])).toEqual([['BILLING_CREDITS_EXHAUSTED', PERSON]]);
  });

  it('given a requested top-up, when the rail settles and then reverses it, then the managers are told of each; unknown top-ups tell nothing', () => {
    const topup_id = 'd'.repeat(32);
    const requested = source('BillingTopupRequested', { topup: { topup_id, product_code: 'CREDITS_5', credit_units: '5' } });
    expect(play([tenant[0], requested, source('BillingTopupSettled', { topup_id }), source('BillingTopupFlagged', { topup_id })])).toEqual([
      ['BILLING_TOPUP_SETTLED', OWNER],
      ['BILLING_TOPUP_REVIEW_REQUIRED', OWNER],
    ]);
    expect(play([tenant[0], source('BillingTopupFailed', { topup_id })])).toEqual([]);
  });
});

describe('rate card', () => {
  it('rates the billable event types of its version; others are free', () => {
    expect([RATE_CARD_V1.version, rateOf(RATE_CARD_V1, 'OrderAccepted'), rateOf(RATE_CARD_V1, 'AiWalletIntentReserved'), rateOf(RATE_CARD_V1, 'SessionStarted')]).toEqual([1, '0.1', '1', null]);
  });
});

describe('the rater\'s reading of an event', () => {
  it('a billable event of a tenant becomes its RateUsage at the event\'s instant and position; free or tenantless events none', () => {
    const REAL = '7'.repeat(32);
    const e = { event_id: 'f'.repeat(32), type: 'AiWalletIntentReserved', position: 42n, occurred_at: '2026-11-30T12:00:00.000Z', metadata: { tenant_uuid: REAL } };
    expect(usageFor(e, RATE_CARD_V1, ALLOWANCE)).toEqual({
      payer: { tenant_uuid: REAL, profile_uuid: null },
      command: { kind: 'RateUsage', source_event_id: 'f'.repeat(32), source_position: 42n, source_type: 'AiWalletIntentReserved', occurred_at: '2026-11-30T12:00:00.000Z', credits: '1', rate_card_version: 1, free_allowance: ALLOWANCE },
    });
    expect(usageFor({ ...e, type: 'SessionStarted' }, RATE_CARD_V1, ALLOWANCE)).toBeNull();
    expect(usageFor({ ...e, metadata: { tenant_uuid: null } }, RATE_CARD_V1, ALLOWANCE)).toBeNull();
    // The global tenant: a person's usage is theirs; the platform's own (no person behind it) has nobody to bill.
    const ann = 'a'.repeat(32);
    expect(usageFor({ ...e, metadata: { tenant_uuid: TENANT, actor: { type: 'profile', reference: ann } } }, RATE_CARD_V1, ALLOWANCE)?.payer).toEqual({ tenant_uuid: TENANT, profile_uuid: ann });
    expect(usageFor({ ...e, metadata: { tenant_uuid: TENANT, actor: { type: 'system', reference: 'platform' } } }, RATE_CARD_V1, ALLOWANCE)).toBeNull();
    expect(usageFor({ ...e, metadata: { tenant_uuid: TENANT } }, RATE_CARD_V1, ALLOWANCE)).toBeNull();
  });
});

describe('given usage of the global tenant rated on its former shared account up to a position', () => {
  const ann = { tenant_uuid: TENANT, profile_uuid: 'a'.repeat(32) };
  it('when the log is read again, then usage at or below that position is in already; past it, and any tenant\'s, is not', () => {
    expect(ratedOnSharedGlobalAccount(ann, 10n, 10n)).toBe(true);
    expect(ratedOnSharedGlobalAccount(ann, 11n, 10n)).toBe(false);
    expect(ratedOnSharedGlobalAccount(ann, 0n, -1n)).toBe(false);
    expect(ratedOnSharedGlobalAccount({ tenant_uuid: '7'.repeat(32), profile_uuid: null }, 5n, 10n)).toBe(false);
  });
});

describe('which account pays (the billing account key)', () => {
  const REAL = '7'.repeat(32);
  const ANN = 'a'.repeat(32);
  const BEN = 'b'.repeat(32);
  const person = (reference: string) => ({ type: 'profile', reference });
  const key = (tenant: string, actor: { type: string; reference: string } | null) => billingAccountKey(billingPayer(tenant, actor));

  it('given a tenant other than the global one, then every person and agent of it pays from the tenant\'s one account, keyed by the tenant', () => {
    expect(billingPayer(REAL, person(ANN))).toEqual({ tenant_uuid: REAL, profile_uuid: null });
    expect(new Set([key(REAL, person(ANN)), key(REAL, person(BEN)), key(REAL, { type: 'workload', reference: 'c'.repeat(32) }), key(REAL, null)])).toEqual(new Set([REAL]));
  });

  it('given the global tenant, then each person (and each agent) pays from an account of their own, never the global tenant\'s', () => {
    expect(billingPayer(GLOBAL_TENANT_UUID, person(ANN))).toEqual({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: ANN });
    const ann = key(GLOBAL_TENANT_UUID, person(ANN));
    const ben = key(GLOBAL_TENANT_UUID, person(BEN));
    expect(ann).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set([ann, ben, GLOBAL_TENANT_UUID, ANN, BEN]).size).toBe(5);
    // Pure: the gate, the rater, the projector and the routes derive the same key from the same payer.
    expect(key(GLOBAL_TENANT_UUID, person(ANN))).toBe(ann);
    expect(key(GLOBAL_TENANT_UUID, { type: 'workload', reference: 'c'.repeat(32) })).not.toBe(GLOBAL_TENANT_UUID);
  });

  it('given an agent of the global tenant acting for the person who answers for it, then the person pays: their account, shared by their agents', () => {
    const agent = (c: string) => ({ type: 'workload', reference: c.repeat(32) });
    expect(billingPayer(GLOBAL_TENANT_UUID, agent('c'), person(ANN))).toEqual({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: ANN });
    const ann = key(GLOBAL_TENANT_UUID, person(ANN));
    expect(billingAccountKey(billingPayer(GLOBAL_TENANT_UUID, agent('c'), person(ANN)))).toBe(ann);
    expect(billingAccountKey(billingPayer(GLOBAL_TENANT_UUID, agent('d'), person(ANN)))).toBe(ann);
    expect(billingAccountKey(billingPayer(GLOBAL_TENANT_UUID, agent('c'), person(BEN)))).toBe(key(GLOBAL_TENANT_UUID, person(BEN)));
    // In a real tenant the tenant's shared account, as before.
    expect(billingPayer(REAL, agent('c'), person(ANN))).toEqual({ tenant_uuid: REAL, profile_uuid: null });
    // Only an agent acts for someone: a person's own session is theirs, whatever else the envelope says.
    expect(billingPayer(GLOBAL_TENANT_UUID, person(BEN), person(ANN))).toEqual({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: BEN });
    // An agent's event from before the envelope named the person stays on the agent's own account (a replay agrees).
    expect(billingPayer(GLOBAL_TENANT_UUID, agent('c'))).toEqual({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: 'c'.repeat(32) });
    expect(billingPayer(GLOBAL_TENANT_UUID, agent('c'), { type: 'profile', reference: 'not-an-id' })).toEqual({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: 'c'.repeat(32) });
    // The rater reads the same from the envelope.
    const e = { event_id: 'f'.repeat(32), type: 'AiWalletIntentReserved', position: 9n, occurred_at: T0.toISOString(), metadata: { tenant_uuid: GLOBAL_TENANT_UUID, actor: agent('c'), on_behalf_of: person(ANN) } };
    expect(billingAccountKey(usageFor(e, RATE_CARD_V1, ALLOWANCE)!.payer)).toBe(ann);
  });

  it('given a global-tenant event with no person or agent behind it, then it stays on the global tenant\'s own (former shared) account', () => {
    expect(key(GLOBAL_TENANT_UUID, { type: 'system', reference: 'platform' })).toBe(GLOBAL_TENANT_UUID);
    expect(key(GLOBAL_TENANT_UUID, null)).toBe(GLOBAL_TENANT_UUID);
    expect(key(GLOBAL_TENANT_UUID, person('not-an-id'))).toBe(GLOBAL_TENANT_UUID);
  });

  it('the rater reads the payer from the envelope: two people of the global tenant, two accounts; two of a real tenant, one', () => {
    const e = (tenant_uuid: string, reference: string) => ({ event_id: 'f'.repeat(32), type: 'OrderAccepted', position: 7n, occurred_at: T0.toISOString(), metadata: { tenant_uuid, actor: person(reference) } });
    const payerOf = (tenant: string, who: string) => billingAccountKey(usageFor(e(tenant, who), RATE_CARD_V1, ALLOWANCE)!.payer);
    expect(payerOf(GLOBAL_TENANT_UUID, ANN)).not.toBe(payerOf(GLOBAL_TENANT_UUID, BEN));
    expect(payerOf(REAL, ANN)).toBe(payerOf(REAL, BEN));
  });

  it('given a person\'s account opened, then its event names the person and its id derives from its key; a tenant\'s names no one', () => {
    const [opened] = billingAccountDecider.decide({ kind: 'OpenAccount', tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: ANN, currency: 'USD', free_allowance: ALLOWANCE }, billingAccountDecider.initialState(), ctx());
    expect(opened).toMatchObject({ type: 'BillingAccountOpened', data: { tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: ANN, account_id: accountIdOf(key(GLOBAL_TENANT_UUID, person(ANN))) } });
    const view = accountView(billingAccountDecider.evolve(billingAccountDecider.initialState(), opened), T0.toISOString(), 0);
    expect(view).toMatchObject({ account_key: key(GLOBAL_TENANT_UUID, person(ANN)), tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: ANN });
    const [tenants] = billingAccountDecider.decide({ kind: 'OpenAccount', tenant_uuid: REAL, profile_uuid: null, currency: 'USD', free_allowance: ALLOWANCE }, billingAccountDecider.initialState(), ctx());
    expect(tenants.data).toMatchObject({ profile_uuid: null, account_id: accountIdOf(REAL) });
    // An account stored before (no profile_uuid in its state) is a tenant's.
    const legacy = storeState(given([open]));
    delete (legacy.account as { profile_uuid?: string | null }).profile_uuid;
    expect(loadState(legacy).account).toMatchObject({ tenant_uuid: TENANT, profile_uuid: null });
    expect(BILLING_EVENT_CLASSES.BillingAccountOpened.profile_uuid).toBe('internal');
  });
});

describe('catalogue', () => {
  const plan: BillingProduct = { product_id: '1'.repeat(32), code: 'PRO', name: 'Pro', description: '', product_type: 'PLAN', amount_minor: 4900, currency: 'USD', credit_units: '500', interval: 'month' };
  const define = (product: BillingProduct) => ({ kind: 'DefineProduct' as const, product, by_profile_uuid: 'e'.repeat(32) });
  it('codes are unique; a PLAN has an interval and a TOPUP none; a retired product is retired once', () => {
    let s = catalogDecider.initialState();
    for (const e of catalogDecider.decide(define(plan), s, ctx())) s = catalogDecider.evolve(s, e);
    expect(catalogDecider.decide(define(plan), s, ctx())).toEqual([]);
    expect(() => catalogDecider.decide(define({ ...plan, product_id: '2'.repeat(32) }), s, ctx())).toThrow('exists');
    const { interval: _i, ...noInterval } = plan;
    expect(() => catalogDecider.decide(define({ ...noInterval, code: 'X', product_id: '3'.repeat(32) }), s, ctx())).toThrow('interval');
    expect(() => catalogDecider.decide(define({ ...plan, code: 'T', product_id: '4'.repeat(32), product_type: 'TOPUP' }), s, ctx())).toThrow('interval');
    for (const e of catalogDecider.decide({ kind: 'RetireProduct', code: 'PRO', by_profile_uuid: 'e'.repeat(32) }, s, ctx())) s = catalogDecider.evolve(s, e);
    expect(s.products.PRO.retired).toBe(true);
    let refused: unknown;
    try {
      catalogDecider.decide({ kind: 'RetireProduct', code: 'PRO', by_profile_uuid: 'e'.repeat(32) }, s, ctx());
    } catch (error) {
      refused = error;
    }
    expect((refused as PlatformError).details).toEqual([{ field: 'code', issue: 'already retired' }]);
  });
  it('every billing event field is classified; an adjustment\'s reason is personal', () => {
    expect(BILLING_EVENT_CLASSES.BillingCreditsDebited.reason).toBe('personal');
    expect(CATALOG_EVENT_CLASSES.BillingProductDefined.product).toBe('internal');
  });
});
