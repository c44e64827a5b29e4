/**
 * Faults against real Kafka: (1) the broker stopped in the middle of a run and started again — a broker of this
 * suite's own (test/infra/kafka/start.sh in a temp directory), so the other suites' broker is left alone; (2) the
 * publisher process killed with SIGKILL in the middle of its batches (`npm run kafka -- publish` as a child process)
 * and started again. Afterwards every event is in its topic at least once, each stream's events are in order once
 * duplicates are dropped, and every duplicate carries the same event_id and the same value as its first copy.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { SqliteEventStore } from '../../src/platform/event-store/sqlite/sqlite.event-store';
import { EventPublisher, EVENTS_LEASE } from '../../src/platform/kafka/event-publisher';
import { openKafkaLink, silentKafkaLogger } from '../../src/platform/kafka/kafka-client';
import { eventsTopic, moduleOfStream } from '../../src/platform/kafka/topics';
import { CheckpointStore } from '../../src/platform/projections/checkpoint.store';
import { openReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { hex32, newEvent } from '../support/events';
import { until } from '../support/traders';
import { byKey, readTopic, testBrokers, topicPrefix, type Consumed } from './kafka-support';

const ROOT = join(__dirname, '../..');
const HOOK = join(ROOT, 'test/support/audit-ts-hook.js');
const KAFKA_CLI = join(ROOT, 'src/cli/kafka.ts');

function script(name: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', [join(ROOT, 'test/infra/kafka', name), ...args], { cwd: ROOT, timeout: 180_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${name} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const STREAMS = [`mtf-order-`, `identity-account-`, `ai-wallet-binding-`, `notifications-account-`].flatMap((p) => Array.from({ length: 5 }, () => `${p}${hex32()}`));

/** Appends `n` events round-robin over the streams (one event per append: many small commits, like live traffic). */
async function appendEvents(store: SqliteEventStore, n: number, offset = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    const stream = STREAMS[(offset + i) % STREAMS.length];
    await store.append(stream, [newEvent('FaultTestEvent', { n: String(offset + i), pad: 'x'.repeat(200) })], 'any');
  }
}

/** The whole log (readAll answers a bounded page). */
async function everything(store: SqliteEventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll({ after: all.length ? all[all.length - 1].position : undefined, maxCount: 1000 });
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** Every event in its topic at least once; per stream in revision order once duplicates are dropped; duplicates equal. */
async function expectAtLeastOnceInOrder(brokers: string[], prefix: string, events: RecordedEvent[]): Promise<{ duplicates: number }> {
  const topics = [...new Set(events.map((e) => eventsTopic(prefix, moduleOfStream(e.stream))))];
  const messages: Consumed[] = [];
  for (const t of topics) messages.push(...(await readTopic(brokers, t, 60_000)));
  const seen = new Set(messages.map((m) => m.headers.event_id));
  const missing = events.filter((e) => !seen.has(e.event_id));
  expect(missing.map((e) => `${e.stream}@${e.revision}`)).toEqual([]);
  let duplicates = 0;
  for (const [stream, list] of byKey(messages)) {
    const first = new Map<string, Consumed>();
    const revisions: string[] = [];
    for (const m of list) {
      const earlier = first.get(m.headers.event_id);
      if (earlier) {
        duplicates++;
        expect(m.value).toBe(earlier.value); // the same event, byte for byte
        expect(m.headers).toEqual(earlier.headers);
        continue;
      }
      first.set(m.headers.event_id, m);
      revisions.push(JSON.parse(m.value!).revision);
    }
    const expected = events.filter((e) => e.stream === stream).map((e) => e.revision.toString());
    expect({ stream, revisions }).toEqual({ stream, revisions: expected });
  }
  return { duplicates };
}

describe('Kafka faults (real broker)', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafka-faults-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the broker stopped mid-run and started again: the publisher resumes from its checkpoint, nothing lost', async () => {
    const brokerDir = join(dir, 'broker');
    const started = await script('start.sh', ['--dir', brokerDir, '--fresh']);
    const brokers = [/KAFKA_BROKERS=(\S+)/.exec(started)![1]];
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    const db = await openReadModelDatabase({ dataDir: dir, readModels: [] });
    const prefix = topicPrefix();
    // The Kafka client's own lines, as the platform's logger receives them (issue 19, item 9).
    const clientLines: Array<{ level: string; msg: string; obj: object }> = [];
    const capture = (level: string) => (obj: object, msg: string) => void clientLines.push({ level, msg, obj });
    const logger = { info: capture('info'), warn: capture('warn'), error: capture('error') };
    const link = openKafkaLink({ brokers, clientId: 'fault-test', prefix, settings: { partitions: 3, replicationFactor: -1, eventsRetentionMs: -1 }, logger });
    const publisher = new EventPublisher(store, db, link, { logger: silentKafkaLogger, batchSize: 20, retryDelayMs: 100, maxRetryDelayMs: 1000 });
    try {
      await appendEvents(store, 200);
      publisher.start();
      await until(async () => publisher.position, (p) => p > 0n, 30_000); // it is publishing

      await script('stop.sh', ['--dir', brokerDir]);
      await appendEvents(store, 200, 200); // the log goes on while the broker is away
      const head = await store.headPosition();
      await until(async () => publisher.state, (s) => s === 'failing', 90_000); // it noticed, and keeps retrying
      expect(publisher.position).toBeLessThan(head);

      await script('start.sh', ['--dir', brokerDir]); // same port, same data
      expect(await publisher.waitFor(head, 120_000)).toBe(true);
      expect(publisher.state).toBe('running');
      expect((await new CheckpointStore(db).read(EVENTS_LEASE))?.position).toBe(head);
      await expectAtLeastOnceInOrder(brokers, prefix, await everything(store));
      // The broker being away was seen (and said), as warnings with a msg, never an error per reconnect.
      expect(clientLines.length).toBeGreaterThan(0);
      for (const line of clientLines) {
        expect(line.msg).toMatch(/^kafka: \S/);
        expect([line.level, line.msg]).toEqual(['warn', line.msg]);
      }
    } finally {
      await publisher.stop();
      await link.topics.close();
      await db.close();
      await store.close();
      await script('stop.sh', ['--dir', brokerDir]).catch(() => undefined);
    }
  }, 300_000);

  it('the publisher killed (SIGKILL) mid-batch and started again: every event at least once, in order, duplicates with the same event_id', async () => {
    const brokers = testBrokers();
    const prefix = topicPrefix();
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite'), pollIntervalMs: 20 });
    await appendEvents(store, 1500);
    const head = await store.headPosition();
    const env = { ...process.env, DATA_DIR: dir, KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_BATCH_SIZE: '25', LOG_LEVEL: 'silent' };
    const children: ChildProcess[] = [];
    const publish = (): { child: ChildProcess; lines: AsyncIterableIterator<string>; stderr: () => string } => {
      const child = spawn(process.execPath, ['-r', HOOK, KAFKA_CLI, 'publish'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
      return { child, lines: createInterface({ input: child.stdout! })[Symbol.asyncIterator](), stderr: () => err };
    };
    const exited = (child: ChildProcess) => new Promise<number | string | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode ?? child.signalCode) : child.once('exit', (code, signal) => resolve(code ?? signal))));
    const db = await openReadModelDatabase({ dataDir: dir, readModels: [] });
    const checkpoint = async () => (await new CheckpointStore(db).read(EVENTS_LEASE))?.position ?? 0n;
    try {
      // First run: killed between the broker's acknowledgement of a send and its checkpoint. After the second
      // checkpoint the test holds the read-model database's write lock, so the third send is acknowledged (its line
      // printed) and then blocks on its checkpoint: the kill lands exactly there, every time.
      const first = publish();
      let checkpoints = 0;
      let lock: BetterSqlite3.Database | null = null;
      let acknowledged = 0n;
      try {
        // A send may have been checkpointed just before the lock was taken: its lines are still in the pipe. Only an
        // acknowledged send whose checkpoint line does not follow within a while is the one blocked on the lock.
        // The quiet timer is cleared once a line came: a pending 60 s timer kept jest's worker from exiting.
        const next = async (ms: number) => {
          let timer: NodeJS.Timeout | undefined;
          try {
            return await Promise.race([first.lines.next(), new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
          } finally {
            clearTimeout(timer);
          }
        };
        let checkpointed = 0n;
        for (;;) {
          const item = await next(acknowledged > checkpointed ? 1500 : 60_000);
          if (item === null) break; // quiet after an unacknowledged-in-the-database send: that is the kill point
          if (item.done) throw new Error(`the publisher exited early: ${first.stderr()}`);
          const line = item.value;
          const cp = /^checkpoint (\d+)$/.exec(line);
          if (cp) {
            checkpointed = BigInt(cp[1]);
            if (++checkpoints === 2) {
              lock = new SqliteDatabase(join(dir, 'read.sqlite'));
              lock.exec('BEGIN IMMEDIATE');
            }
          }
          const ack = /^acknowledged \d+ events up to position (\d+)$/.exec(line);
          if (ack && lock) acknowledged = BigInt(ack[1]);
        }
        first.child.kill('SIGKILL');
        expect(await exited(first.child)).toBe('SIGKILL');
      } finally {
        lock?.exec('ROLLBACK');
        lock?.close();
      }
      const killedAt = await checkpoint();
      expect(killedAt).toBeGreaterThan(0n);
      expect(acknowledged).toBeGreaterThan(killedAt); // in Kafka, not checkpointed
      expect(killedAt).toBeLessThan(head);

      // The dead process's lease runs out (LEASE_MS; here made to have run out), then a new process takes over.
      await db.transaction((tx) => tx.query("UPDATE projection_checkpoints SET lease_until = 0 WHERE name = 'kafka:events'"));
      const second = publish();
      await until(checkpoint, (p) => p >= head, 120_000).catch((error: Error) => {
        throw new Error(`${error.message}\nsecond publisher's stderr:\n${second.stderr()}`);
      });
      second.child.kill('SIGTERM');
      expect(await exited(second.child)).toBe(0);

      const { duplicates } = await expectAtLeastOnceInOrder(brokers, prefix, await everything(store));
      // The acknowledged but not checkpointed send went out again, and only that.
      expect(duplicates).toBe(Number(acknowledged - killedAt));
    } finally {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      await db.close();
      await store.close();
    }
  }, 300_000);
});
