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

const HEX_PATH_DESCRIPTION = 'Hashes (64 lowercase hex), in RFC 9162 order.';

/** RFC 9162 2.1.3 inclusion proof of one event against a signed checkpoint's tree head (docs/audit.md 6). */
@ApiSchema({ name: 'AuditInclusionProof' })
export class AuditInclusionProofResponse {
  @ApiProperty(HEX32_ID) event_id!: string;
  @ApiProperty({ ...INT64, description: 'The event\'s global position.' }) position!: string;
  @ApiProperty({ ...INT64, description: 'The event\'s leaf: the number of events before it in the log.' }) leaf_index!: string;
  @ApiProperty({ ...INT64, description: 'The tree the proof is against: the checkpoint\'s tree_size.' }) tree_size!: string;
  @ApiProperty({ ...SHA256_HEX, description: 'The leaf input (recompute it from the event, docs/audit.md 1.1).' }) event_commitment!: string;
  @ApiProperty({ ...SHA256_HEX, description: 'SHA-256(0x00 ‖ the 32 bytes of event_commitment).' }) leaf_hash!: string;
  @ApiProperty({ ...SHA256_HEX, description: 'The checkpoint\'s root_hash.' }) root_hash!: string;
  @ApiProperty({ type: [String], description: `${HEX_PATH_DESCRIPTION} Empty for the one leaf of a tree of size 1.` }) audit_path!: string[];
  @ApiProperty({ type: AuditCheckpointResponse, description: 'The signed v2 checkpoint: take tree_size and root_hash from it, after checking its signature.' })
  checkpoint!: AuditCheckpointResponse;
}

/** RFC 9162 2.1.4 consistency proof between two signed checkpoints' tree heads (docs/audit.md 6). */
@ApiSchema({ name: 'AuditConsistencyProof' })
export class AuditConsistencyProofResponse {
  @ApiProperty(INT64) first!: string;
  @ApiProperty(INT64) second!: string;
  @ApiProperty(SHA256_HEX) first_root!: string;
  @ApiProperty(SHA256_HEX) second_root!: string;
  @ApiProperty({ type: [String], description: `${HEX_PATH_DESCRIPTION} Empty when first = second.` }) consistency_path!: string[];
  @ApiProperty({ type: AuditCheckpointResponse }) first_checkpoint!: AuditCheckpointResponse;
  @ApiProperty({ type: AuditCheckpointResponse }) second_checkpoint!: AuditCheckpointResponse;
}
