/**
 * `npm run kafka -- <command>`: the Kafka publisher from the shell, on the stores and broker the server uses (the
 * environment of README "Configuration"; KAFKA_BROKERS must be set).
 *
 *   status                       the publisher's checkpoint against the log's head, the outboxes' backlog, the leases
 *   replay --from <position>     publish the events at positions >= <position> up to the current head again
 *                                (--from 0: the whole history; a new deployment does this by itself)
 *   publish                      run the event publisher and the outbox relay in the foreground until SIGINT/SIGTERM
 *                                (what a server node does; for a node started with KAFKA_PUBLISHER=false, or tests)
 *
 * replay holds the publisher's lease while it runs: with a server publishing, it waits for nothing and fails with
 * "run by another process" — stop the publishing node (or set KAFKA_PUBLISHER=false on it) first.
 */
import 'reflect-metadata';
import { Presets, SingleBar } from 'cli-progress';
import { READ_MODELS } from '../../projections';
import { loadPlatformConfig, type PlatformConfig } from '../platform/config/platform-config';
import { EventPublisher, EVENTS_LEASE } from '../platform/kafka/event-publisher';
import { kafkaLinkOptions, openKafkaLink, type KafkaLogger } from '../platform/kafka/kafka-client';
import { OUTBOX_LEASE, OutboxRelay } from '../platform/kafka/outbox-relay';
import { outboxesOf } from '../platform/outbox/outbox';
import { openEventStore } from '../platform/platform.module';
import { openReadModelDatabase } from '../platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../platform/read-model/read-model.definition';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Shows a progress bar (a TTY); otherwise progress is printed as lines every 10%. */
  interactive: boolean;
}

const USAGE = 'usage: npm run kafka -- status | replay --from <position> | publish';

/** `--from 12` → 12n; anything else (missing, negative, not an integer) → null. */
export function parseFrom(argv: string[]): bigint | null {
  const i = argv.indexOf('--from');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--from='))?.slice('--from='.length);
  return value !== undefined && /^\d{1,20}$/.test(value) ? BigInt(value) : null;
}

export async function runKafkaCli(argv: string[], config: PlatformConfig, readModels: ReadModelDefinition[], io: CliIo, signal?: AbortSignal): Promise<number> {
  const [command] = argv;
  if (command !== 'status' && command !== 'replay' && command !== 'publish') {
    io.err(USAGE);
    return 2;
  }
  const from = command === 'replay' ? parseFrom(argv) : null;
  if (command === 'replay' && from === null) {
    io.err(`replay needs --from <position> (a non-negative integer; 0 for the whole history)\n${USAGE}`);
    return 2;
  }
  if (!config.kafkaBrokers?.length) {
    io.err('KAFKA_BROKERS is not set: point it at the broker(s), e.g. KAFKA_BROKERS=127.0.0.1:9092');
    return 2;
  }
  const logger: KafkaLogger = { info: () => undefined, warn: (o, m) => io.err(`warn: ${m}`), error: (o, m) => io.err(`error: ${m}${errorText(o)}`) };
  const store = openEventStore(config);
  const db = await openReadModelDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, schema: config.databaseSchema, readModels });
  const outboxes = readModels.flatMap((m) => outboxesOf(new m.projector()));
  const link = openKafkaLink(kafkaLinkOptions(config, logger));
  const common = { logger, batchSize: config.kafkaBatchSize };
  try {
    if (command === 'status') {
      const relay = new OutboxRelay(db, link, outboxes, { ...common, pollMs: config.kafkaOutboxPollMs });
      const head = await store.headPosition();
      const events = await relay.leases.read(EVENTS_LEASE);
      const projections = await relay.leases.read(OUTBOX_LEASE);
      const position = events?.position ?? 0n;
      io.out(`log head: ${head}`);
      io.out(`events\tcheckpoint ${position}\tlag ${head - position}\towner ${leaseOwner(events)}`);
      io.out(`projections\tpublished ${projections?.position ?? 0n}\towner ${leaseOwner(projections)}`);
      for (const o of outboxes) io.out(`  ${o.readModel}\toutbox ${await relay.pending(o.readModel)}`);
      return 0;
    }

    if (command === 'publish') {
      const events = new EventPublisher(store, db, link, {
        ...common,
        onAcknowledged: (s) => io.out(`acknowledged ${s.events} events up to position ${s.position}`),
        onSent: (s) => io.out(`checkpoint ${s.position}`),
      });
      const relay = new OutboxRelay(db, link, outboxes, { ...common, pollMs: config.kafkaOutboxPollMs });
      events.start();
      relay.start();
      io.out(`publishing to ${config.kafkaBrokers.join(',')} (topic prefix ${config.kafkaTopicPrefix}); stop with Ctrl-C`);
      await new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.all([events.stop(), relay.stop()]);
      io.out(`stopped at position ${events.position}`);
      return 0;
    }

    const publisher = new EventPublisher(store, db, link, common);
    const head = await store.headPosition();
    const bar = io.interactive ? new SingleBar({ format: `replay [{bar}] {percentage}% | {value}/{total} positions | {eta}s left` }, Presets.shades_classic) : null;
    bar?.start(Number(head), Number(from));
    let lastTenth = -1;
    const started = process.hrtime.bigint();
    const result = await publisher.replay(from!, (position, total) => {
      bar?.update(Number(position));
      const tenth = total > 0n ? Number((position * 10n) / total) : 10;
      if (!bar && tenth !== lastTenth) {
        lastTenth = tenth;
        io.out(`replay: ${tenth * 10}% (${position}/${total})`);
      }
    });
    bar?.stop();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    io.out(`replayed ${result.events} events from position ${from} up to ${result.head} in ${seconds.toFixed(2)} s; checkpoint ${publisher.position}`);
    return 0;
  } catch (error) {
    io.err(`kafka ${command} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await link.topics.close();
    await db.close();
    await store.close();
  }
}

function leaseOwner(cp: { owner: string | null; leaseUntil: number } | null): string {
  if (!cp?.owner) return '-';
  return cp.leaseUntil > Date.now() ? cp.owner : `${cp.owner} (lease expired)`;
}

function errorText(o: object): string {
  const err = (o as { err?: unknown }).err;
  return err instanceof Error ? `: ${err.message}` : '';
}

if (require.main === module) {
  const io: CliIo = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`), interactive: Boolean(process.stdout.isTTY) };
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  runKafkaCli(process.argv.slice(2), loadPlatformConfig(), READ_MODELS, io, stop.signal).then(
    (code) => process.exit(code),
    (error: unknown) => {
      io.err(error instanceof Error ? error.message : String(error));
      process.exit(1);
    },
  );
}
