/**
 * The seeds' capability registry shapes (001, "Capability registry"), exact names as the seeds spell them (camelCase):
 * the OpenAPI schema of GET /api/v1/capabilities, and what every answer of it is checked against in the tests.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { AgentIntegrationProfileResponse } from '../../../platform/capabilities/agent-integration.dto';
import { WORKFLOW_ROLES } from '../../../platform/capabilities/capability';

const COUNT = { type: 'integer', minimum: 0 } as const;
const STRINGS = { type: String, isArray: true } as const;

@ApiSchema({ name: 'CapabilityRegistryGeneratedFrom' })
export class GeneratedFromResponse {
  @ApiProperty({ ...COUNT, description: 'Operations read from the served OpenAPI document (the route table).' }) v1InventoryOperations!: number;
  @ApiProperty({ description: 'What the registry was generated from, not when: `openapi-sha256:<hex>` of the served OpenAPI document (no time inside, so every node and restart of one build serves the same bytes).' }) systemCatalogGeneratedAt!: string;
  @ApiProperty({ ...COUNT, description: 'Contracts callable without credentials (the explorer surface).' }) explorerSourceContracts!: number;
  @ApiProperty({ ...COUNT, description: 'Contracts that need credentials (the service surface).' }) serviceSourceContracts!: number;
}

@ApiSchema({ name: 'CapabilityRegistrySummary' })
export class RegistrySummaryResponse {
  @ApiProperty({ ...COUNT, description: 'Implemented operations under /api/v1.' }) v1SourceOperations!: number;
  @ApiProperty({ ...COUNT, description: 'Implemented operations with exposure public.' }) canonicalPublicOperations!: number;
  @ApiProperty({ ...COUNT, description: 'Implemented operations with exposure internal (operators\' probes).' }) internalOnlyOperations!: number;
  @ApiProperty({ ...COUNT, description: 'Operations served (contract authority openapi).' }) implementedContracts!: number;
  @ApiProperty({ ...COUNT, description: 'Operations of the planned catalogue (contract authority capability-registry).' }) plannedContracts!: number;
  @ApiProperty({ ...COUNT, description: 'Implemented operations callable without credentials.' }) explorerOperations!: number;
  @ApiProperty({ ...COUNT, description: "Implemented operations beyond the four whose paths the seeds give (parity platform-extension)." }) serviceExpansionOperations!: number;
  @ApiProperty({ ...COUNT, description: 'Implemented operations of applications beyond the seeds\' first document (trading, identity, the platform).' }) applicationExpansionOperations!: number;
  @ApiProperty({ ...COUNT, description: 'Distinct capabilities.' }) capabilities!: number;
  @ApiProperty({ ...COUNT, description: 'Applications (one per module).' }) applications!: number;
}

@ApiSchema({ name: 'ApplicationSummary' })
export class ApplicationSummaryResponse {
  @ApiProperty() name!: string;
  @ApiProperty() group!: string;
  @ApiProperty() description!: string;
  @ApiProperty() purpose!: string;
  @ApiProperty(STRINGS) audiences!: string[];
  @ApiProperty(STRINGS) businessCases!: string[];
  @ApiProperty(STRINGS) workflow!: string[];
  @ApiProperty(STRINGS) prerequisites!: string[];
  @ApiProperty(STRINGS) agentGuidance!: string[];
  @ApiProperty(STRINGS) relatedApplications!: string[];
  @ApiProperty(COUNT) order!: number;
  @ApiProperty(COUNT) operationCount!: number;
  @ApiProperty(COUNT) implementedContracts!: number;
  @ApiProperty(COUNT) plannedContracts!: number;
}

@ApiSchema({ name: 'CapabilitySummary' })
export class CapabilitySummaryResponse {
  @ApiProperty() name!: string;
  @ApiProperty() chapter!: string;
  @ApiProperty(COUNT) chapterOrder!: number;
  @ApiProperty(COUNT) operationCount!: number;
}

@ApiSchema({ name: 'CapabilityParameter' })
export class CapabilityParameterResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'path, query, header or body' }) location!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty({ description: 'A JSON type, or the schema name of a body.' }) type!: string;
  @ApiProperty() description!: string;
  @ApiPropertyOptional({ description: 'Illustrative, as text.' }) example?: string;
}

@ApiSchema({ name: 'CapabilityResponse' })
export class CapabilityResponseEntry {
  @ApiProperty({ type: 'integer' }) status!: number;
  @ApiProperty() description!: string;
  @ApiPropertyOptional({ description: 'Illustrative, as text.' }) example?: string;
}

@ApiSchema({ name: 'CapabilityContract' })
export class CapabilityContractResponse {
  @ApiProperty({ enum: ['openapi', 'capability-registry'] }) authority!: string;
  @ApiProperty({ description: 'Where the authoritative contract is: a JSON pointer into /api/v1/openapi.json, or the planned entry.' }) reference!: string;
  @ApiProperty({ description: 'The application whose contract it is.' }) scope!: string;
  @ApiProperty({ description: 'Safe to retry: naturally idempotent (GET, PUT, DELETE) or accepting Idempotency-Key.' }) idempotency!: boolean;
  @ApiProperty({ enum: ['stable', 'beta', 'planned'] }) maturity!: string;
  @ApiProperty({ enum: ['implemented-openapi', 'planned-profiled', 'planned-outline'] }) documentationStatus!: string;
  @ApiProperty({ description: 'Who defines the request shape: openapi, capability-registry, or none (no body).' }) requestShapeAuthority!: string;
  @ApiProperty() exampleDisclaimer!: string;
  @ApiProperty({ ...STRINGS, description: 'What a user interface offers for it: view, fill-form, edit, confirm, submit.' }) uxActions!: string[];
  @ApiProperty({ type: [CapabilityParameterResponse] }) parameters!: CapabilityParameterResponse[];
  @ApiProperty({ type: [CapabilityResponseEntry] }) responses!: CapabilityResponseEntry[];
  @ApiProperty(STRINGS) notes!: string[];
}

@ApiSchema({ name: 'CapabilityBusinessContext' })
export class CapabilityBusinessContextResponse {
  @ApiProperty() purpose!: string;
  @ApiProperty() whenToUse!: string;
  @ApiProperty({ enum: WORKFLOW_ROLES }) workflowRole!: string;
  @ApiProperty() sideEffects!: string;
  @ApiProperty(STRINGS) businessCases!: string[];
  @ApiProperty(STRINGS) prerequisites!: string[];
  @ApiProperty(STRINGS) agentGuidance!: string[];
  @ApiProperty(STRINGS) relatedApplications!: string[];
}

@ApiSchema({ name: 'CapabilityRuntimeSource' })
export class RuntimeSourceResponse {
  @ApiProperty({ example: 'http-route' }) kind!: string;
  @ApiProperty() method!: string;
  @ApiProperty() path!: string;
}

/**
 * The seeds' LegacyCapabilitySource (001 names it, its fields "not shown"; ours): a route of a legacy service an
 * operation replaces — which service, and its method and path there. This platform replaces none, so the list is
 * always empty; the shape says what an entry would be.
 */
@ApiSchema({ name: 'LegacyCapabilitySource' })
export class LegacyCapabilitySourceResponse {
  @ApiProperty({ example: 'http-route', description: 'What the legacy source is (http-route).' }) kind!: string;
  @ApiProperty({ description: 'The legacy service the route belonged to.' }) system!: string;
  @ApiProperty({ description: 'Its HTTP method there.' }) method!: string;
  @ApiProperty({ description: 'Its path there.' }) path!: string;
}

@ApiSchema({ name: 'CapabilityOperation' })
export class CapabilityOperationResponse {
  @ApiProperty({ description: 'The OpenAPI operationId (planned: the catalogue id).' }) id!: string;
  @ApiProperty({ enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] }) method!: string;
  @ApiProperty() path!: string;
  @ApiProperty() title!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ description: 'The application the operation belongs to.' }) chapter!: string;
  @ApiProperty(COUNT) chapterOrder!: number;
  @ApiProperty() capability!: string;
  @ApiProperty(STRINGS) owners!: string[];
  @ApiProperty(STRINGS) applications!: string[];
  @ApiProperty({ description: 'bearer, none, or what the route takes instead (e.g. provider-key: X-Provider-Key).' }) authentication!: string;
  @ApiProperty({ enum: ['public', 'restricted', 'internal'] }) exposure!: string;
  @ApiProperty({ enum: ['implemented', 'planned'] }) status!: string;
  @ApiProperty({ enum: ['seed-path', 'platform-extension'], description: 'seed-path: one of the four paths the seeds give; platform-extension: ours.' }) parity!: string;
  @ApiProperty(STRINGS) sourceKinds!: string[];
  @ApiProperty({ type: [LegacyCapabilitySourceResponse], description: 'Always empty: this platform replaces no legacy service.' }) legacySources!: LegacyCapabilitySourceResponse[];
  @ApiProperty({ type: [RuntimeSourceResponse] }) runtimeSources!: RuntimeSourceResponse[];
  @ApiProperty({ type: CapabilityContractResponse }) contract!: CapabilityContractResponse;
  @ApiProperty({ type: CapabilityBusinessContextResponse }) businessContext!: CapabilityBusinessContextResponse;
}

@ApiSchema({ name: 'CapabilityRegistry' })
export class CapabilityRegistryResponse {
  @ApiProperty({ type: 'integer', format: 'int32', example: 1 }) schemaVersion!: number;
  @ApiProperty({ type: GeneratedFromResponse }) generatedFrom!: GeneratedFromResponse;
  @ApiProperty({ type: RegistrySummaryResponse }) summary!: RegistrySummaryResponse;
  @ApiProperty({ type: [ApplicationSummaryResponse] }) applications!: ApplicationSummaryResponse[];
  @ApiProperty({ type: [CapabilitySummaryResponse] }) capabilities!: CapabilitySummaryResponse[];
  @ApiProperty({ type: [CapabilityOperationResponse] }) operations!: CapabilityOperationResponse[];
  @ApiProperty({ type: AgentIntegrationProfileResponse, description: "Ours, beside the seed's fields: the seeds' AgentIntegrationProfile, the platform's conventions." }) agentIntegration!: AgentIntegrationProfileResponse;
  @ApiProperty({ example: '/api/v1/auth/profiles', description: 'Ours: where the AuthenticationProfiles are (every way to authenticate).' }) authenticationProfiles!: string;
  @ApiProperty({ example: '/api/v1/openapi.json', description: 'Ours: the document the registry is generated from.' }) openapi!: string;
}
