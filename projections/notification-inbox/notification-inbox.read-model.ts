/**
 * The account notification inbox, derived from the events the other modules append (by the rules each registers,
 * src/notification-rules.ts) and from the inbox's own events (read, read-all, archive). Nothing else writes it.
 *
 * The rules are pure (the port: src/modules/notifications/domain/rule-port.ts): this shell loads the facts an event needs from
 * `notification_inbox_facts` (what this projector remembered from earlier events: owners, orders, known devices, …),
 * applies the plan and stores the facts it asks to keep. Ids derive from source event ids, timestamps from the events:
 * a rebuild (`npm run projections -- rebuild notification-inbox`) writes the same rows.
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { composeNotificationRules, factId, type ComposedNotificationRules, type FactKey, type FactValue, type NotificationRules, type SourceEvent } from '../../src/modules/notifications/domain/rule-port';
import { inboxNotificationRules } from '../../src/modules/notifications/domain/inbox-rules';
import type { AccountNotification, NotificationSource, NotificationStatus, NotificationType } from '../../src/modules/notifications/domain/notification';
import { changedRows, createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';

export const NOTIFICATION_INBOX = 'notification-inbox';

/** A row of `notification_inbox`: an AccountNotification, its owner and where it sits in the log. */
export interface NotificationRow {
  notification_uuid: string;
  profile_uuid: string;
  type: string;
  source: string;
  status: string;
  title: string;
  message: string;
  href: string | null;
  reference: string | null;
  created_at: string;
  updated_at: string;
  /** Zero-padded global position of the event that created it: the inbox order (newest first) and the cursor. */
  position: string;
  /** The source event (for audit: which fact the notification tells about). */
  event_id: string;
}

/** The seeds' AccountNotification from a row; href and reference only when there are some. */
export function notificationView(row: NotificationRow): AccountNotification {
  return {
    notificationUuid: row.notification_uuid,
    title: row.title,
    message: row.message,
    type: row.type as NotificationType,
    source: row.source as NotificationSource,
    status: row.status as NotificationStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.href ? { href: row.href } : {}),
    ...(row.reference ? { reference: row.reference } : {}),
  };
}


export class NotificationInbox1764000007100 implements MigrationInterface {
  name = 'NotificationInbox1764000007100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'notification_inbox',
        columns: [
          { name: 'notification_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('profile_uuid', '32'),
          text('type', '64'),
          text('source', '32'),
          text('status', '16'),
          text('title', '200'),
          { name: 'message', type: 'text' },
          text('href', '512', true),
          text('reference', '64', true),
          text('created_at', '40'),
          text('updated_at', '40'),
          text('position', '20'),
          text('event_id', '32'),
        ],
        indices: [
          { name: 'idx_notification_inbox_account', columnNames: ['profile_uuid', 'position', 'notification_uuid'] },
          { name: 'idx_notification_inbox_account_status', columnNames: ['profile_uuid', 'status', 'position', 'notification_uuid'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'notification_inbox_facts',
        columns: [
          { name: 'scope', type: 'varchar', length: '32', isPrimary: true },
          { name: 'fact_key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'value', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['notification_inbox_facts', 'notification_inbox']) await q.dropTable(t);
  }
}

/** The inbox's outbox (src/platform/outbox): each change of a notification, as its AccountNotification, for Kafka. */
export class NotificationInboxOutbox1764000009300 implements MigrationInterface {
  name = 'NotificationInboxOutbox1764000009300';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_notification_inbox');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_notification_inbox');
  }
}

const UPSERT_NOTIFICATION = `INSERT INTO notification_inbox
  (notification_uuid, profile_uuid, type, source, status, title, message, href, reference, created_at, updated_at, position, event_id)
  VALUES (?, ?, ?, ?, 'UNREAD', ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (notification_uuid) DO UPDATE SET type = excluded.type, source = excluded.source, title = excluded.title,
    message = excluded.message, href = excluded.href, reference = excluded.reference, updated_at = excluded.updated_at`;
const UPSERT_FACTS = 'INSERT INTO notification_inbox_facts (scope, fact_key, value) VALUES';

/**
 * With Kafka on, every notification the projector creates or changes also goes to the outbox as the AccountNotification
 * the API shows, keyed by notification_uuid, the owner in the `profile_uuid` header: the changing statements then end
 * in RETURNING, which tells which rows a read-all touched.
 */
export class NotificationInboxProjector implements Projector, PublishingProjector {
  readonly name = NOTIFICATION_INBOX;
  readonly handles: readonly string[];
  readonly outbox = new ProjectionOutbox(NOTIFICATION_INBOX, 'outbox_notification_inbox', {
    title: 'AccountNotification (value of platform.projections.notification-inbox)',
    description: 'One notification as GET /api/v1/notifications shows it (the seeds\' AccountNotification, camelCase; href and reference only when present). The one topic with personal data in clear (docs/privacy.md): for the service that delivers notifications to their person only.',
    component: 'AccountNotification',
    key: "the value's notificationUuid",
    headers: { profile_uuid: 'the account the notification belongs to' },
  });
  readonly published: PublishedTable<NotificationRow> = {
    table: 'notification_inbox',
    key: 'notification_uuid',
    change: (row) => ({ key: row.notification_uuid, value: notificationView(row), headers: { profile_uuid: row.profile_uuid } }),
  };

  /** `rules`: the inbox's own and every registered module's, composed. */
  constructor(private readonly rules: ComposedNotificationRules) {
    this.handles = [...rules.handles, 'AccountErased'];
  }

  apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    return this.applyBatch([event], tx);
  }

  /**
   * The batch with the rules' facts read once (what an event of the batch wrote is what a later one reads) and
   * written once at its end, each fact's last value: a burst of orders is a few statements, not two per order.
   */
  async applyBatch(events: RecordedEvent[], tx: EntityManager): Promise<void> {
    const facts = new FactsOfBatch(tx);
    for (const event of events) {
      if (event.type === 'AccountErased') {
        // The erasure deletes facts in the table: what the batch changed goes there first, and is read again after.
        await facts.flush();
        await this.erase(String(event.data.profile_uuid), event, tx);
        facts.forget();
        continue;
      }
      await this.applyOne(event, tx, facts);
    }
    await facts.flush();
  }

  private async applyOne(event: RecordedEvent, tx: EntityManager, known: FactsOfBatch): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    // Kafka off: the statement as it always was. On: the same statement, and the rows it changed into the outbox.
    const write = async (sql: string, params: unknown[]): Promise<void> => {
      if (!this.outbox.enabled) {
        await q(sql, params);
        return;
      }
      for (const row of await changedRows<NotificationRow>(tx, `${sql} RETURNING *`, params)) {
        await this.outbox.put(tx, { key: row.notification_uuid, value: notificationView(row), position: event.position, event_id: event.event_id, headers: { profile_uuid: row.profile_uuid } });
      }
    };
    const e: SourceEvent = {
      event_id: event.event_id,
      type: event.type,
      stream: event.stream,
      position: event.position.toString().padStart(20, '0'),
      occurred_at: event.occurred_at,
      data: event.data as Record<string, unknown>,
    };
    const facts = new Map<string, FactValue>();
    // Facts can name facts (a binding names its workspace): ask again with what was loaded until nothing is new.
    const asked = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const needed = this.rules.factsNeeded(e, facts).filter((k) => !asked.has(factId(k)));
      if (needed.length === 0) break;
      for (const k of needed) asked.add(factId(k));
      for (const [id, value] of await known.read(needed)) if (value !== null) facts.set(id, value);
    }
    for (const change of this.rules.plan(e, facts)) {
      switch (change.kind) {
        case 'notify': {
          const n = change.draft;
          await write(UPSERT_NOTIFICATION, [n.notification_uuid, n.profile_uuid, n.type, n.source, n.title, n.message, n.href, n.reference, n.at, n.at, n.position, n.event_id]);
          break;
        }
        case 'fact':
          known.write(change.scope, change.key, change.value);
          break;
        case 'read':
          await write("UPDATE notification_inbox SET status = 'READ', updated_at = ? WHERE notification_uuid = ? AND profile_uuid = ? AND status = 'UNREAD'", [change.at, change.notification_uuid, change.profile_uuid]);
          break;
        case 'archive':
          await write("UPDATE notification_inbox SET status = 'ARCHIVED', updated_at = ? WHERE notification_uuid = ? AND profile_uuid = ? AND status <> 'ARCHIVED'", [change.at, change.notification_uuid, change.profile_uuid]);
          break;
        case 'read-all':
          // Log order decides what "all" is: every notification folded before this event.
          await write("UPDATE notification_inbox SET status = 'READ', updated_at = ? WHERE profile_uuid = ? AND status = 'UNREAD'", [change.at, change.profile_uuid]);
          break;
      }
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['notification_inbox_facts', 'notification_inbox']) await tx.query(`DELETE FROM ${t}`);
  }

  /**
   * An erased person's notifications (written to them: their devices, their contact hints) are deleted, each a
   * tombstone on the compacted topic so consumers forget the key; so are the facts the rules keep about them (their
   * personal fact scopes: devices seen, failed sign-ins).
   */
  private async erase(profile: string, event: RecordedEvent, tx: EntityManager): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const scopes = this.rules.personalFactScopes;
    if (scopes.length > 0) await q(`DELETE FROM notification_inbox_facts WHERE scope IN (${scopes.map(() => '?').join(', ')}) AND fact_key = ?`, [...scopes, profile]);
    const gone: Array<{ notification_uuid: string }> = await q('SELECT notification_uuid FROM notification_inbox WHERE profile_uuid = ?', [profile]);
    await q('DELETE FROM notification_inbox WHERE profile_uuid = ?', [profile]);
    if (!this.outbox.enabled) return;
    for (const { notification_uuid } of gone) {
      await this.outbox.put(tx, { key: notification_uuid, value: null, position: event.position, event_id: event.event_id, headers: { profile_uuid: profile } });
    }
  }
}

/** The rules' facts as one batch reads and writes them: each read once, the last value of each written at the end. */
class FactsOfBatch {
  private readonly values = new Map<string, { scope: string; key: string; value: FactValue | null }>();
  private readonly dirty = new Set<string>();

  constructor(private readonly tx: EntityManager) {}

  /** The facts asked for (null: none), from the table for those the batch has not seen yet. */
  async read(keys: FactKey[]): Promise<Map<string, FactValue | null>> {
    const missing = keys.filter((k) => !this.values.has(factId(k)));
    if (missing.length > 0) {
      const rows: Array<{ scope: string; fact_key: string; value: string }> = await this.tx.query(
        portableSql(this.tx, `SELECT scope, fact_key, value FROM notification_inbox_facts WHERE ${missing.map(() => '(scope = ? AND fact_key = ?)').join(' OR ')}`),
        missing.flatMap((k) => [k.scope, k.key]),
      );
      for (const k of missing) this.values.set(factId(k), { scope: k.scope, key: k.key, value: null });
      for (const r of rows) this.values.set(factId({ scope: r.scope, key: r.fact_key }), { scope: r.scope, key: r.fact_key, value: JSON.parse(r.value) as FactValue });
    }
    return new Map(keys.map((k) => [factId(k), this.values.get(factId(k))!.value]));
  }

  write(scope: string, key: string, value: FactValue | null): void {
    const id = factId({ scope, key });
    this.values.set(id, { scope, key, value });
    this.dirty.add(id);
  }

  /** The changed facts into the table: one upsert of those set (each once), one delete of those removed. */
  async flush(): Promise<void> {
    const changed = [...this.dirty].map((id) => this.values.get(id)!);
    this.dirty.clear();
    const set = changed.filter((f) => f.value !== null);
    const removed = changed.filter((f) => f.value === null);
    for (let i = 0; i < set.length; i += 500) {
      const chunk = set.slice(i, i + 500);
      await this.tx.query(
        portableSql(this.tx, `${UPSERT_FACTS} ${chunk.map(() => '(?, ?, ?)').join(', ')} ON CONFLICT (scope, fact_key) DO UPDATE SET value = excluded.value`),
        chunk.flatMap((f) => [f.scope, f.key, JSON.stringify(f.value)]),
      );
    }
    if (removed.length > 0) {
      await this.tx.query(portableSql(this.tx, `DELETE FROM notification_inbox_facts WHERE ${removed.map(() => '(scope = ? AND fact_key = ?)').join(' OR ')}`), removed.flatMap((f) => [f.scope, f.key]));
    }
  }

  /** Forgets what was read (the table changed under it). */
  forget(): void {
    this.values.clear();
    this.dirty.clear();
  }
}

/** The inbox read model, its projector running the inbox's own rules and those the modules registered. */
export function notificationInboxReadModel(registered: readonly NotificationRules[]): ReadModelDefinition {
  const rules = composeNotificationRules([inboxNotificationRules, ...registered]);
  return {
    name: NOTIFICATION_INBOX,
    entities: [],
    migrations: [NotificationInbox1764000007100, NotificationInboxOutbox1764000009300],
    projector: class extends NotificationInboxProjector {
      constructor() {
        super(rules);
      }
    },
  };
}
