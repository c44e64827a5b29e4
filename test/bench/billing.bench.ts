/**
 * Billing rater benchmark: `npm run bench` (after the event-store, engine, HTTP and AI-wallet benchmarks).
 *
 * Does the rater keep up with the platform's write rate? In one run, on one disk:
 *   1. the log is written by 64 concurrent writers, single-event durable appends with exact expected revisions (the
 *      event-store benchmark's figure 2), of order events of 200 tenants (3 in 4 billable, 1 in 4 free) — the
 *      baseline: the 64-writer append rate of this run;
 *   2. the rater (src/modules/billing/rater.ts) rates that log from position 0 to its head, batches of 500, one append
 *      per account per batch, checkpoint and reconciliation counts in the read-model database   target >= 1.0x of 1;
 *   3. the billing-accounts projection then rebuilt from zero over the whole log (orders and rated usage): the
 *      projection rebuild figure of the same run.
 * Followed by where the rater's time goes (reading the log, the accounts' appends, the checkpoint transactions).
 * Exits 0 whatever the figures; BENCH_SCALE scales the sizes.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { billingAccountsReadModel } from '../../projections/billing-accounts/billing-accounts.read-model';
import { accountStream } from '../../src/modules/billing/domain/account';
import { BillingRater } from '../../src/modules/billing/rater';
import { CommandExecutor } from '../../src/platform/command/command-executor';
import type { EventStore, NewEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { silentKafkaLogger } from '../../src/platform/kafka/kafka-client';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { hex32, newEvent, testMetadata } from '../support/events';
import { clock, log, pad, padL, printSummary, runBenchmark, scaled, seconds } from './report';

const WRITERS = 64;
const EVENTS_PER_WRITER = scaled(500); // 32,000 events
const TENANTS = 200;
const BATCH = 500;

const fmtRate = (r: number): string => `${Math.round(r).toLocaleString('en-US')} ev/s`;
const fmtRatio = (r: number): string => `${r.toFixed(2)}x`;
const us = (ns: number): string => `${(ns / 1000).toFixed(1)} us`;

const tenants = Array.from({ length: TENANTS }, () => hex32());

/** Tenants whose events were billable (each gets an account). */
const billed = new Set<string>();

function orderEvent(i: number): NewEvent {
  const billable = i % 4 !== 3;
  // Tenants at random: a batch of the log holds orders of many accounts, as on a busy platform.
  const tenant_uuid = tenants[Math.floor(Math.random() * TENANTS)];
  if (billable) billed.add(tenant_uuid);
  return newEvent(billable ? 'OrderAccepted' : 'OrderCancelRequested', { order_uuid: hex32(), market_symbol: 'BTC-PERP', order_size: '0.010', limit_price: '50000.5', direction: 'BUY' }, {
    metadata: testMetadata({ tenant_uuid, actor: { type: 'user', reference: hex32() } }),
    occurred_at: new Date().toISOString(),
  });
}

/** The log: 64 writers appending one event at a time, each to its own order stream. */
async function writeLog(store: EventStore): Promise<{ rate: number; events: number; billable: number }> {
  const plan = Array.from({ length: WRITERS }, (_, w) => ({ stream: `mtf-order-${hex32()}`, events: Array.from({ length: EVENTS_PER_WRITER }, (_, k) => orderEvent(w * EVENTS_PER_WRITER + k)) }));
  const t = clock();
  await Promise.all(
    plan.map(async ({ stream, events }) => {
      for (let k = 0; k < events.length; k++) await store.append(stream, [events[k]], k === 0 ? 'no_stream' : BigInt(k - 1));
    }),
  );
  const events = WRITERS * EVENTS_PER_WRITER;
  return { rate: events / seconds(t), events, billable: plan.reduce((n, p) => n + p.events.filter((e) => e.type === 'OrderAccepted').length, 0) };
}

/** An EventStore that times reads of the global log and appends (the rater's two kinds of store work). */
function timed(store: EventStore, acc: { readNs: bigint; appendNs: bigint; appends: number; streamNs: bigint }): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'append') {
        return async (...args: Parameters<EventStore['append']>) => {
          const t = clock();
          try {
            return await target.append(...args);
          } finally {
            acc.appendNs += clock() - t;
            acc.appends += 1;
          }
        };
      }
      if (prop === 'readStream') {
        return async (...args: Parameters<EventStore['readStream']>) => {
          const t = clock();
          try {
            return await target.readStream(...args);
          } finally {
            acc.streamNs += clock() - t;
          }
        };
      }
      if (prop === 'subscribeToAll') {
        return (...args: Parameters<EventStore['subscribeToAll']>) => {
          const sub = target.subscribeToAll(...args);
          return {
            close: () => sub.close(),
            batches(size: number) {
              const it = sub.batches(size)[Symbol.asyncIterator]();
              return {
                [Symbol.asyncIterator]() {
                  return this;
                },
                async next() {
                  const t = clock();
                  const r = await it.next();
                  acc.readNs += clock() - t;
                  return r;
                },
                return: () => it.return?.() ?? Promise.resolve({ done: true as const, value: undefined }),
              };
            },
          };
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-bench-'));
  const total = clock();
  try {
    const writer = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
    const written = await writeLog(writer);
    await writer.close();

    // 2. The rater, from 0 to the head, on a store that did not write the log (as after a restart).
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
    const head = await store.headPosition();
    const db = await openReadModelDatabase({ dataDir: dir, readModels: [billingAccountsReadModel] });
    const acc = { readNs: 0n, appendNs: 0n, appends: 0, streamNs: 0n };
    let checkpointNs = 0n;
    let lastRated = clock();
    const timedStore = timed(store, acc);
    const rater = new BillingRater(timedStore, db, new CommandExecutor(timedStore), {
      logger: silentKafkaLogger, freeAllowance: '1000000', currency: 'USD', batchSize: BATCH,
      onRated: () => (lastRated = clock()),
    });
    const t = clock();
    const origAdvanced = (rater as unknown as { advanced(p: bigint): void }).advanced.bind(rater);
    (rater as unknown as { advanced(p: bigint): void }).advanced = (p: bigint) => {
      checkpointNs += clock() - lastRated;
      origAdvanced(p);
    };
    rater.start();
    if (!(await rater.waitFor(head, 600_000))) throw new Error('the rater did not reach the head');
    const raterSeconds = seconds(t);
    await rater.stop();
    const raterRate = written.events / raterSeconds;
    const usages = (await Promise.all(tenants.map(async (tn) => (await store.readStream(accountStream(tn))).filter((e) => e.type === 'BillingUsageRated').length))).reduce((a, b) => a + b, 0);
    if (usages !== written.billable) throw new Error(`rated ${usages} usages for ${written.billable} billable events`);

    // 3. The billing-accounts projection over the whole log, then rebuilt from zero.
    const runner = new ProjectionRunner(store, db, [new billingAccountsReadModel.projector()], { batchSize: 1000 });
    const rebuildStart = clock();
    const rebuilt = await runner.rebuild('billing-accounts');
    const rebuildRate = rebuilt.events / seconds(rebuildStart);
    const [row]: Array<{ n: number }> = await db.reader.query('SELECT COUNT(*) AS n FROM billing_accounts');
    if (Number(row.n) !== billed.size) throw new Error(`rebuilt ${row.n} accounts for ${billed.size} billed tenants`);

    log(`1. ${WRITERS} concurrent writers x ${EVENTS_PER_WRITER} single-event appends of order events of ${TENANTS} tenants at random (${written.billable} billable)`);
    log(`   ${padL(fmtRate(written.rate), 14)}   (the baseline: the write rate the rater must keep up with)`);
    log();
    log(`2. the rater over that log (${written.events} events, ${usages} usages rated into ${acc.appends} appends, batches of ${BATCH})`);
    log(`   ${padL(fmtRate(raterRate), 14)}   = ${fmtRatio(raterRate / written.rate)} the 64-writer append rate; ${fmtRate(usages / raterSeconds)} billable`);
    log();
    log(`3. rebuild of the billing-accounts projection over the whole log (${rebuilt.events} events: orders and rated usage)`);
    log(`   ${padL(fmtRate(rebuildRate), 14)}`);
    log();
    const ns = Number(raterSeconds * 1e9);
    const rest = ns - Number(acc.readNs) - Number(acc.appendNs) - Number(acc.streamNs) - Number(checkpointNs);
    log(`Where the rater's time goes (per log event; appends run ${(acc.appends / (written.events / BATCH)).toFixed(0)} accounts at a time per batch, so their wall time overlaps)`);
    log(`   ${pad('reading the log (subscription batches)', 46)} ${padL(us(Number(acc.readNs) / written.events), 10)}`);
    log(`   ${pad('account streams read before deciding (summed)', 46)} ${padL(us(Number(acc.streamNs) / written.events), 10)}`);
    log(`   ${pad('account appends (summed, concurrent)', 46)} ${padL(us(Number(acc.appendNs) / written.events), 10)}`);
    log(`   ${pad('checkpoint + reconciliation transaction', 46)} ${padL(us(Number(checkpointNs) / written.events), 10)}`);
    log(`   ${pad('total wall time', 46)} ${padL(us(ns / written.events), 10)}   (other, decide and fold: ${us(Math.max(0, rest) / written.events)}; summed times overlap, so this is a floor)`);
    log();
    printSummary(
      ['figure', 'value', 'vs baseline (same run)', 'target', 'result'],
      [
        ['64 writers, order appends (baseline)', fmtRate(written.rate), '-', '-', 'info'],
        ['billing rater', fmtRate(raterRate), `${fmtRatio(raterRate / written.rate)} the append rate`, '>= 1.0x', raterRate >= written.rate ? 'PASS' : 'BELOW'],
        ['billing-accounts rebuild', fmtRate(rebuildRate), `${fmtRatio(rebuildRate / written.rate)} the append rate`, '-', 'info'],
      ],
      new Set([1]),
    );
    log();
    log(`total run time ${seconds(total).toFixed(1)} s`);
    await db.close();
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

runBenchmark(main);
