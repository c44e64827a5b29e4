/**
 * The registry builder (pure): given an OpenAPI document with x-capability extensions, applications and a planned
 * catalogue, then the registry — or, when they disagree, a refusal naming every problem: a route without its
 * metadata, a capability its application does not declare, a planned entry that is already served.
 */
import type { ApplicationDeclaration } from '../../src/platform/capabilities/capability';
import { buildCapabilityRegistry, RegistryError, workflowRoleOf, type OpenApiDocumentShape, type PlannedOperation } from '../../src/modules/capabilities/registry';

const app: ApplicationDeclaration = {
  name: 'shop', group: 'Payments', order: 1, owners: ['shop-team'], description: 'A shop.', purpose: 'Sell.', audiences: ['buyers'], businessCases: ['buy'], workflow: ['browse', 'buy'],
  prerequisites: ['an account'], agentGuidance: ['be nice'], relatedApplications: [], capabilities: { carts: { whenToUse: 'To buy things.', sideEffects: 'Reserves stock.' } },
};
const doc = (extra: Record<string, unknown> = {}): OpenApiDocumentShape => ({
  paths: {
    '/api/v1/carts': {
      get: { operationId: 'listCarts', summary: 'Your carts.', tags: ['shop'], security: [], 'x-capability': { name: 'carts' }, responses: { '200': { description: 'The carts.' } } },
      post: {
        operationId: 'createCart', summary: 'Open a cart.', tags: ['shop'], 'x-capability': { name: 'carts', stepUp: 'CART_OPENING' },
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }], requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewCart' } } } },
        responses: { '201': { description: 'Opened.' }, '400': { $ref: '#/components/responses/ValidationFailed' } },
      },
    },
    ...extra,
  } as OpenApiDocumentShape['paths'],
  components: { parameters: { IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, description: 'Retry safely.', schema: { type: 'string' } } }, responses: { ValidationFailed: { description: 'VALIDATION_FAILED' } } },
});
const planned = (over: Partial<PlannedOperation> = {}): PlannedOperation => ({
  id: 'closeCart', method: 'POST', path: '/api/v1/carts/{cart}/close', title: 'Close a cart.', description: 'Later.', application: 'shop', capability: 'carts', authentication: 'bearer', exposure: 'public',
  documentationStatus: 'planned-outline', whenToUse: 'When done.', sideEffects: 'Releases stock.', parameters: [], responses: [{ status: 200, description: 'Closed.' }], ...over,
});

describe('buildCapabilityRegistry', () => {
  it('given routes with their metadata and a planned entry, then operations, counts and contracts as documented', () => {
    const r = buildCapabilityRegistry(doc(), [app], [planned()]) as any;
    expect(r.schemaVersion).toBe(1);
    expect(r.operations.map((o: any) => `${o.status} ${o.method} ${o.path}`)).toEqual(['implemented GET /api/v1/carts', 'implemented POST /api/v1/carts', 'planned POST /api/v1/carts/{cart}/close']);
    const [list, create, close] = r.operations;
    expect(list).toMatchObject({ authentication: 'none', contract: { idempotency: true, requestShapeAuthority: 'none', uxActions: ['view'] }, businessContext: { workflowRole: 'discover-or-read', sideEffects: 'None: it reads and changes nothing.' } });
    expect(create).toMatchObject({
      authentication: 'bearer', owners: ['shop-team'],
      contract: { idempotency: true, requestShapeAuthority: 'openapi', responses: [{ status: 201, description: 'Opened.' }, { status: 400, description: 'VALIDATION_FAILED' }], notes: [expect.stringContaining('CART_OPENING'), expect.stringContaining('Idempotency-Key')] },
      businessContext: { whenToUse: 'To buy things.', sideEffects: 'Reserves stock.', workflowRole: 'create-or-command' },
    });
    expect(create.contract.parameters).toEqual([
      { name: 'Idempotency-Key', location: 'header', required: false, type: 'string', description: 'Retry safely.' },
      { name: 'body', location: 'body', required: true, type: 'NewCart', description: 'The JSON request body.' },
    ]);
    expect(close).toMatchObject({ status: 'planned', runtimeSources: [], contract: { authority: 'capability-registry', documentationStatus: 'planned-outline', maturity: 'planned' }, businessContext: { workflowRole: 'revoke-or-delete' } });
    expect(r.summary).toEqual({
      v1SourceOperations: 2, canonicalPublicOperations: 2, internalOnlyOperations: 0, implementedContracts: 2, plannedContracts: 1, explorerOperations: 1,
      serviceExpansionOperations: 2, applicationExpansionOperations: 2, capabilities: 1, applications: 1,
    });
    expect(r.applications[0]).toMatchObject({ operationCount: 3, implementedContracts: 2, plannedContracts: 1 });
    expect(r.capabilities).toEqual([{ name: 'carts', chapter: 'shop', chapterOrder: 1, operationCount: 3 }]);
  });

  it('is deterministic: the same inputs give the same bytes', () => {
    expect(JSON.stringify(buildCapabilityRegistry(doc(), [app], [planned()]))).toBe(JSON.stringify(buildCapabilityRegistry(doc(), [app], [planned()])));
  });

  it('refuses a route without @Capability, a capability its application does not declare, and an undeclared application', () => {
    const bad = doc({
      '/api/v1/bare': { get: { operationId: 'bare', tags: ['shop'], responses: {} } },
      '/api/v1/odd': { get: { operationId: 'odd', tags: ['shop'], 'x-capability': { name: 'wishlists' }, responses: {} } },
      '/api/v1/stray': { get: { operationId: 'stray', tags: ['elsewhere'], 'x-capability': { name: 'carts' }, responses: {} } },
    });
    expect(() => buildCapabilityRegistry(bad, [app], [])).toThrow(RegistryError);
    expect(() => buildCapabilityRegistry(bad, [app], [])).toThrow(/GET \/api\/v1\/bare: no @Capability.*GET \/api\/v1\/odd: capability wishlists not declared by shop.*GET \/api\/v1\/stray: application elsewhere not declared/);
  });

  it('refuses a planned entry whose route is served (it must move to implemented), and duplicate ids', () => {
    expect(() => buildCapabilityRegistry(doc(), [app], [planned({ method: 'GET', path: '/api/v1/carts', id: 'x' })])).toThrow(/GET \/api\/v1\/carts: served, but the planned catalogue still lists it/);
    expect(() => buildCapabilityRegistry(doc(), [app], [planned({ id: 'listCarts' })])).toThrow(/operation id listCarts appears 2 times/);
  });

  it('refuses a planned entry whose path is a served route\'s with other parameter names (one route table cannot hold both)', () => {
    const served = doc({ '/api/v1/carts/{cart_uuid}': { get: { operationId: 'getCart', summary: 'A cart.', tags: ['shop'], 'x-capability': { name: 'carts' }, responses: { '200': { description: 'The cart.' } } } } });
    expect(() => buildCapabilityRegistry(served, [app], [planned({ method: 'GET', path: '/api/v1/carts/{id}', id: 'peekCart' })])).toThrow(/GET \/api\/v1\/carts\/\{id\}: the served GET \/api\/v1\/carts\/\{cart_uuid\} has the same path/);
    // Another method, or a static segment where the served route has a parameter: both fit beside it.
    expect(() => buildCapabilityRegistry(served, [app], [planned({ method: 'POST', path: '/api/v1/carts/{id}', id: 'postCart' }), planned({ method: 'GET', path: '/api/v1/carts/recent', id: 'recentCarts' })])).not.toThrow();
  });

  it('derives the workflow role from the method and the kind of route', () => {
    expect(['GET /x', 'POST /x', 'POST /x/{id}/cancel', 'POST /x/{id}/revise', 'PUT /x/{id}/policy', 'PATCH /x/{id}', 'DELETE /x/{id}'].map((r) => workflowRoleOf(r.split(' ')[0], r.split(' ')[1]))).toEqual([
      'discover-or-read', 'create-or-command', 'revoke-or-delete', 'revise', 'revise', 'revise', 'revoke-or-delete',
    ]);
  });
});
