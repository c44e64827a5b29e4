/** What the audit routes answer (response DTOs: the OpenAPI schemas, checked against every e2e answer). */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';

const INT64 = { pattern: '^[0-9]+$', description: 'A decimal string (int64).' } as const;

/** A signed checkpoint of the global chain and (v2) the Merkle tree head (docs/audit.md says how to verify it). */
@ApiSchema({ name: 'AuditCheckpoint' })
export class AuditCheckpointResponse {
  @ApiProperty({ enum: ['audit-checkpoint-v2', 'audit-checkpoint-v1'], example: 'audit-checkpoint-v2', description: 'v2 signs the Merkle tree head too; v1 is what earlier versions signed.' })
  alg!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty(INT64) event_count!: string;
  @ApiProperty(SHA256_HEX) global_commitment!: string;
  @ApiProperty({ description: 'base64url of the SHA-256 of the public key.' }) key_id!: string;
  @ApiProperty(INT64) position!: string;
  @ApiProperty({ description: 'Ed25519 public key, base64url.' }) public_key!: string;
  @ApiProperty({ description: 'Ed25519 signature, base64url.' }) signature!: string;
  @ApiPropertyOptional({ ...INT64, description: 'v2: the Merkle tree\'s size, equal to event_count (decimal string).' }) tree_size?: string;
  @ApiPropertyOptional({ ...SHA256_HEX, description: 'v2: the RFC 9162 Merkle tree head of the first tree_size events (docs/audit.md 1.7).' }) root_hash?: string;
}

@ApiSchema({ name: 'AuditActor' })
export class AuditActorResponse {
  @ApiProperty() reference!: string;
  @ApiProperty() type!: string;
}

@ApiSchema({ name: 'AuditEventMetadata' })
export class AuditEventMetadataResponse {
  @ApiProperty({ type: AuditActorResponse }) actor!: AuditActorResponse;
  @ApiProperty({ type: String, nullable: true }) causation_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) correlation_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) request_id!: string | null;
  @ApiProperty({ type: 'integer' }) schema_version!: number;
  @ApiProperty({ type: String, nullable: true }) tenant_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true }) workspace_uuid!: string | null;
}

/** A raw event of a stream with its commitments: what an auditor recomputes the chain from. */
@ApiSchema({ name: 'AuditEvent' })
export class AuditEventResponse {
  @ApiProperty(HEX32_ID) event_id!: string;
  @ApiProperty() type!: string;
  @ApiProperty() stream!: string;
  @ApiProperty(INT64) revision!: string;
  @ApiProperty(INT64) position!: string;
  @ApiProperty({ format: 'date-time' }) occurred_at!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: "The event's data, as recorded." }) data!: Record<string, unknown>;
  @ApiProperty({ type: AuditEventMetadataResponse }) metadata!: AuditEventMetadataResponse;
  @ApiProperty(SHA256_HEX) event_commitment!: string;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX, description: 'null for the first event of the stream.' }) previous_event_commitment!: string | null;
}

@ApiSchema({ name: 'AuditChainBreak' })
export class AuditChainBreakResponse {
  @ApiProperty(INT64) revision!: string;
  @ApiProperty(HEX32_ID) event_id!: string;
  @ApiProperty() kind!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ type: String, nullable: true }) expected!: string | null;
  @ApiProperty({ type: String, nullable: true }) found!: string | null;
}

@ApiSchema({ name: 'AuditChainCheck' })
export class AuditChainCheckResponse {
  @ApiProperty() verified!: boolean;
  @ApiProperty({ type: AuditChainBreakResponse, nullable: true }) first_break!: AuditChainBreakResponse | null;
}

@ApiSchema({ name: 'AuditEventPage' })
export class AuditEventPageResponse {
  @ApiProperty() stream!: string;
  @ApiProperty({ type: [AuditEventResponse] }) items!: AuditEventResponse[];
  @ApiPropertyOptional({ description: 'Opaque; absent on the last page.' }) next_cursor?: string;
  @ApiProperty({ type: AuditChainCheckResponse, description: "The page's links recomputed with the platform's chain check." }) chain!: AuditChainCheckResponse;
}

@ApiSchema({ name: 'AuditorGrant' })
export class AuditorGrantResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ format: 'date-time' }) granted_at!: string;
  @ApiProperty(HEX32_ID) granted_by!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ enum: ['AUDITOR'] }) role!: string;
}

@ApiSchema({ name: 'AuditorList' })
export class AuditorListResponse {
  @ApiProperty({ type: [AuditorGrantResponse] }) items!: AuditorGrantResponse[];
}

@ApiSchema({ name: 'AuditorRevocation' })
export class AuditorRevocationResponse {
  @ApiProperty(HEX32_ID) profile_uuid!: string;
  @ApiProperty({ type: String, enum: [null], nullable: true, description: 'null: the role is gone.' }) role!: null;
}
