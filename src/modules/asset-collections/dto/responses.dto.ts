/** Answers of the asset-collection routes: the seeds' AssetCollectionSummary and AssetCollectionPage, and the collection with its metadata. */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';
import { COLLECTION_STATUSES } from '../domain/collection';

export class AssetCollectionSummary {
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
  @ApiProperty() category_code!: string;
  @ApiProperty({ ...SHA256_HEX, description: 'SHA-256 (lowercase hex) of the RFC 8785 canonical JSON of the metadata.' }) metadata_hash!: string;
  @ApiProperty({ enum: COLLECTION_STATUSES, description: 'Only ACTIVE collections are admitted to the public listing.' }) status!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiPropertyOptional({ description: 'A pointer (https: or ipfs:), not proof.' }) image_uri?: string;
}

export class AssetCollection extends AssetCollectionSummary {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'As stored: its canonical JSON hashes to metadata_hash.' }) metadata!: Record<string, unknown>;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) version!: number;
}

export class AssetCollectionPage {
  @ApiProperty({ type: [AssetCollectionSummary] }) collections!: AssetCollectionSummary[];
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 200 }) limit!: number;
  @ApiProperty({ type: String, nullable: true, description: '`offset-N.<filters>` of the next page; null on the final page.', example: 'offset-24.3f9a0c1b' }) next_cursor!: string | null;
}

export class AssetCollectionReceipt {
  @ApiProperty({ ...HEX32_ID, description: 'The collection the command created or changed.' }) id!: string;
}
