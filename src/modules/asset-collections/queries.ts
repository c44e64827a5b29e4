/**
 * Asset-collection reads: the listing (AssetCollectionQuery → AssetCollectionPage) and one collection with its
 * metadata. Only ACTIVE collections are admitted for anyone but platform admins.
 *
 * The seeds' cursor is an opaque `offset-N`, valid only with the same filters. Ours is `offset-N.<f>`: `f` is the first
 * 8 hex digits of the SHA-256 of the filters it was issued for (q lower-cased, status upper-cased, limit), so a cursor
 * brought to other filters is a 400 rather than a silently wrong page. Pages are in registration order (oldest first):
 * a collection registered while a client pages lands after the pages already read, so a walk sees each item once.
 */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { sha256Hex } from '../../platform/commitments/commitment';
import { ValidationFailed } from '../../platform/errors';
import { pageLimit } from '../../platform/http/pagination';
import { containsPattern, readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { COLLECTIONS, type CollectionRecord } from '../../../projections/asset-collections/asset-collections.read-model';
import { CollectionNotFound } from './domain/collection';
import { COLLECTION_PAGE, OFFSET_CURSOR, type AssetCollectionQuery } from './dto/asset-collections.dto';
import type { AssetCollection, AssetCollectionSummary } from './dto/responses.dto';

const isAdmin = (p: Principal | null): boolean => p?.platform_role === 'ADMIN';

export function summaryOf(r: CollectionRecord): AssetCollectionSummary {
  return {
    collection_uuid: r.collection_uuid, name: r.name, description: r.description, category_code: r.category_code, metadata_hash: r.metadata_hash, status: r.status,
    created_at: r.created_at, updated_at: r.updated_at, ...(r.image_uri !== null ? { image_uri: r.image_uri } : {}),
  };
}

/** The fingerprint of a listing's filters, carried in its cursors. */
export const filtersOf = (q: string | undefined, status: string, limit: number): string => sha256Hex(JSON.stringify([q?.toLowerCase() ?? null, status, limit])).slice(0, 8);

export class ListAssetCollections {
  constructor(readonly principal: Principal | null, readonly query: AssetCollectionQuery) {}
}

@QueryHandler(ListAssetCollections)
export class ListAssetCollectionsHandler implements IQueryHandler<ListAssetCollections> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListAssetCollections): Promise<object> {
    const limit = pageLimit(query.limit, COLLECTION_PAGE);
    const status = (query.status ?? 'ACTIVE').toUpperCase();
    const fingerprint = filtersOf(query.q, status, limit);
    let offset = 0;
    if (query.cursor !== undefined) {
      const m = OFFSET_CURSOR.exec(query.cursor);
      if (!m || m[2] !== fingerprint) throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: m ? 'issued for other filters' : 'not a cursor this listing issued' }]);
      offset = Number(m[1]);
    }
    // Only ACTIVE collections are admitted to the listing, except for platform admins.
    if (status !== 'ACTIVE' && !isAdmin(principal)) return { collections: [], limit, next_cursor: null };
    const where = ['status = ?'];
    const params: unknown[] = [status];
    if (query.q) {
      where.push(`search_text LIKE ? ESCAPE '\\'`);
      params.push(containsPattern(query.q));
    }
    const rows: Array<{ record: string }> = await this.db.reader.query(
      this.db.sql(`SELECT record FROM asset_collections WHERE ${where.join(' AND ')} ORDER BY position ASC LIMIT ? OFFSET ?`),
      [...params, limit + 1, offset],
    );
    const page = rows.slice(0, limit).map((r) => summaryOf(JSON.parse(r.record) as CollectionRecord));
    return { collections: page, limit, next_cursor: rows.length > limit ? `offset-${offset + limit}.${fingerprint}` : null };
  }
}

export class GetAssetCollection {
  constructor(readonly principal: Principal | null, readonly collection_uuid: string) {}
}

@QueryHandler(GetAssetCollection)
export class GetAssetCollectionHandler implements IQueryHandler<GetAssetCollection> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ principal, collection_uuid }: GetAssetCollection): Promise<AssetCollection> {
    const r = await readRecord(this.db.reader.manager, COLLECTIONS, collection_uuid);
    if (!r || (r.status !== 'ACTIVE' && !isAdmin(principal))) throw new CollectionNotFound();
    return { ...summaryOf(r), metadata: r.metadata, version: r.version };
  }
}
