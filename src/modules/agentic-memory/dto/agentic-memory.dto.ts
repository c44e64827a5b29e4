/**
 * Requests of the agentic memory routes. Every shape allows no extra fields (the seeds mark the memory shapes so, and
 * ours follow them): an unknown field, a wrong type or a missing field is a 400 naming it. Texts are scanned for
 * credentials (and, in what agents send, for private material such as e-mail addresses) before anything is decided.
 */
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsIn, IsNumber, IsObject, IsString, Length, Matches, Max, Min, ValidateNested, registerDecorator, type ValidationArguments } from 'class-validator';
import { PageQuery } from '../../../platform/http/pagination';
import { NoExtraFields, Optional, OptionalNullable } from '../../../platform/http/validation';
import { ACCESS_MODES, DISCOVERY_MODES } from '../domain/access';
import { ITEM_STATES, KNOWLEDGE_CAPABILITIES, PRIORITIES, REQUEST_STATES } from '../domain/collection';
import { CLASSIFICATIONS, contentProblems, isPublicRef, MAX_SOURCE_REFS, OBJECT_TYPES, secretIssue } from '../domain/objects';
import { credentialIn, findIn, privateMaterialIn } from '../domain/secrets';
import { hex32Param } from '../../../platform/http/api-properties';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;
/** Lowercase letters, digits and inner hyphens, 3-64 characters; never 32 hex characters (that is an id). */
export const SLUG = /^(?![0-9a-f]{32}$)[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$/;
const REF = /^(?:[0-9a-f]{32}|(?![0-9a-f]{32}$)[a-z0-9][a-z0-9-]{1,62}[a-z0-9])$/;
const MAX_AUDIENCE = 200;
const MAX_PAYLOAD_BYTES = 64 * 1024;

const hex32 = (field: string) => ({ message: `${field} must be 32 lowercase hex characters` });
const sha256Hex = (field: string) => ({ message: `${field} must be a SHA-256 commitment: 64 lowercase hex characters, never cleartext` });

function scanned(name: string, detect: (text: string) => string | null): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name,
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => findIn(value, detect) === null,
        defaultMessage: (args?: ValidationArguments) => {
          const found = findIn(args?.value, detect);
          return `${args?.property}${found?.path ?? ''} ${secretIssue(found?.kind ?? 'credential')}`;
        },
      },
    });
  };
}

/** Refuses any string (nested too) that looks like a credential. */
export const NoCredentials = (): PropertyDecorator => scanned('noCredentials', credentialIn);
/** Refuses credentials and private material (e-mail addresses): for what agents send. */
export const NoPrivateMaterial = (): PropertyDecorator => scanned('noPrivateMaterial', privateMaterialIn);

/** Structured content: the fields its object type defines, nothing private. */
function IsMemoryContent(): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name: 'isMemoryContent',
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown, args?: ValidationArguments) => contentProblems(String((args?.object as { object_type?: unknown }).object_type), value).length === 0,
        defaultMessage: (args?: ValidationArguments) =>
          contentProblems(String((args?.object as { object_type?: unknown }).object_type), args?.value)
            .map((p) => `${p.field}: ${p.issue}`)
            .join('; '),
      },
    });
  };
}

function ArePublicRefs(): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name: 'arePublicRefs',
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => !Array.isArray(value) || value.every((v) => typeof v !== 'string' || isPublicRef(v)),
        defaultMessage: () => 'each source ref must be a public-safe identifier or commitment (no credentials, user info, query strings or spaces)',
      },
    });
  };
}

function MaxJsonBytes(max: number): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name: 'maxJsonBytes',
      target: object.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => value === undefined || Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') <= max,
        defaultMessage: (args?: ValidationArguments) => `${args?.property} must be at most ${max} bytes of JSON`,
      },
    });
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Path and query parameters

export class CollectionParam {
  @ApiProperty({ description: 'The collection: its collection_uuid (32 lowercase hex characters) or its slug.', example: 'desk-playbook' })
  @Matches(REF, { message: 'collection must be a collection_uuid (32 lowercase hex characters) or a slug' })
  collection!: string;
}

export class ObjectParam extends CollectionParam {
  @ApiProperty(hex32Param('The memory item (object)'))
  @Matches(HEX32, hex32('object_uuid'))
  object_uuid!: string;
}

export class RequestParam {
  @ApiProperty(hex32Param('The request'))
  @Matches(HEX32, hex32('request_uuid'))
  request_uuid!: string;
}

export class VersionQuery {
  @Optional() @Matches(/^[1-9]\d{0,8}$/, { message: 'version must be a positive integer' })
  version?: string;
}

export class CatalogueQuery extends PageQuery {
  @ApiPropertyOptional({ description: "a workspace of yours: every collection it publishes, whatever its discovery mode" })
  @Optional() @Matches(HEX32, hex32('workspace_uuid'))
  workspace_uuid?: string;

  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 64)
  category?: string;
}

export class ItemListQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ITEM_STATES }) @Optional() @IsIn(ITEM_STATES as unknown as string[])
  state?: string;
}

export class InboxQuery extends PageQuery {
  @ApiPropertyOptional({ enum: REQUEST_STATES, description: 'default OPEN' }) @Optional() @IsIn(REQUEST_STATES as unknown as string[])
  state?: string;
}


// ---------------------------------------------------------------------------------------------------------------
// Collections

@NoExtraFields()
export class AgenticMemoryCollectionRequest {
  @ApiProperty({ description: 'the publishing workspace (you are its owner or an admin)' }) @Matches(HEX32, hex32('workspace_uuid'))
  workspace_uuid!: string;

  @ApiProperty({ example: 'Payments runbook' }) @IsString() @Length(1, 200) @NoCredentials()
  title!: string;

  @ApiProperty({ example: 'How our payment rails behave, what failed and what we decided.' }) @IsString() @Length(1, 4000) @NoCredentials()
  description!: string;

  @ApiProperty({ example: 'operations' }) @IsString() @Length(1, 64) @NoCredentials()
  category!: string;

  /** slug? is nullable on the seeds' AgenticMemoryCollectionResponse (001): null, like absent, is no slug (`?? null`). */
  @ApiPropertyOptional({ type: String, example: 'payments-runbook', nullable: true, description: 'unique in the tenant, fixed once chosen' })
  @OptionalNullable() @IsString() @NoCredentials() @Matches(SLUG, { message: 'slug must be 3-64 lowercase letters, digits and inner hyphens, and not 32 hex characters' })
  slug?: string | null;

  @ApiProperty({ enum: ACCESS_MODES }) @IsIn(ACCESS_MODES as unknown as string[])
  access_mode!: string;

  @ApiProperty({ enum: DISCOVERY_MODES }) @IsIn(DISCOVERY_MODES as unknown as string[])
  discovery_mode!: string;

  @ApiProperty({ enum: KNOWLEDGE_CAPABILITIES, isArray: true, description: 'the requests the collection accepts; knowledge capabilities only' })
  @IsArray() @ArrayMaxSize(KNOWLEDGE_CAPABILITIES.length) @ArrayUnique()
  @IsIn(KNOWLEDGE_CAPABILITIES as unknown as string[], { each: true, message: `capabilities are knowledge capabilities only: each one of ${KNOWLEDGE_CAPABILITIES.join(', ')}` })
  capabilities!: string[];

  @ApiPropertyOptional({ description: 'SELECTED_WORKSPACES: the workspaces whose members have access' })
  @Optional() @IsArray() @ArrayMaxSize(MAX_AUDIENCE) @Matches(HEX32, { each: true, message: 'each selected workspace must be 32 lowercase hex characters' })
  selected_workspaces?: string[];

  @ApiPropertyOptional({ description: 'INVITE_ONLY: the profiles (profile_uuid) that have access' })
  @Optional() @IsArray() @ArrayMaxSize(MAX_AUDIENCE) @Matches(HEX32, { each: true, message: 'each invited principal must be a profile_uuid (32 lowercase hex characters)' })
  invited_principals?: string[];
}

/**
 * Settings to change; the slug and the publishing workspace never change. Each field is `@Optional()`: absent means
 * "unchanged", and `null` (not a value any setting takes) fails its type rule instead of reaching the stored settings.
 */
@NoExtraFields()
export class AgenticMemoryCollectionUpdate {
  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 200) @NoCredentials()
  title?: string;

  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 4000) @NoCredentials()
  description?: string;

  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 64) @NoCredentials()
  category?: string;

  @ApiPropertyOptional({ enum: ACCESS_MODES }) @Optional() @IsIn(ACCESS_MODES as unknown as string[])
  access_mode?: string;

  @ApiPropertyOptional({ enum: DISCOVERY_MODES }) @Optional() @IsIn(DISCOVERY_MODES as unknown as string[])
  discovery_mode?: string;

  @ApiPropertyOptional({ enum: KNOWLEDGE_CAPABILITIES, isArray: true })
  @Optional() @IsArray() @ArrayMaxSize(KNOWLEDGE_CAPABILITIES.length) @ArrayUnique()
  @IsIn(KNOWLEDGE_CAPABILITIES as unknown as string[], { each: true, message: `capabilities are knowledge capabilities only: each one of ${KNOWLEDGE_CAPABILITIES.join(', ')}` })
  capabilities?: string[];

  @ApiPropertyOptional({ description: 'replaces the allowlist' })
  @Optional() @IsArray() @ArrayMaxSize(MAX_AUDIENCE) @Matches(HEX32, { each: true, message: 'each selected workspace must be 32 lowercase hex characters' })
  selected_workspaces?: string[];

  @ApiPropertyOptional({ description: 'replaces the invitations' })
  @Optional() @IsArray() @ArrayMaxSize(MAX_AUDIENCE) @Matches(HEX32, { each: true, message: 'each invited principal must be a profile_uuid (32 lowercase hex characters)' })
  invited_principals?: string[];
}

// ---------------------------------------------------------------------------------------------------------------
// Memory objects

/** The seeds' ContextObject. */
@NoExtraFields()
export class ContextObject {
  @ApiProperty({ enum: OBJECT_TYPES }) @IsIn(OBJECT_TYPES as unknown as string[], { message: `object_type must be one of ${OBJECT_TYPES.join(', ')}` })
  object_type!: string;

  @ApiProperty({ example: 'settlement-latency' }) @IsString() @Length(1, 120) @NoPrivateMaterial()
  topic!: string;

  @ApiProperty({ example: 'EU settlement runs 40 minutes late' }) @IsString() @Length(1, 200) @NoPrivateMaterial()
  title!: string;

  @ApiProperty() @IsString() @Length(1, 2000) @NoPrivateMaterial()
  summary!: string;

  @ApiProperty({ enum: CLASSIFICATIONS }) @IsIn(CLASSIFICATIONS as unknown as string[], { message: `classification must be one of ${CLASSIFICATIONS.join(', ')} (restricted material does not belong in shared memory)` })
  classification!: string;

  /** confidence? (seeds 001, ContextObject): may be null, stored as null (`?? null`). */
  @ApiPropertyOptional({ type: Number, minimum: 0, maximum: 1, nullable: true, description: 'metadata only: it decides nothing' })
  @OptionalNullable() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1)
  confidence?: number | null;

  @ApiPropertyOptional({ description: 'structured: the fields of its object type (see docs/agentic-memory.md)' })
  @Optional() @IsObject() @IsMemoryContent()
  content?: Record<string, unknown>;

  /** source_memory_commitment? (seeds 001, ContextObject): may be null, stored as null (`?? null`). */
  @ApiPropertyOptional({ type: String, nullable: true }) @OptionalNullable() @Matches(HEX64, sha256Hex('source_memory_commitment'))
  source_memory_commitment?: string | null;

  @ApiPropertyOptional({ description: 'public-safe identifiers or commitments' })
  @Optional() @IsArray() @ArrayMaxSize(MAX_SOURCE_REFS) @IsString({ each: true }) @Length(1, 200, { each: true }) @ArePublicRefs()
  source_refs?: string[];
}

/** A memory object the publishing workspace adds itself, with its private provenance (never shown to others). */
@NoExtraFields()
export class AgenticMemoryItemRequest extends ContextObject {
  @ApiPropertyOptional({ description: "private: the record's id in your own systems" })
  @Optional() @IsString() @Matches(/^[A-Za-z0-9._:/-]{1,200}$/, { message: 'source_id must be 1-200 characters of [A-Za-z0-9._:/-]' }) @NoCredentials()
  source_id?: string;

  @ApiPropertyOptional({ description: 'private: material kept with the object, never projected' })
  @Optional() @IsObject() @MaxJsonBytes(MAX_PAYLOAD_BYTES) @NoCredentials()
  payload?: Record<string, unknown>;
}

@NoExtraFields()
export class ReviewItemRequest {
  @ApiPropertyOptional() @Optional() @IsString() @Length(1, 500) @NoCredentials()
  reason?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

/** QUERY (a question) or PROPOSE (a proposal in words) to the collection's publisher. */
@NoExtraFields()
export class AgenticMemoryQueryRequest {
  @ApiProperty({ enum: ['QUERY', 'PROPOSE'], description: 'CLARIFY goes to …/clarifications' })
  @IsIn(['QUERY', 'PROPOSE'], { message: 'request_type must be QUERY or PROPOSE (clarifications go to the clarifications route)' })
  request_type!: 'QUERY' | 'PROPOSE';

  @ApiProperty({ example: 'Which settlement window applies to EU payouts?' }) @IsString() @Length(1, 2000) @NoPrivateMaterial()
  question!: string;

  // Ours, not a seeds shape: nothing here is documented nullable (ClarificationRequest's priority? is).
  @ApiPropertyOptional({ enum: PRIORITIES, description: 'a label; it changes no authority' }) @Optional() @IsIn(PRIORITIES as unknown as string[])
  priority?: string;

  @ApiPropertyOptional() @Optional() @Matches(HEX64, sha256Hex('agent_action_rationale_commitment'))
  agent_action_rationale_commitment?: string;
}

/** The seeds' ClarificationRequest. */
@NoExtraFields()
export class ClarificationRequest {
  @ApiProperty({ description: 'a published memory object of the collection' }) @Matches(HEX32, hex32('object_uuid'))
  object_uuid!: string;

  @ApiProperty() @IsString() @Length(1, 2000) @NoPrivateMaterial()
  question!: string;

  @ApiProperty({ description: 'SHA-256 hex of the agent’s rationale, never the rationale itself' }) @Matches(HEX64, sha256Hex('agent_action_rationale_commitment'))
  agent_action_rationale_commitment!: string;

  /** priority? (seeds 001, ClarificationRequest): may be null, which is NORMAL (`?? 'NORMAL'`). */
  @ApiPropertyOptional({ type: String, enum: PRIORITIES, nullable: true, description: 'a label; it changes no authority' }) @OptionalNullable() @IsIn(PRIORITIES as unknown as string[])
  priority?: string | null;
}

/** The seeds' ContextPublication (its fields after human_approval_commitment are ours: `objects`). */
@NoExtraFields()
export class ContextPublication {
  @ApiProperty() @Matches(HEX64, sha256Hex('agent_action_rationale_commitment'))
  agent_action_rationale_commitment!: string;

  /** Optional, not `?` in the seeds (001, ContextPublication): null is refused. */
  @ApiPropertyOptional({ description: 'SHA-256 hex of the human approval the agent acted under' }) @Optional() @Matches(HEX64, sha256Hex('human_approval_commitment'))
  human_approval_commitment?: string;

  @ApiProperty({ type: () => [ContextObject] }) @IsArray() @ArrayMinSize(1) @ArrayMaxSize(20) @ValidateNested({ each: true }) @Type(() => ContextObject)
  objects!: ContextObject[];
}

/** The publisher's review of a request. */
@NoExtraFields()
export class ResolveMemoryRequest {
  @ApiProperty({ enum: ['ANSWERED', 'DISMISSED'] }) @IsIn(['ANSWERED', 'DISMISSED'], { message: 'state must be ANSWERED or DISMISSED' })
  state!: 'ANSWERED' | 'DISMISSED';

  @ApiProperty({ description: 'the reviewed answer (or why it was dismissed), shown to the requester' }) @IsString() @Length(1, 8000) @NoCredentials()
  response!: string;
}
