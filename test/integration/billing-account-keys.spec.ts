/**
 * The billing-accounts read model keyed by account (BillingAccountKeys migration), on SQLite and PostgreSQL: a database
 * holding accounts, usage, rating checks, top-ups and adjustments of the tenant-keyed schema is migrated in place
 * (every row kept, a tenant's account keyed by its tenant, the global tenant's former shared account by the global
 * tenant's id), then the projector goes on folding into the legacy rows and opens a person's own account beside them.
 */
import type { EntityManager } from 'typeorm';
import type { JsonObject } from '../../src/platform/commitments/json';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { readRecord } from '../../src/platform/read-model/json-records';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { accountStream, billingAccountDecider, type BillingEvent } from '../../src/modules/billing/domain/account';
import { billingAccountKey, GLOBAL_TENANT_UUID } from '../../src/modules/billing/domain/account-key';
import { accountView, loadState, storeState } from '../../src/modules/billing/domain/account-view';
import {
  ACCOUNTS, BillingAccounts1764000011600, BillingAccountsProjector, billingAccountsReadModel, TOPUPS,
} from '../../projections/billing-accounts/billing-accounts.read-model';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';
import { hex32 } from '../support/events';

const AT = '2026-11-25T10:00:00.000Z';
const ctx = { now: new Date(AT), newId: () => '0'.repeat(32) };

describe.each<DatabaseKind>(['sqlite', 'postgres'])('billing accounts keyed by account, on %s', (kind) => {
  let target: TestDatabase;
  let db: ReadModelDatabase | null = null;
  afterEach(async () => {
    await db?.close();
    await target?.dispose();
  });

  /** An account's events as stored before people had their own: BillingAccountOpened without profile_uuid. */
  function legacyOpened(tenant_uuid: string): BillingEvent[] {
    const events = billingAccountDecider.decide({ kind: 'OpenAccount', tenant_uuid, profile_uuid: null, currency: 'USD', free_allowance: '1' }, billingAccountDecider.initialState(), ctx);
    for (const e of events) if (e.type === 'BillingAccountOpened') delete e.data.profile_uuid;
    return events;
  }
  function legacyRow(tenant_uuid: string): unknown[] {
    const state = storeState(legacyOpened(tenant_uuid).reduce(billingAccountDecider.evolve, billingAccountDecider.initialState()));
    delete (state.account as { profile_uuid?: string | null }).profile_uuid;
    return [tenant_uuid, state.account!.account_id, state.period.ends_at, '00000000000000000001', JSON.stringify({ tenant_uuid, account_id: state.account!.account_id, period_ends_at: state.period.ends_at, state })];
  }
  let position = 100n;
  const recorded = (stream: string, revision: bigint, e: BillingEvent): RecordedEvent => ({
    event_id: hex32(), type: e.type, stream, revision, position: ++position, occurred_at: AT, data: e.data as unknown as JsonObject,
    metadata: { tenant_uuid: null, workspace_uuid: null, actor: { type: 'system', reference: 'platform' }, correlation_id: hex32(), causation_id: null, request_id: null, schema_version: 1 },
    event_commitment: hex32(), previous_event_commitment: null,
  });

  it('migrates every row in place, keyed by account; the projector folds on into legacy rows and opens a person\'s own account beside them', async () => {
    target = makeTestDatabase(kind);
    const TENANT = hex32();
    const topup_id = hex32();
    // The schema as it was (the first migration only), with rows of a tenant's account and of the global shared one.
    db = await target.open([{ ...billingAccountsReadModel, migrations: [BillingAccounts1764000011600] }]);
    await db.transaction(async (tx: EntityManager) => {
      const q = (sql: string, params: unknown[]) => tx.query(db!.sql(sql), params);
      for (const tenant of [TENANT, GLOBAL_TENANT_UUID]) {
        await q('INSERT INTO billing_accounts (tenant_uuid, account_id, period_ends_at, position, record) VALUES (?, ?, ?, ?, ?)', legacyRow(tenant));
        await q('INSERT INTO billing_usage_periods (tenant_uuid, period_started_at, credits, events) VALUES (?, ?, ?, ?)', [tenant, '2026-11-01T00:00:00.000Z', '0.3', 3]);
        await q('INSERT INTO billing_rating_checks (tenant_uuid, period_started_at, checked) VALUES (?, ?, ?)', [tenant, '2026-11-01T00:00:00.000Z', 3]);
      }
      const topup = { topup_id, product_code: 'CREDITS_5', credit_units: '5', amount_minor: 500, currency: 'USD', status: 'PENDING', requested_at: AT, by_profile_uuid: hex32(), tenant_uuid: TENANT, rail_reference: null, settled_at: null, updated: AT };
      await q('INSERT INTO billing_topups (topup_id, tenant_uuid, status, position, record) VALUES (?, ?, ?, ?, ?)', [topup_id, TENANT, 'PENDING', '00000000000000000002', JSON.stringify(topup)]);
      await q('INSERT INTO billing_adjustments (adjustment_id, tenant_uuid, position, record) VALUES (?, ?, ?, ?)', [hex32(), GLOBAL_TENANT_UUID, '00000000000000000003', '{}']);
    });
    await db.close();
    db = null;

    // Opened again with every migration: the keys are renamed and backfilled, nothing is lost.
    db = await target.open([billingAccountsReadModel]);
    const rows = (sql: string) => db!.reader.query(sql) as Promise<Array<Record<string, string | number>>>;
    expect((await rows('SELECT account_key FROM billing_accounts ORDER BY account_key')).map((r) => r.account_key)).toEqual([GLOBAL_TENANT_UUID, TENANT].sort());
    expect((await rows('SELECT account_key, credits, events FROM billing_usage_periods ORDER BY account_key')).map((r) => [r.account_key, r.credits, Number(r.events)])).toEqual(
      [GLOBAL_TENANT_UUID, TENANT].sort().map((k) => [k, '0.3', 3]),
    );
    expect((await rows('SELECT account_key, checked FROM billing_rating_checks ORDER BY account_key')).map((r) => [r.account_key, Number(r.checked)])).toEqual([GLOBAL_TENANT_UUID, TENANT].sort().map((k) => [k, 3]));
    expect(await rows('SELECT account_key, tenant_uuid FROM billing_topups')).toEqual([{ account_key: TENANT, tenant_uuid: TENANT }]);
    expect(await rows('SELECT account_key FROM billing_adjustments')).toEqual([{ account_key: GLOBAL_TENANT_UUID }]);
    // The legacy account reads as a tenant's (no person), under its key.
    const legacy = (await readRecord(db.reader.manager, ACCOUNTS, TENANT))!;
    expect(accountView(loadState(legacy.state), AT, 0)).toMatchObject({ account_key: TENANT, tenant_uuid: TENANT, profile_uuid: null, available_credits: '1' });

    // The projector folds a later event into the legacy row, and a person's own account opens beside the shared one.
    const PERSON = hex32();
    const personKey = billingAccountKey({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: PERSON });
    const opened = billingAccountDecider.decide({ kind: 'OpenAccount', tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: PERSON, currency: 'USD', free_allowance: '1' }, billingAccountDecider.initialState(), ctx);
    const personState = opened.reduce(billingAccountDecider.evolve, billingAccountDecider.initialState());
    const usage = (state: typeof personState, source_position: bigint) =>
      billingAccountDecider.decide({ kind: 'RateUsage', source_event_id: hex32(), source_position, source_type: 'OrderAccepted', occurred_at: AT, credits: '0.1', rate_card_version: 1, free_allowance: '1' }, state, ctx);
    const legacyState = legacyOpened(TENANT).reduce(billingAccountDecider.evolve, billingAccountDecider.initialState());
    const topupSettled: BillingEvent = { type: 'BillingTopupRequested', data: { topup: { topup_id: hex32(), product_code: 'CREDITS_5', credit_units: '5', amount_minor: 500, currency: 'USD', status: 'PENDING', requested_at: AT, by_profile_uuid: PERSON } } };
    const projector = new BillingAccountsProjector();
    await db.transaction((tx) =>
      projector.applyBatch(
        [
          recorded(accountStream(TENANT), 1n, usage(legacyState, 1000n)[0]),
          recorded(accountStream(personKey), 0n, opened[0]),
          recorded(accountStream(personKey), 1n, usage(personState, 1001n)[0]),
          recorded(accountStream(personKey), 2n, topupSettled),
        ],
        tx,
      ),
    );
    expect(accountView(loadState((await readRecord(db.reader.manager, ACCOUNTS, TENANT))!.state), AT, 0)).toMatchObject({ profile_uuid: null, usage_events: 1, available_credits: '0.9' });
    expect(accountView(loadState((await readRecord(db.reader.manager, ACCOUNTS, personKey))!.state), AT, 0)).toMatchObject({ account_key: personKey, tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: PERSON, usage_events: 1 });
    expect((await rows('SELECT account_key, credits, events FROM billing_usage_periods ORDER BY account_key')).map((r) => [r.account_key, r.credits, Number(r.events)])).toEqual(
      [[GLOBAL_TENANT_UUID, '0.3', 3], [TENANT, '0.4', 4], [personKey, '0.1', 1]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const personTopup = (await rows(`SELECT account_key, record FROM billing_topups WHERE account_key = '${personKey}'`))[0];
    expect(JSON.parse(String(personTopup.record))).toMatchObject({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: PERSON });
    expect((await readRecord(db.reader.manager, TOPUPS, topup_id))!.tenant_uuid).toBe(TENANT);
  });
});
