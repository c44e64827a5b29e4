/**
 * What the agentic-memory routes answer (response DTOs, named as the seeds name the records). Every answer is the
 * seeds' AgenticMemoryEnvelope: `success` (always true), `response` typed per operation, `meta` where there is some.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { HEX32_ID, SHA256_HEX } from '../../../platform/http/api-properties';
import { ACCESS_MODES, DISCOVERY_MODES } from '../domain/access';
import { ITEM_STATES, KNOWLEDGE_CAPABILITIES, PRIORITIES } from '../domain/collection';
import { AUTHENTICATION_MECHANISM, MANIFEST_SCHEMA, PROTOCOL_VERSION } from '../domain/manifest';
import { CLASSIFICATIONS, OBJECT_TYPES } from '../domain/objects';

const NEXT_CURSOR = { description: 'Opaque; absent on the last page.' } as const;
const ORIGINS = ['PUBLISHER', 'AGENT_PUBLICATION'];
const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;


/** The seeds' AgenticMemoryRequestReceipt: acceptance is not an answer. */
@ApiSchema({ name: 'AgenticMemoryRequestReceipt' })
export class AgenticMemoryRequestReceiptResponse {
  @ApiProperty(HEX32_ID) request_uuid!: string;
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ enum: ['QUERY', 'CLARIFY', 'PROPOSE'] }) request_type!: string;
  @ApiProperty({ enum: ['OPEN'] }) state!: string;
}

/** The seeds' AgenticMemoryRequestStatus. */
@ApiSchema({ name: 'AgenticMemoryRequestStatus' })
export class AgenticMemoryRequestStatusResponse {
  @ApiProperty(HEX32_ID) request_uuid!: string;
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ enum: ['QUERY', 'CLARIFY', 'PROPOSE'] }) request_type!: string;
  @ApiProperty() question!: string;
  @ApiProperty({ enum: ['OPEN', 'ANSWERED', 'DISMISSED'] }) state!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while open.' }) resolved!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The reviewed answer; null until resolved.' }) response!: string | null;
}

/** AgenticMemoryEnvelope of a request receipt. */
@ApiSchema({ name: 'AgenticMemoryRequestReceiptEnvelope' })
export class AgenticMemoryRequestReceiptEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryRequestReceiptResponse }) response!: AgenticMemoryRequestReceiptResponse;
}

/** AgenticMemoryEnvelope of a request's status. */
@ApiSchema({ name: 'AgenticMemoryRequestStatusEnvelope' })
export class AgenticMemoryRequestStatusEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryRequestStatusResponse }) response!: AgenticMemoryRequestStatusResponse;
}

/** AgenticMemoryEnvelope of a page of request statuses (the caller's own requests). */
@ApiSchema({ name: 'AgenticMemoryRequestStatusPage' })
export class AgenticMemoryRequestStatusPage {
  @ApiProperty({ type: [AgenticMemoryRequestStatusResponse] }) items!: AgenticMemoryRequestStatusResponse[];
  @ApiPropertyOptional(NEXT_CURSOR) next_cursor?: string;
}

@ApiSchema({ name: 'AgenticMemoryRequestStatusPageEnvelope' })
export class AgenticMemoryRequestStatusPageEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryRequestStatusPage }) response!: AgenticMemoryRequestStatusPage;
}

// --- collections --------------------------------------------------------------------------------------------------

@ApiSchema({ name: 'AgenticMemoryPublisher' })
export class AgenticMemoryPublisher {
  @ApiProperty(HEX32_ID) workspace_uuid!: string;
  @ApiProperty() name!: string;
}

/** An approved memory object as others see it (the seeds' ContextObject, approved): no private source id or payload. */
@ApiSchema({ name: 'AgenticMemoryProjection' })
export class AgenticMemoryProjection {
  @ApiProperty(HEX32_ID) object_uuid!: string;
  @ApiProperty({ enum: OBJECT_TYPES }) object_type!: string;
  @ApiProperty({ enum: ORIGINS }) origin!: string;
  @ApiProperty() topic!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: CLASSIFICATIONS }) classification!: string;
  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1, description: 'Metadata only: it decides nothing.' }) confidence!: number | null;
  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'Structured content; its keys depend on object_type.' }) content!: Record<string, unknown> | null;
  @ApiProperty({ type: [String], description: 'Public-safe identifiers or commitments.' }) source_refs!: string[];
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX }) source_memory_commitment!: string | null;
  @ApiProperty({ format: 'date-time' }) approved!: string;
}

/** The seeds' AgenticMemoryCollectionResponse: a collection at one version, its approved projections. */
@ApiSchema({ name: 'AgenticMemoryCollectionResponse' })
export class AgenticMemoryCollectionResponse {
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description!: string;
  @ApiProperty() category!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) version!: number;
  @ApiProperty({ ...SHA256_HEX, description: 'SHA-256 over the canonical projection list of this version.' }) commitment!: string;
  @ApiProperty({ enum: ACCESS_MODES }) access_mode!: string;
  @ApiProperty({ enum: DISCOVERY_MODES }) discovery_mode!: string;
  @ApiProperty({ type: AgenticMemoryPublisher }) publisher!: AgenticMemoryPublisher;
  @ApiProperty({ enum: KNOWLEDGE_CAPABILITIES, isArray: true }) capabilities!: string[];
  @ApiProperty({ type: [AgenticMemoryProjection] }) memories!: AgenticMemoryProjection[];
  @ApiProperty({ type: String, nullable: true }) slug!: string | null;
  @ApiProperty({ format: 'date-time' }) updated!: string;
}

@ApiSchema({ name: 'AgenticMemoryAudience' })
export class AgenticMemoryAudience {
  @ApiProperty({ type: [String], description: 'SELECTED_WORKSPACES: the workspaces whose members have access.' }) selected_workspaces!: string[];
  @ApiProperty({ type: [String], description: 'INVITE_ONLY: the profiles that have access.' }) invited_principals!: string[];
}

/** What every collection read says in meta: approved projections only, private provenance left out. */
@ApiSchema({ name: 'AgenticMemoryCollectionMeta' })
export class AgenticMemoryCollectionMeta {
  @ApiProperty({ enum: ['APPROVED_ONLY'] }) projection!: string;
  @ApiProperty({ enum: ['EXCLUDED'] }) provenance!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The latest version, when an earlier one is shown.' }) latest_version?: number;
  @ApiPropertyOptional({ type: AgenticMemoryAudience, description: 'Only to those who manage the collection.' }) audience?: AgenticMemoryAudience;
}

@ApiSchema({ name: 'AgenticMemoryCollectionEnvelope' })
export class AgenticMemoryCollectionEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryCollectionResponse }) response!: AgenticMemoryCollectionResponse;
  @ApiProperty({ type: AgenticMemoryCollectionMeta }) meta!: AgenticMemoryCollectionMeta;
}

@ApiSchema({ name: 'AgenticMemoryCollectionPage' })
export class AgenticMemoryCollectionPage {
  @ApiProperty({ type: [AgenticMemoryCollectionResponse] }) items!: AgenticMemoryCollectionResponse[];
  @ApiPropertyOptional(NEXT_CURSOR) next_cursor?: string;
}

@ApiSchema({ name: 'AgenticMemoryCollectionPageEnvelope' })
export class AgenticMemoryCollectionPageEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryCollectionPage }) response!: AgenticMemoryCollectionPage;
  @ApiProperty({ type: AgenticMemoryCollectionMeta }) meta!: AgenticMemoryCollectionMeta;
}

@ApiSchema({ name: 'AgenticMemoryCollectionReceipt' })
export class AgenticMemoryCollectionReceipt {
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'The version just published.' }) version?: number;
}

@ApiSchema({ name: 'AgenticMemoryPendingMeta' })
export class AgenticMemoryPendingMeta {
  @ApiProperty({ enum: [true], description: 'The collection read model had not caught up; read it back with X-Min-Position.' }) projections_pending!: true;
}

@ApiSchema({ name: 'AgenticMemoryCollectionReceiptEnvelope' })
export class AgenticMemoryCollectionReceiptEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryCollectionReceipt }) response!: AgenticMemoryCollectionReceipt;
  @ApiProperty({ type: AgenticMemoryPendingMeta }) meta!: AgenticMemoryPendingMeta;
}

// --- manifest -----------------------------------------------------------------------------------------------------

@ApiSchema({ name: 'AgenticMemoryManifestCollection' })
export class AgenticMemoryManifestCollection {
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ type: String, nullable: true }) slug!: string | null;
  @ApiProperty() title!: string;
  @ApiProperty({ type: AgenticMemoryPublisher }) publisher!: AgenticMemoryPublisher;
  @ApiProperty({ type: 'integer', minimum: 1 }) approved_version!: number;
  @ApiProperty(SHA256_HEX) commitment!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) projection_count!: number;
}

@ApiSchema({ name: 'AgenticMemoryManifestAccess' })
export class AgenticMemoryManifestAccess {
  @ApiProperty({ enum: ACCESS_MODES }) audience_mode!: string;
  @ApiProperty({ enum: [AUTHENTICATION_MECHANISM] }) authentication_mechanism!: string;
  @ApiProperty({ enum: DISCOVERY_MODES }) discovery_policy!: string;
}

@ApiSchema({ name: 'AgenticMemoryManifestEndpoints' })
export class AgenticMemoryManifestEndpoints {
  @ApiProperty({ description: 'The collection by slug (or id): the route a person shares.' }) human!: string;
  @ApiProperty() collection!: string;
  @ApiProperty() manifest!: string;
  @ApiProperty({ description: 'A request\'s status; {request_uuid} is filled by the caller.' }) status!: string;
  @ApiProperty() requests!: string;
  @ApiProperty() clarifications!: string;
  @ApiProperty() publications!: string;
  @ApiProperty() inbox!: string;
  @ApiProperty() resolve!: string;
}

@ApiSchema({ name: 'AgenticMemoryManifestBodyShape' })
export class AgenticMemoryManifestBodyShape {
  @ApiProperty({ example: 'AgenticMemoryQueryRequest', description: 'The request schema\'s name in this document.' }) schema!: string;
  @ApiProperty({ type: [String] }) required!: string[];
  @ApiProperty({ type: [String] }) optional!: string[];
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Fields whose value this action fixes.' }) fixed?: Record<string, string>;
  @ApiProperty({ enum: [false] }) extra_fields!: false;
}

@ApiSchema({ name: 'AgenticMemoryManifestAction' })
export class AgenticMemoryManifestAction {
  @ApiProperty({ enum: ['READ', 'MANIFEST', ...KNOWLEDGE_CAPABILITIES, 'PUBLISH_CONTEXT', 'STATUS'] }) action!: string;
  @ApiProperty({ enum: ['GET', 'POST'] }) method!: string;
  @ApiProperty() endpoint!: string;
  @ApiProperty({ type: AgenticMemoryManifestBodyShape, nullable: true, description: 'null for a GET.' }) body_shape!: AgenticMemoryManifestBodyShape | null;
  @ApiProperty({ example: 'AgenticMemoryRequestReceipt' }) receipt_type!: string;
}

@ApiSchema({ name: 'AgenticMemoryManifestPolling' })
export class AgenticMemoryManifestPolling {
  @ApiProperty({ enum: ['GET'] }) method!: string;
  @ApiProperty() endpoint!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) interval_seconds!: number;
}

@ApiSchema({ name: 'AgenticMemoryManifestInbox' })
export class AgenticMemoryManifestInbox {
  @ApiProperty() endpoint!: string;
  @ApiProperty({ enum: ['RESOLVED'] }) retained_until!: string;
}

@ApiSchema({ name: 'AgenticMemoryManifestDelivery' })
export class AgenticMemoryManifestDelivery {
  @ApiProperty({ enum: ['ASYNCHRONOUS'] }) mode!: string;
  @ApiProperty({ type: AgenticMemoryManifestPolling }) polling!: AgenticMemoryManifestPolling;
  @ApiProperty({ type: AgenticMemoryManifestInbox }) durable_inbox!: AgenticMemoryManifestInbox;
  @ApiProperty({ enum: [false] }) hot_standby_required!: false;
}

/** Knowledge access never implies quote, contract, wallet, transaction or settlement authority: all false. */
@ApiSchema({ name: 'AgenticMemoryManifestAuthority' })
export class AgenticMemoryManifestAuthority {
  @ApiProperty({ enum: [false] }) quote!: false;
  @ApiProperty({ enum: [false] }) contract!: false;
  @ApiProperty({ enum: [false] }) wallet!: false;
  @ApiProperty({ enum: [false] }) transaction!: false;
  @ApiProperty({ enum: [false] }) settlement!: false;
}

@ApiSchema({ name: 'AgenticMemoryManifestIntegrity' })
export class AgenticMemoryManifestIntegrity {
  @ApiProperty(SHA256_HEX) collection_commitment!: string;
  @ApiProperty({ ...SHA256_HEX, description: 'SHA-256 of the RFC 8785 canonical JSON of the manifest without integrity.' }) manifest_commitment!: string;
  @ApiProperty({ enum: ['SIGNED', 'UNSIGNED'] }) signature_state!: string;
  @ApiPropertyOptional({ enum: ['Ed25519'] }) algorithm?: string;
  @ApiPropertyOptional({ description: 'The signing key\'s public half (when SIGNED).' }) public_key?: string;
  @ApiPropertyOptional() key_id?: string;
  @ApiPropertyOptional({ description: 'Ed25519 over the ASCII bytes of manifest_commitment (when SIGNED).' }) signature?: string;
  @ApiPropertyOptional({ enum: ['manifest_commitment'] }) signed_payload?: string;
}

/** The seeds' AgenticMemoryManifest (docs/agentic-memory.md). */
@ApiSchema({ name: 'AgenticMemoryManifest' })
export class AgenticMemoryManifest {
  @ApiProperty({ enum: [MANIFEST_SCHEMA] }) schema!: string;
  @ApiProperty({ enum: [PROTOCOL_VERSION] }) protocol_version!: string;
  @ApiProperty({ type: AgenticMemoryManifestCollection }) collection!: AgenticMemoryManifestCollection;
  @ApiProperty({ type: AgenticMemoryManifestAccess }) access!: AgenticMemoryManifestAccess;
  @ApiProperty({ enum: KNOWLEDGE_CAPABILITIES, isArray: true }) capabilities!: string[];
  @ApiProperty({ type: AgenticMemoryManifestEndpoints }) endpoints!: AgenticMemoryManifestEndpoints;
  @ApiProperty({ type: [AgenticMemoryManifestAction] }) actions!: AgenticMemoryManifestAction[];
  @ApiProperty({ type: AgenticMemoryManifestDelivery }) delivery!: AgenticMemoryManifestDelivery;
  @ApiProperty({ type: AgenticMemoryManifestAuthority }) authority!: AgenticMemoryManifestAuthority;
  @ApiProperty({ type: AgenticMemoryManifestIntegrity }) integrity!: AgenticMemoryManifestIntegrity;
}

@ApiSchema({ name: 'AgenticMemoryManifestEnvelope' })
export class AgenticMemoryManifestEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryManifest }) response!: AgenticMemoryManifest;
}

// --- memory objects (the publishing workspace's view) -------------------------------------------------------------

@ApiSchema({ name: 'AgenticMemoryActor' })
export class AgenticMemoryActor {
  @ApiProperty({ example: 'profile' }) type!: string;
  @ApiProperty() reference!: string;
}

/** A memory object as its publishing workspace sees it: with its private provenance, which no projection carries. */
@ApiSchema({ name: 'AgenticMemoryItem' })
export class AgenticMemoryItem {
  @ApiProperty(HEX32_ID) object_uuid!: string;
  @ApiProperty(HEX32_ID) collection_uuid!: string;
  @ApiProperty({ enum: ORIGINS }) origin!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID, description: 'The PROPOSE request of the publication that brought it in.' }) request_uuid!: string | null;
  @ApiProperty({ type: AgenticMemoryActor }) submitted_by!: AgenticMemoryActor;
  @ApiProperty({ type: String, nullable: true, description: 'Private: the record it was drawn from in the publisher\'s own systems.' }) source_id!: string | null;
  @ApiProperty({ ...JSON_OBJECT, nullable: true, description: 'Private material the publisher keeps with the object.' }) payload!: Record<string, unknown> | null;
  @ApiProperty({ enum: OBJECT_TYPES }) object_type!: string;
  @ApiProperty() topic!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: CLASSIFICATIONS }) classification!: string;
  @ApiProperty({ type: Number, nullable: true, minimum: 0, maximum: 1 }) confidence!: number | null;
  @ApiProperty({ ...JSON_OBJECT, nullable: true }) content!: Record<string, unknown> | null;
  @ApiProperty({ type: [String] }) source_refs!: string[];
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX }) source_memory_commitment!: string | null;
  @ApiProperty({ enum: ITEM_STATES }) state!: string;
  @ApiProperty({ format: 'date-time' }) created!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) reviewed_at!: string | null;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) reviewed_by_profile_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true }) review_reason!: string | null;
}

@ApiSchema({ name: 'AgenticMemoryItemEnvelope' })
export class AgenticMemoryItemEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryItem }) response!: AgenticMemoryItem;
}

@ApiSchema({ name: 'AgenticMemoryItemPage' })
export class AgenticMemoryItemPage {
  @ApiProperty({ type: [AgenticMemoryItem] }) items!: AgenticMemoryItem[];
  @ApiPropertyOptional(NEXT_CURSOR) next_cursor?: string;
}

@ApiSchema({ name: 'AgenticMemoryItemPageEnvelope' })
export class AgenticMemoryItemPageEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryItemPage }) response!: AgenticMemoryItemPage;
}

// --- the publisher's inbox ----------------------------------------------------------------------------------------

/** What the publishing workspace reviews: the status the requester sees, and what came with the request. */
@ApiSchema({ name: 'AgenticMemoryInboxEntry' })
export class AgenticMemoryInboxEntry {
  @ApiProperty({ type: AgenticMemoryRequestStatusResponse }) request!: AgenticMemoryRequestStatusResponse;
  @ApiProperty({ enum: PRIORITIES, description: 'A label for the reviewer; it changes no authority and no order.' }) priority!: string;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID, description: 'The object a CLARIFY asks about.' }) object_uuid!: string | null;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX }) agent_action_rationale_commitment!: string | null;
  @ApiProperty({ type: String, nullable: true, ...SHA256_HEX }) human_approval_commitment!: string | null;
  @ApiProperty({ type: [String], description: 'The objects a context publication brought in (pending review).' }) proposed_object_uuids!: string[];
  @ApiProperty({ type: AgenticMemoryActor }) requested_by!: AgenticMemoryActor;
  @ApiProperty({ type: String, nullable: true, ...HEX32_ID }) resolved_by_profile_uuid!: string | null;
}

@ApiSchema({ name: 'AgenticMemoryInboxPage' })
export class AgenticMemoryInboxPage {
  @ApiProperty({ type: [AgenticMemoryInboxEntry] }) items!: AgenticMemoryInboxEntry[];
  @ApiPropertyOptional(NEXT_CURSOR) next_cursor?: string;
}

@ApiSchema({ name: 'AgenticMemoryInboxPageEnvelope' })
export class AgenticMemoryInboxPageEnvelope {
  @ApiProperty({ enum: [true] }) success!: true;
  @ApiProperty({ type: AgenticMemoryInboxPage }) response!: AgenticMemoryInboxPage;
}
