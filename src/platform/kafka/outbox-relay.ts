/**
 * The outbox relay: one process at a time (lease `kafka:projections`) publishes the projection outboxes
 * (src/platform/outbox) to their compacted topics `<prefix>.projections.<read-model>`. Per outbox, rows go in id
 * order (the order their changes committed), are acknowledged by the broker (idempotent producer, acks -1), and only
 * then deleted, in a transaction that also advances the lease row (its position counts the rows published) and so
 * proves the lease. A failure before the delete sends those rows again: at-least-once, per key in order.
 */
import type { Producer } from 'kafkajs';
import type { ProjectionOutbox, OutboxRow } from '../outbox/outbox';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { idempotentProducer, type KafkaLink } from './kafka-client';
import { LeasedWorker, type LeasedWorkerOptions } from '../jobs/leased-worker';
import { byTopic, outboxMessage, planSends } from './messages';
import { projectionTopic } from './topics';
import { MAX_SEND_BYTES } from './event-publisher';

export const OUTBOX_LEASE = 'kafka:projections';

export interface OutboxRelayOptions extends LeasedWorkerOptions {
  /** Rows read per outbox and round (KAFKA_BATCH_SIZE). */
  batchSize: number;
  /** Sleep between rounds that found every outbox empty (KAFKA_OUTBOX_POLL_MS). */
  pollMs: number;
}

export class OutboxRelay extends LeasedWorker {
  private producer: Producer | null = null;

  constructor(
    db: ReadModelDatabase,
    private readonly link: KafkaLink,
    readonly outboxes: ProjectionOutbox[],
    private readonly relayOptions: OutboxRelayOptions,
  ) {
    super(OUTBOX_LEASE, db, relayOptions);
  }

  /** Rows waiting in the outboxes (all of them, or one read model's). */
  async pending(readModel?: string): Promise<number> {
    let n = 0;
    for (const o of this.outboxes) {
      if (readModel && o.readModel !== readModel) continue;
      const rows: Array<{ n: number | string }> = await this.db.reader.query(`SELECT COUNT(*) AS n FROM ${o.table}`);
      n += Number(rows[0]?.n ?? 0);
    }
    return n;
  }

  protected async work(from: bigint): Promise<void> {
    const producer = idempotentProducer(this.link);
    this.producer = producer;
    try {
      await producer.connect();
      let published = from;
      // An idle relay uses no producer, so a lost lease would otherwise go unnoticed until the next row.
      while (!this.stopping && !this.leaseLost) {
        let sent = 0;
        for (const outbox of this.outboxes) {
          if (this.stopping) break;
          const n = await this.relayOnce(producer, outbox, published);
          published += BigInt(n);
          sent += n;
        }
        if (sent === 0 && !this.stopping) await this.sleep(this.relayOptions.pollMs);
      }
    } finally {
      this.producer = null;
      await producer.disconnect().catch(() => undefined);
    }
  }

  protected async interrupt(): Promise<void> {
    if (this.producer) await this.producer.disconnect();
  }

  /** Publishes and deletes up to one batch of an outbox's oldest rows; returns how many. */
  private async relayOnce(producer: Producer, outbox: ProjectionOutbox, published: bigint): Promise<number> {
    const rows: OutboxRow[] = await this.db.reader.query(this.db.sql(`SELECT id, row_key, value, headers FROM ${outbox.table} ORDER BY id LIMIT ?`), [this.relayOptions.batchSize]);
    if (rows.length === 0) return 0;
    const topic = projectionTopic(this.link.prefix, outbox.readModel);
    await this.link.topics.ensure([topic]);
    let done = 0;
    for (const send of planSends(rows, (r) => [outboxMessage(topic, r)], { maxItems: this.relayOptions.batchSize, maxBytes: MAX_SEND_BYTES })) {
      await producer.sendBatch({ topicMessages: byTopic(send.messages), acks: -1 });
      const ids = send.items.map((r) => r.id);
      const position = published + BigInt(done + ids.length);
      await this.db.transaction(async (tx) => {
        await tx.query(this.db.sql(`DELETE FROM ${outbox.table} WHERE id IN (${ids.map(() => '?').join(', ')})`), ids);
        await this.advance(tx, position);
      });
      this.advanced(position);
      done += ids.length;
    }
    return done;
  }
}
