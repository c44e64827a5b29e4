/**
 * Requests of the asset-collection routes: the seeds' AssetCollectionQuery (limit 1 to 200, default 24; q at most
 * 200 characters; status case-insensitive; cursor `offset-N` valid only with the same filters) and the admins' ones.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Length, Matches, MaxLength, Min } from 'class-validator';
import type { JsonObject } from '../../../platform/commitments/json';
import { hex32Param } from '../../../platform/http/api-properties';
import { NoExtraFields, Optional } from '../../../platform/http/validation';

export const COLLECTION_PAGE = { default: 24, max: 200 };
export const OFFSET_CURSOR = /^offset-(\d{1,9})\.([0-9a-f]{8})$/;

export class CollectionParam {
  @ApiProperty(hex32Param('The collection')) @Matches(/^[0-9a-f]{32}$/, { message: 'collection_uuid must be 32 lowercase hex characters' })
  collection_uuid!: string;
}

/** The seeds' AssetCollectionQuery. */
export class AssetCollectionQuery {
  @ApiPropertyOptional({ description: 'Opaque `offset-N.<filters>` from the previous page; valid only with the same q, status and limit.', example: 'offset-24.3f9a0c1b', pattern: OFFSET_CURSOR.source })
  @Optional() @IsString() @MaxLength(40)
  cursor?: string;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 200, default: 24, example: 24 })
  @Optional() @Matches(/^\d{1,4}$/, { message: 'limit must be an integer from 1 to 200' })
  limit?: string;

  @ApiPropertyOptional({ maxLength: 200, description: 'Case-insensitive, over name, description and category.' }) @Optional() @IsString() @MaxLength(200)
  q?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive exact; default ACTIVE. Only platform admins list other statuses (for others the listing holds ACTIVE collections only).', example: 'ACTIVE' })
  @Optional()
  @Matches(/^(draft|active|suspended|retired)$/i, { message: 'status must be DRAFT, ACTIVE, SUSPENDED or RETIRED (any case)' })
  status?: string;
}

@NoExtraFields()
export class RegisterAssetCollectionRequest {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Genesis Keys' }) @IsString() @Length(1, 120)
  name!: string;

  @ApiProperty({ maxLength: 2000 }) @IsString() @MaxLength(2000)
  description!: string;

  @ApiProperty({ pattern: '^[A-Z][A-Z0-9_]{1,39}$', example: 'ART' }) @Matches(/^[A-Z][A-Z0-9_]{1,39}$/, { message: 'category_code must be 2-40 of A-Z, 0-9 and _, starting with a letter' })
  category_code!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'Any JSON object (at most 16 KiB as canonical JSON); metadata_hash is the SHA-256 of its RFC 8785 canonical JSON.' })
  @IsObject()
  metadata!: JsonObject;

  @ApiPropertyOptional({ description: 'https: or ipfs: only; a pointer, not proof.', example: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi' })
  @Optional()
  @Matches(/^(https:\/\/|ipfs:\/\/)[^\s]{1,2040}$/, { message: 'image_uri must be an https: or ipfs: URI' })
  image_uri?: string;
}

@NoExtraFields()
export class CollectionTransitionRequest {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'The version you read (409 VERSION_CONFLICT with current_version if it changed).' }) @IsInt() @Min(0)
  expected_version!: number;
}
