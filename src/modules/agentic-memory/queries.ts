/** The agentic memory reads, from read models only: collections and their versions, manifests, objects, inbox, requests. */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { parseCore, type CollectionRow, type ItemRow, type VersionRow } from '../../../projections/agentic-memory-collections/agentic-memory-collections.read-model';
import type { RequestRow } from '../../../projections/agentic-memory-requests/agentic-memory-requests.read-model';
import { CollectionNotFound, grantOf, type Grant } from './domain/access';
import {
  collectionResponse, inboxEntryOf, statusOf, type AgenticMemoryCollectionResponse, type AgenticMemoryInboxEntry, type AgenticMemoryRequestStatus, type CollectionCore, type MemoryItem,
  type MemoryProjection, type MemoryRequest,
} from './domain/collection';
import { manifestBody, manifestCommitment, type AgenticMemoryManifest } from './domain/manifest';
import { after, memoryEnvelope, page, type MemoryEnvelope, type Paged } from './envelope';
import { MemoryAccess } from './memory-access';
import { MemorySigner } from './memory-signer';

interface Version {
  version: number;
  commitment: string;
  object_uuids: string[];
}

async function versionOf(db: ReadModelDatabase, row: CollectionRow, wanted?: number): Promise<Version> {
  // Version 1 arrives in the creation's own append: a row without it is a creation still being projected.
  if (row.version < 1) throw new CollectionNotFound();
  const rows: VersionRow[] = await db.reader.query(db.sql('SELECT * FROM agentic_memory_versions WHERE collection_uuid = ? AND version = ?'), [row.collection_uuid, wanted ?? row.version]);
  if (rows.length === 0) throw new PlatformError('NOT_FOUND', `No version ${wanted ?? row.version} of this collection.`, { details: [{ field: 'version', issue: `1 to ${row.version}` }] });
  return { version: rows[0].version, commitment: rows[0].commitment, object_uuids: JSON.parse(rows[0].object_uuids) as string[] };
}

/** The projections of these objects (one query), by object id. */
async function projections(db: ReadModelDatabase, ids: string[]): Promise<Map<string, MemoryProjection>> {
  const out = new Map<string, MemoryProjection>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows: Array<{ object_uuid: string; projection: string | null }> = await db.reader.query(
      db.sql(`SELECT object_uuid, projection FROM agentic_memory_items WHERE object_uuid IN (${chunk.map(() => '?').join(', ')})`),
      chunk,
    );
    for (const r of rows) if (r.projection) out.set(r.object_uuid, JSON.parse(r.projection) as MemoryProjection);
  }
  return out;
}

const memoriesOf = (version: Version, byId: Map<string, MemoryProjection>): MemoryProjection[] => version.object_uuids.map((id) => byId.get(id)).filter((p): p is MemoryProjection => p !== undefined);

/** What every collection read says in `meta`: approved projections only, private provenance left out. */
function collectionMeta(core: CollectionCore, grant: Grant, latest: number, shown: number): Record<string, unknown> {
  return {
    projection: 'APPROVED_ONLY',
    provenance: 'EXCLUDED',
    ...(shown !== latest ? { latest_version: latest } : {}),
    ...(grant === 'MANAGE' ? { audience: { selected_workspaces: core.selected_workspaces, invited_principals: core.invited_principals } } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Collections

export class GetCollection {
  constructor(readonly principal: Principal, readonly ref: string, readonly version?: number) {}
}

@QueryHandler(GetCollection)
export class GetCollectionHandler implements IQueryHandler<GetCollection> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, ref, version }: GetCollection): Promise<MemoryEnvelope<AgenticMemoryCollectionResponse>> {
    const { row, core, grant } = await this.access.collection(principal, ref, 'read');
    const v = await versionOf(this.db, row, version);
    const byId = await projections(this.db, v.object_uuids);
    return memoryEnvelope(collectionResponse(core, row.updated_at, v, memoriesOf(v, byId)), collectionMeta(core, grant, row.version, v.version));
  }
}

export class ListCollections {
  constructor(
    readonly principal: Principal,
    readonly filter: { workspace_uuid?: string; category?: string },
    readonly limit: number,
    readonly cursor?: string,
  ) {}
}

/**
 * The catalogue: LISTED collections of the caller's tenant that the caller has access to, newest first. With
 * `workspace_uuid` (a workspace of the caller's): every collection that workspace publishes, whatever its discovery.
 */
@QueryHandler(ListCollections)
export class ListCollectionsHandler implements IQueryHandler<ListCollections> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, filter, limit, cursor }: ListCollections): Promise<MemoryEnvelope<Paged<AgenticMemoryCollectionResponse>>> {
    const facts = await this.access.facts(principal);
    const scope = `catalogue:${filter.workspace_uuid ?? ''}:${filter.category ?? ''}`;
    const before = after(cursor, scope);
    const where = ['c.tenant_uuid = ?', 'c.version >= 1'];
    const params: unknown[] = [principal.tenant_uuid];
    if (filter.workspace_uuid) {
      if (!facts.workspaces.has(filter.workspace_uuid)) throw new PlatformError('NOT_FOUND', 'No such workspace.');
      where.push('c.workspace_uuid = ?');
      params.push(filter.workspace_uuid);
    } else {
      where.push("c.discovery_mode = 'LISTED'");
      const mine = [...facts.workspaces.keys()];
      const marks = mine.map(() => '?').join(', ');
      const audience = ["c.access_mode = 'OPEN'"];
      if (mine.length > 0) {
        audience.push(`c.workspace_uuid IN (${marks})`);
        audience.push(`(c.access_mode = 'SELECTED_WORKSPACES' AND EXISTS (SELECT 1 FROM agentic_memory_audience a WHERE a.collection_uuid = c.collection_uuid AND a.kind = 'WORKSPACE' AND a.reference IN (${marks})))`);
        params.push(...mine, ...mine);
      }
      audience.push("(c.access_mode = 'INVITE_ONLY' AND EXISTS (SELECT 1 FROM agentic_memory_audience a WHERE a.collection_uuid = c.collection_uuid AND a.kind = 'PRINCIPAL' AND a.reference = ?))");
      params.push(principal.profile_uuid);
      where.push(`(${audience.join(' OR ')})`);
    }
    if (filter.category) {
      where.push('c.category = ?');
      params.push(filter.category);
    }
    if (before) {
      where.push('c.position < ?');
      params.push(before);
    }
    const rows: CollectionRow[] = await this.db.reader.query(this.db.sql(`SELECT c.* FROM agentic_memory_collections c WHERE ${where.join(' AND ')} ORDER BY c.position DESC LIMIT ?`), [...params, limit + 1]);
    const { rows: taken, next_cursor } = page(rows, limit, scope);
    // The SQL filter and the domain rule must agree; the rule has the last word.
    const visible = taken.map((row) => ({ row, core: parseCore(row) })).filter(({ core }) => grantOf(core, facts) !== 'NONE');
    const versions = await Promise.all(visible.map(({ row }) => versionOf(this.db, row)));
    const byId = await projections(this.db, versions.flatMap((v) => v.object_uuids));
    const items = visible.map(({ row, core }, i) => collectionResponse(core, row.updated_at, versions[i], memoriesOf(versions[i], byId)));
    return memoryEnvelope({ items, ...(next_cursor ? { next_cursor } : {}) }, { projection: 'APPROVED_ONLY', provenance: 'EXCLUDED' });
  }
}

export class GetManifest {
  constructor(readonly principal: Principal, readonly ref: string, readonly version?: number) {}
}

@QueryHandler(GetManifest)
export class GetManifestHandler implements IQueryHandler<GetManifest> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase, private readonly signer: MemorySigner) {}

  async execute({ principal, ref, version }: GetManifest): Promise<MemoryEnvelope<AgenticMemoryManifest>> {
    const { row, core } = await this.access.collection(principal, ref, 'read');
    const v = await versionOf(this.db, row, version);
    const body = manifestBody(core, { version: v.version, commitment: v.commitment, projection_count: v.object_uuids.length });
    const manifest: AgenticMemoryManifest = { ...body, integrity: this.signer.integrity(v.commitment, manifestCommitment(body)) };
    return memoryEnvelope(manifest);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Memory objects (the publishing workspace's view, private provenance included)

export class ListItems {
  constructor(readonly principal: Principal, readonly ref: string, readonly state: string | undefined, readonly limit: number, readonly cursor?: string) {}
}

@QueryHandler(ListItems)
export class ListItemsHandler implements IQueryHandler<ListItems> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, ref, state, limit, cursor }: ListItems): Promise<MemoryEnvelope<Paged<MemoryItem>>> {
    const { row } = await this.access.collection(principal, ref, 'member');
    const scope = `items:${row.collection_uuid}:${state ?? ''}`;
    const from = after(cursor, scope);
    const where = ['collection_uuid = ?'];
    const params: unknown[] = [row.collection_uuid];
    if (state) {
      where.push('state = ?');
      params.push(state);
    }
    if (from) {
      where.push('position > ?');
      params.push(from);
    }
    const rows: ItemRow[] = await this.db.reader.query(this.db.sql(`SELECT * FROM agentic_memory_items WHERE ${where.join(' AND ')} ORDER BY position ASC, object_uuid ASC LIMIT ?`), [...params, limit + 1]);
    const { rows: taken, next_cursor } = page(rows, limit, scope);
    return memoryEnvelope({ items: taken.map((r) => JSON.parse(r.record) as MemoryItem), ...(next_cursor ? { next_cursor } : {}) });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export class ListInbox {
  constructor(readonly principal: Principal, readonly ref: string, readonly state: string, readonly limit: number, readonly cursor?: string) {}
}

/** The publisher's durable inbox: requests of one state (OPEN by default), oldest first. */
@QueryHandler(ListInbox)
export class ListInboxHandler implements IQueryHandler<ListInbox> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, ref, state, limit, cursor }: ListInbox): Promise<MemoryEnvelope<Paged<AgenticMemoryInboxEntry>>> {
    const { row } = await this.access.collection(principal, ref, 'member');
    const scope = `inbox:${row.collection_uuid}:${state}`;
    const from = after(cursor, scope);
    const rows: RequestRow[] = await this.db.reader.query(
      this.db.sql(`SELECT * FROM agentic_memory_requests WHERE collection_uuid = ? AND state = ?${from ? ' AND position > ?' : ''} ORDER BY position ASC, request_uuid ASC LIMIT ?`),
      from ? [row.collection_uuid, state, from, limit + 1] : [row.collection_uuid, state, limit + 1],
    );
    const { rows: taken, next_cursor } = page(rows, limit, scope);
    return memoryEnvelope({ items: taken.map((r) => inboxEntryOf(JSON.parse(r.record) as MemoryRequest)), ...(next_cursor ? { next_cursor } : {}) });
  }
}

export class ListOwnRequests {
  constructor(readonly principal: Principal, readonly ref: string, readonly limit: number, readonly cursor?: string) {}
}

/** The caller's own requests to a collection, newest first. */
@QueryHandler(ListOwnRequests)
export class ListOwnRequestsHandler implements IQueryHandler<ListOwnRequests> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, ref, limit, cursor }: ListOwnRequests): Promise<MemoryEnvelope<Paged<AgenticMemoryRequestStatus>>> {
    const { row } = await this.access.collection(principal, ref, 'read');
    const scope = `requests:${row.collection_uuid}`;
    const before = after(cursor, scope);
    const rows: RequestRow[] = await this.db.reader.query(
      this.db.sql(`SELECT * FROM agentic_memory_requests WHERE collection_uuid = ? AND requester_reference = ?${before ? ' AND position < ?' : ''} ORDER BY position DESC, request_uuid DESC LIMIT ?`),
      before ? [row.collection_uuid, principal.profile_uuid, before, limit + 1] : [row.collection_uuid, principal.profile_uuid, limit + 1],
    );
    const { rows: taken, next_cursor } = page(rows, limit, scope);
    return memoryEnvelope({ items: taken.map((r) => statusOf(JSON.parse(r.record) as MemoryRequest)), ...(next_cursor ? { next_cursor } : {}) });
  }
}

export class GetRequest {
  constructor(readonly principal: Principal, readonly request_uuid: string) {}
}

/** Status polling: the requester and the publishing workspace see a request; to anyone else it does not exist. */
@QueryHandler(GetRequest)
export class GetRequestHandler implements IQueryHandler<GetRequest> {
  constructor(private readonly access: MemoryAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, request_uuid }: GetRequest): Promise<MemoryEnvelope<AgenticMemoryRequestStatus>> {
    const notFound = new PlatformError('NOT_FOUND', 'No such agentic memory request.');
    const rows: RequestRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM agentic_memory_requests WHERE request_uuid = ?'), [request_uuid]);
    const row = rows[0];
    if (!row) throw notFound;
    const facts = await this.access.facts(principal);
    if (row.requester_reference !== principal.profile_uuid) {
      const collections: CollectionRow[] = await this.db.reader.query(this.db.sql('SELECT * FROM agentic_memory_collections WHERE collection_uuid = ?'), [row.collection_uuid]);
      const grant = collections[0] ? grantOf(parseCore(collections[0]), facts) : 'NONE';
      if (grant !== 'MEMBER' && grant !== 'MANAGE') throw notFound;
    }
    return memoryEnvelope(statusOf(JSON.parse(row.record) as MemoryRequest));
  }
}
