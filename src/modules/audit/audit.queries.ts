/**
 * The audit module's reads. They read the event store itself, not a read model: the point of an audit read is the
 * events exactly as stored, with their commitments (PLATFORM.md section 3).
 */
import { Inject, Injectable } from '@nestjs/common';
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import { createHash } from 'node:crypto';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { verifyStreamChain } from '../../platform/commitments/commitment';
import { NotFound, PlatformError, ValidationFailed } from '../../platform/errors';
import { eventEnvelope, type EventEnvelope } from '../../platform/event-store/event-envelope';
import type { EventStore } from '../../platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../platform/privacy/sealing-event-store';
import { decodeCursor, encodeCursor } from '../../platform/http/pagination';
import { CHECKPOINT_STREAM, type SignedCheckpoint } from './domain/checkpoint';
import { AUDITORS_STREAM, auditorsDecider, isAuditor, type AuditorGrant } from './domain/auditors';

/** Who may read the audit trail: platform admins and profiles holding the AUDITOR role. */
@Injectable()
export class AuditAccess {
  constructor(private readonly commands: CommandExecutor) {}

  async assertAuditor(principal: Principal): Promise<void> {
    if (principal.platform_role === 'ADMIN') return;
    const { state } = await this.commands.load(AUDITORS_STREAM, auditorsDecider);
    if (!isAuditor(state, principal.profile_uuid)) throw new PlatformError('FORBIDDEN', 'Only an auditor or a platform admin reads the audit trail.');
  }

  assertAdmin(principal: Principal): void {
    if (principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only a platform admin manages the AUDITOR role.');
  }
}

export class GetLatestCheckpoint {
  constructor(readonly principal: Principal) {}
}

@QueryHandler(GetLatestCheckpoint)
export class GetLatestCheckpointHandler implements IQueryHandler<GetLatestCheckpoint, SignedCheckpoint> {
  constructor(private readonly access: AuditAccess, @Inject(RAW_EVENT_STORE) private readonly store: EventStore) {}

  async execute({ principal }: GetLatestCheckpoint): Promise<SignedCheckpoint> {
    await this.access.assertAuditor(principal);
    const [last] = await this.store.readStream(CHECKPOINT_STREAM, { direction: 'backwards', maxCount: 1 });
    if (!last) throw new NotFound('No audit checkpoint has been recorded yet.');
    // As stored, even if it were malformed: `audit verify` is where that gets reported, not hidden here.
    return last.data as unknown as SignedCheckpoint;
  }
}

export class ListStreamEvents {
  constructor(readonly principal: Principal, readonly stream: string, readonly limit: number, readonly cursor?: string) {}
}

export interface StreamEventsPage {
  stream: string;
  /** The platform's event envelope. */
  items: EventEnvelope[];
  next_cursor?: string;
  /** The page's links recomputed (from the event before the page, when there is one) with the platform's chain check. */
  chain: { verified: boolean; first_break: { revision: string; event_id: string; kind: string; reason: string; expected: string | null; found: string | null } | null };
}

/** A cursor is bound to its stream: one of another stream's pages is refused. */
const streamTag = (stream: string): string => createHash('sha256').update(stream).digest('hex').slice(0, 16);

@QueryHandler(ListStreamEvents)
export class ListStreamEventsHandler implements IQueryHandler<ListStreamEvents, StreamEventsPage> {
  constructor(private readonly access: AuditAccess, @Inject(RAW_EVENT_STORE) private readonly store: EventStore) {}

  async execute({ principal, stream, limit, cursor }: ListStreamEvents): Promise<StreamEventsPage> {
    await this.access.assertAuditor(principal);
    let from = 0n;
    if (cursor !== undefined) {
      const [tag, revision] = decodeCursor(cursor, 2);
      if (tag !== streamTag(stream) || typeof revision !== 'string' || !/^\d{1,19}$/.test(revision)) {
        throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: 'not a cursor of this stream' }]);
      }
      from = BigInt(revision);
    }
    const events = await this.store.readStream(stream, { fromRevision: from, maxCount: limit + 1 });
    if (events.length === 0) {
      const [last] = from > 0n ? await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 }) : [];
      if (!last) throw new NotFound('No such stream.');
    }
    const items = events.slice(0, limit);
    const [before] = from > 0n && items.length > 0 ? await this.store.readStream(stream, { fromRevision: from - 1n, maxCount: 1 }) : [];
    const broken = verifyStreamChain(items, before ? { revision: before.revision, event_commitment: before.event_commitment } : null);
    const next = events.length > limit ? items[items.length - 1].revision + 1n : null;
    return {
      stream,
      items: items.map(eventEnvelope),
      ...(next !== null ? { next_cursor: encodeCursor([streamTag(stream), next.toString()]) } : {}),
      chain: {
        verified: broken === null,
        first_break: broken
          ? { revision: broken.revision.toString(), event_id: broken.event_id, kind: broken.kind, reason: broken.reason, expected: broken.expected, found: broken.found }
          : null,
      },
    };
  }
}

export class ListAuditors {
  constructor(readonly principal: Principal) {}
}

@QueryHandler(ListAuditors)
export class ListAuditorsHandler implements IQueryHandler<ListAuditors, { items: Array<AuditorGrant & { role: 'AUDITOR' }> }> {
  constructor(private readonly access: AuditAccess, private readonly commands: CommandExecutor) {}

  async execute({ principal }: ListAuditors): Promise<{ items: Array<AuditorGrant & { role: 'AUDITOR' }> }> {
    this.access.assertAdmin(principal);
    const { state } = await this.commands.load(AUDITORS_STREAM, auditorsDecider);
    return { items: Object.values(state.auditors).map((g) => ({ ...g, role: 'AUDITOR' as const })).sort((a, b) => a.granted_at.localeCompare(b.granted_at)) };
  }
}
