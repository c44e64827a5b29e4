/** Asset-collection commands (platform admins): register a collection (DRAFT), and move it through its lifecycle. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { canonicalJson } from '../../platform/commitments/commitment';
import { assertCanonicalizable } from '../../platform/commitments/json';
import { nextId } from '../../platform/context/request-context';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import { readRecord } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { COLLECTIONS } from '../../../projections/asset-collections/asset-collections.read-model';
import { CollectionNotFound, collectionDecider, collectionStream, metadataHashOf, type CollectionTransition } from './domain/collection';
import type { RegisterAssetCollectionRequest } from './dto/asset-collections.dto';

export const MAX_METADATA_BYTES = 16 * 1024;

export interface Created {
  id: string;
}

function requirePlatformAdmin(principal: Principal): void {
  if (principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only platform admins manage asset collections.');
}

export class RegisterAssetCollection {
  constructor(readonly principal: Principal, readonly body: RegisterAssetCollectionRequest) {}
}

@CommandHandler(RegisterAssetCollection)
export class RegisterAssetCollectionHandler implements ICommandHandler<RegisterAssetCollection, Created> {
  constructor(private readonly commands: CommandExecutor, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: RegisterAssetCollection): Promise<Created> {
    requirePlatformAdmin(principal);
    assertCanonicalizable(body.metadata, 'metadata');
    if (Buffer.byteLength(canonicalJson(body.metadata)) > MAX_METADATA_BYTES) {
      throw new ValidationFailed('The metadata is too large.', [{ field: 'metadata', issue: `at most ${MAX_METADATA_BYTES} bytes as canonical JSON` }]);
    }
    const collection_uuid = nextId();
    const collection = {
      collection_uuid, name: body.name, description: body.description, category_code: body.category_code, metadata: body.metadata, metadata_hash: metadataHashOf(body.metadata),
      image_uri: body.image_uri ?? null, created_at: this.clock().toISOString(), created_by_profile_uuid: principal.profile_uuid,
    };
    await this.commands.execute(collectionStream(collection_uuid), collectionDecider, { kind: 'RegisterCollection', collection }, { newStream: true });
    return { id: collection_uuid };
  }
}

export class ChangeAssetCollection {
  constructor(readonly principal: Principal, readonly collection_uuid: string, readonly transition: CollectionTransition, readonly expected_version: number) {}
}

@CommandHandler(ChangeAssetCollection)
export class ChangeAssetCollectionHandler implements ICommandHandler<ChangeAssetCollection, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal, collection_uuid, transition, expected_version }: ChangeAssetCollection): Promise<Created> {
    requirePlatformAdmin(principal);
    // An unknown id is a 404, not a version conflict with a stream that does not exist.
    if (!(await readRecord(this.db.reader.manager, COLLECTIONS, collection_uuid))) throw new CollectionNotFound();
    await this.commands.execute(collectionStream(collection_uuid), collectionDecider, { kind: 'ChangeStatus', transition, by_profile_uuid: principal.profile_uuid }, { expectedVersion: BigInt(expected_version) });
    return { id: collection_uuid };
  }
}
