/**
 * A billing rater in a process of its own, on the stores under DATA_DIR (test/integration/billing-rater-crash.spec.ts):
 * it rates the log and prints a line per batch. With KILL_AT_BATCH=n it kills itself (SIGKILL) right after the n-th
 * batch's usage is appended and before that batch's checkpoint: the crash the rater must survive exactly once.
 */
import { join } from 'node:path';
import { billingAccountsReadModel } from '../../projections/billing-accounts/billing-accounts.read-model';
import { BillingRater } from '../../src/modules/billing/rater';
import { CommandExecutor } from '../../src/platform/command/command-executor';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { silentKafkaLogger } from '../../src/platform/kafka/kafka-client';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';

async function main(): Promise<void> {
  const dataDir = process.env.DATA_DIR!;
  const killAt = Number(process.env.KILL_AT_BATCH ?? 0);
  const store = new SqliteEventStore({ filename: join(dataDir, 'events.sqlite'), pollIntervalMs: 20 });
  const db = await openReadModelDatabase({ dataDir, readModels: [billingAccountsReadModel] });
  let batches = 0;
  const rater = new BillingRater(store, db, new CommandExecutor(store), {
    logger: silentKafkaLogger,
    freeAllowance: '1000',
    currency: 'USD',
    batchSize: 50,
    onRated: ({ usages, position }) => {
      batches += 1;
      process.stdout.write(`rated ${usages} usages up to position ${position}\n`);
      if (batches === killAt) process.kill(process.pid, 'SIGKILL');
    },
  });
  rater.start();
  process.stdout.write('started\n');
  process.on('SIGTERM', () => {
    void rater.stop().then(() => process.exit(0));
  });
}

void main();
