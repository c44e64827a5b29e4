/**
 * The event publisher: one process at a time (lease `kafka:events`) relays the global log, in commit order, to the
 * event topics (messages.ts). Its checkpoint is the position of the last event the broker acknowledged: a send is
 * acknowledged by all in-sync replicas (acks -1, idempotent producer), and only then is the checkpoint advanced (in
 * a read-model transaction that also proves the lease). A crash between the acknowledgement and the checkpoint, a
 * broker that went away, a lost lease: the next owner resumes from the checkpoint and sends those events again,
 * with the same `event_id` (at-least-once; consumers drop what they have seen).
 *
 * A new deployment's checkpoint is 0: it publishes the whole history first. `replay` sends a range again (the CLI's
 * `npm run kafka -- replay --from <position>`) without moving the checkpoint backwards.
 */
import type { Producer } from 'kafkajs';
import type { EventStore, EventSubscription, RecordedEvent } from '../event-store/event-store.port';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { idempotentProducer, type KafkaLink } from './kafka-client';
import { LeasedWorker, type LeasedWorkerOptions } from '../jobs/leased-worker';
import { byTopic, eventMessages, planSends } from './messages';

export const EVENTS_LEASE = 'kafka:events';

/** Bytes per send (a send may exceed it only with a single larger event); well under the broker's request limit. */
export const MAX_SEND_BYTES = 1024 * 1024;

export interface EventPublisherOptions extends LeasedWorkerOptions {
  /** Events per send at most (KAFKA_BATCH_SIZE). */
  batchSize: number;
  maxSendBytes?: number;
  /** After the broker acknowledged a send, before the checkpoint moves. */
  onAcknowledged?: (sent: { events: number; position: bigint }) => void;
  /** After each acknowledged and checkpointed send. */
  onSent?: (sent: { events: number; position: bigint }) => void;
}

export class EventPublisher extends LeasedWorker {
  private subscription: EventSubscription | null = null;
  private producer: Producer | null = null;

  constructor(
    private readonly store: EventStore,
    db: ReadModelDatabase,
    private readonly link: KafkaLink,
    private readonly publisherOptions: EventPublisherOptions,
  ) {
    super(EVENTS_LEASE, db, publisherOptions);
  }

  protected async work(from: bigint): Promise<void> {
    const producer = await this.connectProducer();
    try {
      const subscription = this.store.subscribeToAll({ after: from });
      this.subscription = subscription;
      try {
        // A stop that came while the producer connected found no subscription to close: without this the loop would
        // wait for the next event (a minute or more on a quiet log) before it saw `stopping`.
        if (this.stopping) return;
        for await (const batch of subscription.batches(this.publisherOptions.batchSize)) {
          if (this.stopping) break;
          await this.publish(producer, batch, 0n);
        }
      } finally {
        this.subscription = null;
        await subscription.close();
      }
    } finally {
      await this.disconnectProducer(producer);
    }
  }

  protected async interrupt(): Promise<void> {
    await this.subscription?.close();
    // A send stuck in retries ends now (it fails, and the events are sent again from the checkpoint).
    if (this.producer) await this.producer.disconnect();
  }

  /**
   * Publishes the events at positions >= fromInclusive up to the log's head as it is now, holding the lease (so a
   * running publisher stands by meanwhile; LeaseLost when one holds it). The checkpoint never moves backwards: it
   * becomes the larger of where it was and the replayed head, and only when the replay starts at or before the first
   * event not yet published (replaying from further on leaves a gap the live publisher must still fill, so the
   * checkpoint stays where it is).
   */
  async replay(fromInclusive: bigint, onProgress?: (position: bigint, head: bigint) => void): Promise<{ events: number; head: bigint }> {
    if (this.state !== 'stopped') throw new Error('the publisher is running in this process; stop it first');
    const checkpoint = await this.takeLease();
    this.oneOffRunning = true;
    try {
      const producer = await this.connectProducer();
      try {
        const head = await this.store.headPosition();
        let after: bigint | undefined = fromInclusive > 0n ? fromInclusive - 1n : undefined;
        const advances = fromInclusive <= checkpoint + 1n;
        let events = 0;
        while (after === undefined || after < head) {
          const page = (await this.store.readAll({ after, maxCount: this.publisherOptions.batchSize })).filter((e) => e.position <= head);
          if (page.length === 0) break;
          await this.publish(producer, page, checkpoint, advances);
          after = page[page.length - 1].position;
          events += page.length;
          onProgress?.(after, head);
        }
        return { events, head };
      } finally {
        await this.disconnectProducer(producer);
      }
    } finally {
      this.oneOffRunning = false;
      await this.releaseLease();
    }
  }

  /** Sends the events in order, checkpointing after each acknowledged send (never below `floor`; not at all unless `advances`). */
  private async publish(producer: Producer, events: RecordedEvent[], floor: bigint, advances = true): Promise<void> {
    const sends = planSends(events, (e) => eventMessages(e, this.link.prefix), {
      maxItems: this.publisherOptions.batchSize,
      maxBytes: this.publisherOptions.maxSendBytes ?? MAX_SEND_BYTES,
    });
    for (const send of sends) {
      await this.link.topics.ensure(send.messages.map((m) => m.topic));
      await producer.sendBatch({ topicMessages: byTopic(send.messages), acks: -1 });
      const last = send.items[send.items.length - 1].position;
      this.publisherOptions.onAcknowledged?.({ events: send.items.length, position: last });
      const position = last > floor ? last : floor;
      if (advances && (position > this.position || floor === 0n)) {
        await this.db.transaction((tx) => this.advance(tx, position));
        this.advanced(position);
      }
      this.publisherOptions.onSent?.({ events: send.items.length, position: last });
    }
  }

  private async connectProducer(): Promise<Producer> {
    const producer = idempotentProducer(this.link);
    this.producer = producer;
    try {
      await producer.connect();
    } catch (error) {
      this.producer = null;
      this.link.topics.forget();
      throw error;
    }
    return producer;
  }

  private async disconnectProducer(producer: Producer): Promise<void> {
    if (this.producer === producer) this.producer = null;
    await producer.disconnect().catch(() => undefined);
  }
}
