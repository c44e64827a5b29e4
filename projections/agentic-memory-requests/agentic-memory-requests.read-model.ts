/**
 * Requests filed with agentic memory collections (QUERY, CLARIFY, PROPOSE) and their resolution: the publisher's
 * durable inbox (by collection and state, oldest first), the requester's own list and status polling.
 */
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import type { Projector } from '../../src/platform/projections/projector';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import type { CollectionEvent, MemoryRequest } from '../../src/modules/agentic-memory/domain/collection';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
import { publishedRequestStatus } from './request-record';

export interface RequestRow {
  request_uuid: string;
  collection_uuid: string;
  state: string;
  request_type: string;
  requester_reference: string;
  /** Zero-padded position of the acceptance: inbox order. */
  position: string;
  created_at: string;
  /** MemoryRequest (JSON). */
  record: string;
}

export class AgenticMemoryRequests1764000006100 implements MigrationInterface {
  name = 'AgenticMemoryRequests1764000006100';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string) => ({ name, type: 'varchar', length });
    await q.createTable(
      new Table({
        name: 'agentic_memory_requests',
        columns: [
          { name: 'request_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('collection_uuid', '32'),
          text('state', '16'),
          text('request_type', '16'),
          text('requester_reference', '32'),
          text('position', '20'),
          text('created_at', '40'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_agentic_memory_requests_inbox', columnNames: ['collection_uuid', 'state', 'position'] },
          { name: 'idx_agentic_memory_requests_requester', columnNames: ['collection_uuid', 'requester_reference', 'position'] },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('agentic_memory_requests');
  }
}

/** The requests' outbox (src/platform/outbox): each change of a request, as its status record, for Kafka. */
export class AgenticMemoryRequestsOutbox1764000014600 implements MigrationInterface {
  name = 'AgenticMemoryRequestsOutbox1764000014600';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_agentic_memory_requests');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_agentic_memory_requests');
  }
}

/** A request as its topic carries it: keyed by request_uuid, the collection and the requester in the headers. */
const requestChange = (r: MemoryRequest) => ({
  key: r.request_uuid,
  value: publishedRequestStatus(r),
  headers: { collection_uuid: r.collection_uuid, requester_type: r.requested_by.type, requester_reference: r.requested_by.reference },
});

export class AgenticMemoryRequestsProjector implements Projector, PublishingProjector {
  readonly name = 'agentic-memory-requests';
  readonly handles = ['AgenticMemoryRequestAccepted', 'AgenticMemoryRequestResolved', 'AccountErased'] as const;
  readonly outbox = new ProjectionOutbox('agentic-memory-requests', 'outbox_agentic_memory_requests', {
    title: 'Agentic memory request status (value of platform.projections.agentic-memory-requests)',
    key: "the value's request_uuid",
    description:
      'One request filed with an agentic memory collection (QUERY, CLARIFY, PROPOSE) and how it was resolved, as status polling ' +
      '(GET /api/v1/agentic-memory/requests/{request_uuid}) shows it, after its acceptance and its resolution; the requester is in the headers.',
    component: 'AgenticMemoryRequestStatus',
    omit: {
      question: 'personal: the words the requester wrote (docs/privacy.md); sealed in the event log',
      response: 'personal: the words the publisher wrote in answer (docs/privacy.md); sealed in the event log',
    },
    headers: {
      collection_uuid: 'the collection the request was filed with',
      requester_type: "who filed it: profile (a person's session) or workload (an agent)",
      requester_reference: "the requester's id: a profile_uuid or an agent's workload client id",
    },
  });
  readonly published: PublishedTable<{ request_uuid: string; record: string }> = {
    table: 'agentic_memory_requests',
    key: 'request_uuid',
    columns: 'request_uuid, record',
    change: (row) => requestChange(JSON.parse(row.record) as MemoryRequest),
  };

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // The questions the erased person asked and the answers they wrote (their words); the requests stay.
      const profile = String(event.data.profile_uuid);
      await scrubRecords<MemoryRequest & Record<string, unknown>>(tx, { table: 'agentic_memory_requests', key: 'request_uuid' }, profile, (r) => {
        const next = { ...r };
        if (r.requested_by.reference === profile) next.question = ERASED_TEXT;
        if (r.resolved_by_profile_uuid === profile && r.response !== null) next.response = ERASED_TEXT;
        return JSON.stringify(next) === JSON.stringify(r) ? null : next;
      });
      return;
    }
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const e = { type: event.type, data: event.data } as unknown as CollectionEvent;
    if (e.type === 'AgenticMemoryRequestAccepted') {
      const r = e.data.request;
      await q(
        'INSERT INTO agentic_memory_requests (request_uuid, collection_uuid, state, request_type, requester_reference, position, created_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [r.request_uuid, r.collection_uuid, r.state, r.request_type, r.requested_by.reference, event.position.toString().padStart(20, '0'), r.created, JSON.stringify(r)],
      );
      await this.outbox.put(tx, { ...requestChange(r), position: event.position, event_id: event.event_id });
      return;
    }
    if (e.type === 'AgenticMemoryRequestResolved') {
      const d = e.data;
      const rows: Array<{ record: string }> = await q('SELECT record FROM agentic_memory_requests WHERE request_uuid = ?', [d.request_uuid]);
      if (rows.length === 0) return;
      const record: MemoryRequest = { ...(JSON.parse(rows[0].record) as MemoryRequest), state: d.state, resolved: d.resolved, response: d.response, resolved_by_profile_uuid: d.resolved_by_profile_uuid };
      await q('UPDATE agentic_memory_requests SET state = ?, record = ? WHERE request_uuid = ?', [d.state, JSON.stringify(record), d.request_uuid]);
      await this.outbox.put(tx, { ...requestChange(record), position: event.position, event_id: event.event_id });
    }
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.query('DELETE FROM agentic_memory_requests');
  }
}

export const agenticMemoryRequestsReadModel: ReadModelDefinition = {
  name: 'agentic-memory-requests',
  entities: [],
  migrations: [AgenticMemoryRequests1764000006100, AgenticMemoryRequestsOutbox1764000014600],
  projector: AgenticMemoryRequestsProjector,
};
