/**
 * Billing per person in the global tenant, across the change of rule (docs/billing.md, "Never rated twice across the
 * change"): usage of the global tenant rated on its former shared account under the earlier rule is never rated again
 * on a person's own account when the rater reads the log again; usage past it is rated on the person's account; the
 * platform's own usage of the global tenant (no person behind it) is rated nowhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { billingAccountsReadModel } from '../../projections/billing-accounts/billing-accounts.read-model';
import { accountStream, billingAccountDecider } from '../../src/modules/billing/domain/account';
import { billingAccountKey, GLOBAL_TENANT_UUID } from '../../src/modules/billing/domain/account-key';
import { RATE_CARD_V1, usageFor } from '../../src/modules/billing/domain/rate-card';
import { BillingRater, RATER_LEASE } from '../../src/modules/billing/rater';
import { CheckpointStore } from '../../src/platform/projections/checkpoint.store';
import { CommandExecutor } from '../../src/platform/command/command-executor';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { silentKafkaLogger } from '../../src/platform/kafka/kafka-client';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { hex32, newEvent, testMetadata } from '../support/events';
import { until } from '../support/traders';

describe('billing per person: the global tenant\'s usage rated under the earlier rule is not rated again', () => {
  let dir: string;
  let store: SqliteEventStore;
  let db: ReadModelDatabase;
  const person = hex32();
  const other = hex32();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'billing-cutover-'));
    store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    db = await openReadModelDatabase({ dataDir: dir, readModels: [billingAccountsReadModel] });
  });
  afterEach(async () => {
    await db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Orders accepted in the global tenant, by these actors, in this order: the log's events. */
  async function ordersBy(actors: Array<{ type: string; reference: string }>): Promise<RecordedEvent[]> {
    const events = actors.map((actor) => newEvent('OrderAccepted', {}, { metadata: testMetadata({ tenant_uuid: GLOBAL_TENANT_UUID, actor }), occurred_at: '2026-11-25T10:00:00.000Z' }));
    await store.append(`test-orders-${hex32()}`, events, 'no_stream');
    return store.readAll({ after: 0n, maxCount: 1000 });
  }

  const rated = async (key: string) => (await store.readStream(accountStream(key))).filter((e) => e.type === 'BillingUsageRated').map((e) => String(e.data.source_event_id));
  const checkpoint = async () => (await new CheckpointStore(db).read(RATER_LEASE))?.position ?? 0n;
  /** A rater run (its own lease, as a node's) until it has read the log up to `position`, then stopped. */
  async function rateUpTo(position: bigint): Promise<void> {
    const rater = new BillingRater(store, db, new CommandExecutor(store), { logger: silentKafkaLogger, freeAllowance: '1000', currency: 'USD', batchSize: 50 });
    rater.start();
    try {
      await until(checkpoint, (p) => p >= position, 20_000);
    } finally {
      await rater.stop();
    }
  }
  /** The rater's checkpoint lost (a read-model database rebuilt from nothing, a lease moved before a checkpoint). */
  const forgetCheckpoint = () => db.transaction((tx) => tx.query(`UPDATE projection_checkpoints SET position = 0, owner = NULL, lease_until = 0 WHERE name = '${RATER_LEASE}'`));

  it('rated on the former shared account up to a position: a rater reading the batch again rates only what follows, on the person\'s own account', async () => {
    const log = await ordersBy([
      { type: 'profile', reference: person },
      { type: 'profile', reference: other },
      { type: 'profile', reference: person },
      { type: 'profile', reference: person },
      { type: 'profile', reference: other },
    ]);
    const commands = new CommandExecutor(store);
    // The earlier rule: the first three rated on the global tenant's shared account (what a rater of the earlier
    // release appended before its lease moved on, without a checkpoint).
    const earlier = log.slice(0, 3).map((e) => usageFor(e, RATE_CARD_V1, '1000')!.command);
    await commands.execute(accountStream(GLOBAL_TENANT_UUID), billingAccountDecider, {
      kind: 'RateUsages',
      usages: earlier,
      opening: { tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: null, currency: 'USD', free_allowance: '1000' },
    });
    expect(await rated(GLOBAL_TENANT_UUID)).toEqual(log.slice(0, 3).map((e) => e.event_id));

    // This rule's rater reads the whole log again: the first three are in already, the last two go to their people.
    await rateUpTo(log[4].position);
    const personKey = billingAccountKey({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: person });
    const otherKey = billingAccountKey({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: other });
    expect(await rated(personKey)).toEqual([log[3].event_id]);
    expect(await rated(otherKey)).toEqual([log[4].event_id]);
    expect(await rated(GLOBAL_TENANT_UUID)).toHaveLength(3);

    // Read yet again from the start: nothing more anywhere.
    const head = await store.headPosition();
    await forgetCheckpoint();
    await rateUpTo(head);
    expect(await rated(personKey)).toEqual([log[3].event_id]);
    expect(await rated(otherKey)).toEqual([log[4].event_id]);
    expect(await store.headPosition()).toBe(head);
  });

  it('with no usage rated under the earlier rule, every person is rated on their own; the platform\'s own usage of the global tenant nowhere', async () => {
    const log = await ordersBy([
      { type: 'profile', reference: person },
      { type: 'system', reference: 'platform' },
      { type: 'profile', reference: other },
    ]);
    await rateUpTo(log[2].position);
    expect(await rated(billingAccountKey({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: person }))).toEqual([log[0].event_id]);
    expect(await rated(billingAccountKey({ tenant_uuid: GLOBAL_TENANT_UUID, profile_uuid: other }))).toEqual([log[2].event_id]);
    expect(await store.readStream(accountStream(GLOBAL_TENANT_UUID))).toEqual([]);
  });
});
