/**
 * Exactly-once rating across a crash (issue 25): a rater process is killed with SIGKILL after it appended a batch's
 * BillingUsageRated events and before its checkpoint; a second rater resumes from the checkpoint and reads those
 * events again. Afterwards every billable event of the log is rated exactly once (one BillingUsageRated per source
 * event), the reconciliation counted each once, and a rebuild of the billing read models re-projects the usage
 * without rating anything again.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { billingAccountsReadModel } from '../../projections/billing-accounts/billing-accounts.read-model';
import { accountStream } from '../../src/modules/billing/domain/account';
import { BillingRater, RATER_LEASE } from '../../src/modules/billing/rater';
import { CommandExecutor } from '../../src/platform/command/command-executor';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { silentKafkaLogger } from '../../src/platform/kafka/kafka-client';
import { CheckpointStore } from '../../src/platform/projections/checkpoint.store';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { hex32, newEvent, testMetadata } from '../support/events';
import { until } from '../support/traders';

const ROOT = join(__dirname, '../..');
const HOOK = join(ROOT, 'test/support/audit-ts-hook.js');
const CHILD = join(ROOT, 'test/support/billing-rater-child.ts');
const TENANTS = [hex32(), hex32(), hex32()];

describe('billing rater: exactly once across SIGKILL between its append and its checkpoint', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'billing-crash-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('killed after appending its third batch, resumed by another: each source event rated once; a rebuild rates nothing', async () => {
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    // 400 events on 40 streams: orders of three tenants (billable), sessions and tenantless orders (free).
    const billable = new Map<string, string>();
    for (let s = 0; s < 40; s++) {
      const events = Array.from({ length: 10 }, (_, i) => {
        const n = s * 10 + i;
        const tenant_uuid = n % 4 === 3 ? null : TENANTS[n % 3];
        const type = n % 5 === 4 ? 'SessionStarted' : 'OrderAccepted';
        const e = newEvent(type, { n }, { metadata: testMetadata({ tenant_uuid }), occurred_at: '2026-11-25T10:00:00.000Z' });
        if (type === 'OrderAccepted' && tenant_uuid) billable.set(e.event_id, tenant_uuid);
        return e;
      });
      await store.append(`test-orders-${s}`, events, 'no_stream');
    }
    const head = await store.headPosition();
    const db = await openReadModelDatabase({ dataDir: dir, readModels: [billingAccountsReadModel] });
    const checkpoint = async () => (await new CheckpointStore(db).read(RATER_LEASE))?.position ?? 0n;
    try {
      const child = spawn(process.execPath, ['-r', HOOK, CHILD], { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, KILL_AT_BATCH: '3' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout! })) lines.push(line);
      const exit = await new Promise<string | number | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode ?? child.exitCode) : child.once('exit', (code, signal) => resolve(signal ?? code))));
      expect([exit, stderr]).toEqual(['SIGKILL', '']);
      const rated = lines.filter((l) => l.startsWith('rated '));
      expect(rated).toHaveLength(3);
      const killedAt = await checkpoint();
      const third = BigInt(/up to position (\d+)/.exec(rated[2])![1]);
      const second = BigInt(/up to position (\d+)/.exec(rated[1])![1]);
      // The third batch's usage is in the log, its checkpoint is not.
      expect(killedAt).toBe(second);
      const inLog = async () => {
        const all = [];
        for (const t of TENANTS) all.push(...(await store.readStream(accountStream(t))).filter((e) => e.type === 'BillingUsageRated'));
        return all;
      };
      const beforeResume = await inLog();
      expect(beforeResume.some((e) => BigInt(String(e.data.source_position)) > second && BigInt(String(e.data.source_position)) <= third)).toBe(true);

      // The dead process's lease runs out (LEASE_MS; here made to have run out), then another rater takes over.
      await db.transaction((tx) => tx.query(`UPDATE projection_checkpoints SET lease_until = 0 WHERE name = '${RATER_LEASE}'`));
      const rater = new BillingRater(store, db, new CommandExecutor(store), { logger: silentKafkaLogger, freeAllowance: '1000', currency: 'USD', batchSize: 50 });
      rater.start();
      await until(checkpoint, (p) => p >= head, 30_000);
      const usages = await inLog();
      await rater.stop();

      // Exactly once: one BillingUsageRated per billable source event, none for the free ones.
      const sources = usages.map((e) => String(e.data.source_event_id));
      expect(new Set(sources).size).toBe(sources.length);
      expect(sources.sort()).toEqual([...billable.keys()].sort());
      for (const e of usages) expect(accountStream(billable.get(String(e.data.source_event_id))!)).toBe(e.stream);
      // The examination was counted once per event: checked equals the billable events per tenant (a tenant's account is keyed by the tenant).
      const checks: Array<{ account_key: string; checked: string | number }> = await db.reader.query('SELECT account_key, checked FROM billing_rating_checks');
      expect(Object.fromEntries(checks.map((c) => [c.account_key, Number(c.checked)]))).toEqual(Object.fromEntries(TENANTS.map((t) => [t, [...billable.values()].filter((x) => x === t).length])));

      // Project, then rebuild the billing read model from zero: the same rows, and not one event more in the log.
      const runner = new ProjectionRunner(store, db, [new billingAccountsReadModel.projector()]);
      runner.start();
      const logHead = await store.headPosition();
      expect(await runner.waitFor(logHead, ['billing-accounts'], 10_000)).toBe(true);
      await runner.stop();
      const snapshot = async () => db.reader.query('SELECT account_key, record FROM billing_accounts ORDER BY account_key');
      const usagePeriods = async () => db.reader.query('SELECT account_key, credits, events FROM billing_usage_periods ORDER BY account_key');
      const before = [await snapshot(), await usagePeriods()];
      const perTenant = (t: string) => [...billable.values()].filter((x) => x === t).length;
      expect((before[1] as Array<{ account_key: string; events: string | number; credits: string }>).map((r) => [r.account_key, Number(r.events), r.credits])).toEqual(
        [...TENANTS].sort().map((t) => [t, perTenant(t), (perTenant(t) / 10).toString()]),
      );
      await runner.rebuild('billing-accounts');
      expect([await snapshot(), await usagePeriods()]).toEqual(before);
      expect(await store.headPosition()).toBe(logHead);
    } finally {
      await db.close();
      await store.close();
    }
  }, 120_000);
});
