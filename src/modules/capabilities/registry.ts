/**
 * The capability registry (seeds 001, "Capability registry"), generated — never written by hand — from the OpenAPI
 * document the server serves (every operation, with its `x-capability` extension declared next to the route), the
 * modules' application declarations, and the checked-in catalogue of planned operations. Pure and deterministic: the
 * same build gives the same bytes on every node and after every restart (no clock, no host name inside).
 * docs/capabilities.md says what each field and count means.
 */
import { createHash } from 'node:crypto';
import {
  AGENT_INTEGRATION_PROFILE, CAPABILITY_EXTENSION, type ApplicationDeclaration, type Exposure, type Maturity, type RouteCapability, type WorkflowRole,
} from '../../platform/capabilities/capability';
import { PLATFORM_ADMIN_EXTENSION } from '../../platform/auth/principal';
import { TENANT_ROLES_EXTENSION } from '../../platform/auth/tenant-role';

export const REGISTRY_SCHEMA_VERSION = 1;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const EXAMPLE_DISCLAIMER = 'Examples are illustrative; the schemas of the OpenAPI document are authoritative, and a value that breaks them is refused with 400 VALIDATION_FAILED.';
/** Applications the seeds' first document (000) describes: order-book trading, authentication, and the platform itself. */
const CORE_APPLICATIONS = new Set(['trading', 'identity', 'health', 'capabilities']);
/** The four MTF operations whose paths the seeds give (000); every other operation is ours. */
const SEED_PATHS = new Set(['GET /api/v1/api/v1/mtf/markets', 'GET /api/v1/api/v1/mtf/orders', 'POST /api/v1/api/v1/mtf/orders', 'POST /api/v1/api/v1/mtf/cancel']);

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ $ref?: string; name?: string; in?: string; required?: boolean; description?: string; schema?: { type?: string; example?: unknown; $ref?: string; enum?: unknown[] }; example?: unknown }>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string; type?: string } }> };
  responses?: Record<string, { $ref?: string; description?: string }>;
  [CAPABILITY_EXTENSION]?: RouteCapability;
  [PLATFORM_ADMIN_EXTENSION]?: boolean;
  [TENANT_ROLES_EXTENSION]?: string[];
}
export interface OpenApiDocumentShape {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], OpenApiOperation>>>;
  components?: { parameters?: Record<string, { name: string; in: string; required?: boolean; description?: string; schema?: { type?: string } }>; responses?: Record<string, { description?: string }> };
}

export interface CapabilityParameter {
  name: string;
  location: string;
  required: boolean;
  type: string;
  description: string;
  /** Illustrative, as text. */
  example?: string;
}

/** An entry of the planned catalogue (planned.ts). */
export interface PlannedOperation {
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  title: string;
  description: string;
  application: string;
  capability: string;
  authentication: string;
  exposure: 'public' | 'restricted' | 'internal';
  /** `planned-profiled`: request and answer shapes decided; `planned-outline`: the purpose only. */
  documentationStatus: 'planned-profiled' | 'planned-outline';
  whenToUse: string;
  sideEffects: string;
  parameters: CapabilityParameter[];
  responses: Array<{ status: number; description: string; example?: string }>;
}

export interface CapabilityOperationRecord {
  id: string;
  method: string;
  path: string;
  title: string;
  description: string;
  chapter: string;
  chapterOrder: number;
  capability: string;
  owners: string[];
  applications: string[];
  authentication: string;
  exposure: Exposure;
  status: 'implemented' | 'planned';
  parity: string;
  sourceKinds: string[];
  legacySources: Array<Record<string, string>>;
  runtimeSources: Array<Record<string, string>>;
  contract: {
    authority: 'openapi' | 'capability-registry';
    reference: string;
    scope: string;
    idempotency: boolean;
    maturity: Maturity | 'planned';
    documentationStatus: 'implemented-openapi' | 'planned-profiled' | 'planned-outline';
    requestShapeAuthority: string;
    exampleDisclaimer: string;
    uxActions: string[];
    parameters: CapabilityParameter[];
    responses: Array<{ status: number; description: string; example?: string }>;
    notes: string[];
  };
  businessContext: {
    purpose: string;
    whenToUse: string;
    workflowRole: WorkflowRole;
    sideEffects: string;
    businessCases: string[];
    prerequisites: string[];
    agentGuidance: string[];
    relatedApplications: string[];
  };
}

/** A route's workflow role from its method and the kind of route (the last path segment names an action or a resource). */
export function workflowRoleOf(method: string, path: string): WorkflowRole {
  const m = method.toUpperCase();
  if (m === 'GET' || m === 'HEAD') return 'discover-or-read';
  if (m === 'DELETE') return 'revoke-or-delete';
  if (m === 'PUT' || m === 'PATCH') return 'revise';
  const last = path.split('/').pop() ?? '';
  if (/^(cancel|cancel_all|cancel-all|close|retire|revoke|reject|archive|withdraw|disable|unpublish|unschedule|suspend|leave|compliance-cancel|erasure|disqualify)$/.test(last)) return 'revoke-or-delete';
  if (/^(revise|rotate|flags|price-feed|execution-mode|policy|reinstate|governance|screening|rail|treasury|active)$/.test(last)) return 'revise';
  return 'create-or-command';
}

const UX_ACTIONS: Record<WorkflowRole, string[]> = {
  'discover-or-read': ['view'],
  'create-or-command': ['fill-form', 'submit'],
  revise: ['edit', 'submit'],
  'revoke-or-delete': ['confirm', 'submit'],
};

const DEFAULT_SIDE_EFFECTS: Record<WorkflowRole, string> = {
  'discover-or-read': 'None: it reads and changes nothing.',
  'create-or-command': 'Appends events (hash-chained, published to Kafka) and updates the read models they feed.',
  revise: "Appends an event recording the change on the resource's stream; read models follow.",
  'revoke-or-delete': "Appends an event ending or withdrawing the resource on its stream; nothing is erased from the log.",
};

const pointer = (path: string, method: string): string => `/api/v1/openapi.json#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`;

function parametersOf(op: OpenApiOperation, doc: OpenApiDocumentShape): CapabilityParameter[] {
  const out: CapabilityParameter[] = [];
  for (const p of op.parameters ?? []) {
    const resolved = p.$ref ? doc.components?.parameters?.[p.$ref.split('/').pop()!] : p;
    if (!resolved) continue;
    const schema = (resolved as { schema?: { type?: string; $ref?: string; enum?: unknown[]; example?: unknown } }).schema;
    out.push({
      name: resolved.name!,
      location: resolved.in!,
      required: resolved.required === true,
      type: schema?.type ?? (schema?.$ref ? schema.$ref.split('/').pop()! : 'string'),
      description: resolved.description ?? (schema?.enum ? `one of ${schema.enum.join(', ')}` : ''),
      ...(schema?.example !== undefined ? { example: typeof schema.example === 'string' ? schema.example : JSON.stringify(schema.example) } : {}),
    });
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) out.push({ name: 'body', location: 'body', required: op.requestBody?.required === true, type: body.$ref ? body.$ref.split('/').pop()! : (body.type ?? 'object'), description: 'The JSON request body.' });
  return out;
}

function responsesOf(op: OpenApiOperation, doc: OpenApiDocumentShape): Array<{ status: number; description: string }> {
  return Object.entries(op.responses ?? {})
    .filter(([status]) => /^\d{3}$/.test(status))
    .map(([status, r]) => ({ status: Number(status), description: (r.$ref ? doc.components?.responses?.[r.$ref.split('/').pop()!]?.description : r.description) ?? '' }))
    .sort((a, b) => a.status - b.status);
}

export class RegistryError extends Error {}

/** Every operation of the document and of the planned catalogue, ordered by chapter, path and method. */
export function buildCapabilityRegistry(doc: OpenApiDocumentShape, applications: ApplicationDeclaration[], planned: readonly PlannedOperation[]): Record<string, unknown> {
  const byName = new Map(applications.map((a) => [a.name, a]));
  const operations: CapabilityOperationRecord[] = [];
  const problems: string[] = [];
  const live = new Set<string>();
  /** Served routes by shape (parameter names aside): a planned route of the same shape cannot join the route table. */
  const shapes = new Map<string, string>();
  const shapeOf = (method: string, path: string): string => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}')}`;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      live.add(`${method.toUpperCase()} ${path}`);
      shapes.set(shapeOf(method, path), `${method.toUpperCase()} ${path}`);
      const meta = op[CAPABILITY_EXTENSION];
      const appName = op.tags?.[0] ?? '';
      const app = byName.get(appName);
      if (!meta) {
        problems.push(`${method.toUpperCase()} ${path}: no @Capability`);
        continue;
      }
      if (!app) {
        problems.push(`${method.toUpperCase()} ${path}: application ${appName} not declared`);
        continue;
      }
      const context = app.capabilities[meta.name];
      if (!context) {
        problems.push(`${method.toUpperCase()} ${path}: capability ${meta.name} not declared by ${app.name}`);
        continue;
      }
      const role = meta.workflowRole ?? workflowRoleOf(method, path);
      const parameters = parametersOf(op, doc);
      const isPublic = Array.isArray(op.security) && op.security.length === 0;
      const notes: string[] = [];
      if (op[PLATFORM_ADMIN_EXTENSION] === true) notes.push('Platform admins only: anyone else is answered 403 FORBIDDEN before the request is validated.');
      const tenantRoles = op[TENANT_ROLES_EXTENSION];
      if (Array.isArray(tenantRoles)) notes.push(`Tenant roles only (${tenantRoles.join(', ')}; and platform admins): anyone else is answered 403 FORBIDDEN before the request is validated.`);
      if (meta.stepUp) notes.push(`Needs a step-up token of purpose ${meta.stepUp} (POST /api/v1/auth/step-up), issued to the caller's session.`);
      if (parameters.some((p) => p.name === 'Idempotency-Key')) notes.push('Send an Idempotency-Key to make retries safe.');
      if (parameters.some((p) => p.name === 'If-Match')) notes.push('Send the version you act on as If-Match; a stale one is 409 VERSION_CONFLICT.');
      operations.push({
        id: op.operationId ?? `${method}${path}`,
        method: method.toUpperCase(),
        path,
        title: op.summary ?? '',
        description: op.description ?? op.summary ?? '',
        chapter: app.name,
        chapterOrder: app.order,
        capability: meta.name,
        owners: [...app.owners],
        applications: [app.name],
        authentication: meta.authentication ?? (isPublic ? 'none' : 'bearer'),
        exposure: meta.exposure ?? 'public',
        status: 'implemented',
        parity: SEED_PATHS.has(`${method.toUpperCase()} ${path}`) ? 'seed-path' : 'platform-extension',
        sourceKinds: ['openapi'],
        legacySources: [],
        runtimeSources: [{ kind: 'http-route', method: method.toUpperCase(), path }],
        contract: {
          authority: 'openapi',
          reference: pointer(path, method),
          scope: app.name,
          idempotency: method === 'get' || method === 'put' || method === 'delete' || parameters.some((p) => p.name === 'Idempotency-Key'),
          maturity: meta.maturity ?? 'stable',
          documentationStatus: 'implemented-openapi',
          requestShapeAuthority: parameters.some((p) => p.location === 'body') ? 'openapi' : 'none',
          exampleDisclaimer: EXAMPLE_DISCLAIMER,
          uxActions: UX_ACTIONS[role],
          parameters,
          responses: responsesOf(op, doc),
          notes,
        },
        businessContext: {
          purpose: op.summary ?? '',
          whenToUse: meta.whenToUse ?? context.whenToUse,
          workflowRole: role,
          sideEffects: meta.sideEffects ?? (role === 'discover-or-read' ? DEFAULT_SIDE_EFFECTS[role] : (context.sideEffects ?? DEFAULT_SIDE_EFFECTS[role])),
          businessCases: context.businessCases ?? app.businessCases,
          prerequisites: context.prerequisites ?? app.prerequisites,
          agentGuidance: context.agentGuidance ?? app.agentGuidance,
          relatedApplications: [...app.relatedApplications],
        },
      });
    }
  }
  for (const p of planned) {
    const key = `${p.method} ${p.path}`;
    const app = byName.get(p.application);
    if (live.has(key)) problems.push(`${key}: served, but the planned catalogue still lists it (move it to implemented)`);
    else if (shapes.has(shapeOf(p.method, p.path))) problems.push(`${key}: the served ${shapes.get(shapeOf(p.method, p.path))} has the same path (its 404 route cannot sit beside it)`);
    if (!app) {
      problems.push(`${key}: planned in application ${p.application}, which is not declared`);
      continue;
    }
    const role = workflowRoleOf(p.method, p.path);
    operations.push({
      id: p.id, method: p.method, path: p.path, title: p.title, description: p.description, chapter: app.name, chapterOrder: app.order, capability: p.capability, owners: [...app.owners],
      applications: [app.name], authentication: p.authentication, exposure: p.exposure, status: 'planned', parity: 'platform-extension', sourceKinds: ['planned-catalogue'], legacySources: [], runtimeSources: [],
      contract: {
        authority: 'capability-registry', reference: `/api/v1/capabilities#/operations/${p.id}`, scope: app.name, idempotency: p.method !== 'POST', maturity: 'planned', documentationStatus: p.documentationStatus,
        requestShapeAuthority: 'capability-registry', exampleDisclaimer: EXAMPLE_DISCLAIMER, uxActions: UX_ACTIONS[role], parameters: p.parameters, responses: p.responses, notes: ['Planned: not served yet; calling it answers 404 NOT_FOUND, whoever calls.'],
      },
      businessContext: {
        purpose: p.title, whenToUse: p.whenToUse, workflowRole: role, sideEffects: p.sideEffects, businessCases: app.businessCases, prerequisites: app.prerequisites, agentGuidance: app.agentGuidance, relatedApplications: [...app.relatedApplications],
      },
    });
  }
  const ids = new Map<string, number>();
  for (const o of operations) ids.set(o.id, (ids.get(o.id) ?? 0) + 1);
  for (const [id, n] of ids) if (n > 1) problems.push(`operation id ${id} appears ${n} times`);
  if (problems.length > 0) throw new RegistryError(`capability registry: ${problems.join('; ')}`);
  operations.sort((a, b) => a.chapterOrder - b.chapterOrder || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0));

  const implemented = operations.filter((o) => o.status === 'implemented');
  const count = (pred: (o: CapabilityOperationRecord) => boolean): number => operations.filter(pred).length;
  const capabilities = new Map<string, { name: string; chapter: string; chapterOrder: number; operationCount: number }>();
  for (const o of operations) {
    const key = `${o.chapter}/${o.capability}`;
    const c = capabilities.get(key) ?? { name: o.capability, chapter: o.chapter, chapterOrder: o.chapterOrder, operationCount: 0 };
    c.operationCount += 1;
    capabilities.set(key, c);
  }
  // Applications with operations here (a module loaded in another app of this process has none in this document).
  const present = applications.filter((a) => operations.some((o) => o.chapter === a.name));
  const appSummaries = present.map((a) => ({
    name: a.name, group: a.group, description: a.description, purpose: a.purpose, audiences: a.audiences, businessCases: a.businessCases, workflow: a.workflow, prerequisites: a.prerequisites,
    agentGuidance: a.agentGuidance, relatedApplications: a.relatedApplications, order: a.order,
    operationCount: count((o) => o.chapter === a.name), implementedContracts: count((o) => o.chapter === a.name && o.status === 'implemented'), plannedContracts: count((o) => o.chapter === a.name && o.status === 'planned'),
  }));
  return {
    schemaVersion: REGISTRY_SCHEMA_VERSION,
    generatedFrom: {
      v1InventoryOperations: implemented.length,
      systemCatalogGeneratedAt: `openapi-sha256:${createHash('sha256').update(JSON.stringify(doc)).digest('hex')}`,
      explorerSourceContracts: implemented.filter((o) => o.authentication === 'none').length,
      serviceSourceContracts: implemented.filter((o) => o.authentication !== 'none').length,
    },
    summary: {
      v1SourceOperations: count((o) => o.status === 'implemented' && o.path.startsWith('/api/v1/')),
      canonicalPublicOperations: count((o) => o.status === 'implemented' && o.exposure === 'public'),
      internalOnlyOperations: count((o) => o.status === 'implemented' && o.exposure === 'internal'),
      implementedContracts: implemented.length,
      plannedContracts: count((o) => o.status === 'planned'),
      explorerOperations: count((o) => o.status === 'implemented' && o.authentication === 'none'),
      serviceExpansionOperations: count((o) => o.status === 'implemented' && o.parity === 'platform-extension'),
      applicationExpansionOperations: count((o) => o.status === 'implemented' && !CORE_APPLICATIONS.has(o.chapter)),
      capabilities: capabilities.size,
      applications: present.length,
    },
    applications: appSummaries,
    capabilities: [...capabilities.values()].sort((a, b) => a.chapterOrder - b.chapterOrder || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    operations,
    agentIntegration: { ...AGENT_INTEGRATION_PROFILE },
    authenticationProfiles: '/api/v1/auth/profiles',
    openapi: '/api/v1/openapi.json',
  };
}
