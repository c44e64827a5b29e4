/**
 * The capability registry over HTTP: public, the seeds' CapabilityRegistry with exact field names and types (every
 * answer is also checked against the OpenAPI document by the test app), counts that add up, the same bytes and ETag
 * on another node, 304 on If-None-Match, and — the point of it — no disagreement with the server's real route table.
 */
import { ServedOpenApiDocument } from '../../src/platform/http/openapi';
import { startTestApp, type TestApp } from '../support/app';

const INT = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
/** Routes that are not operations of the JSON API: the documentation UI, the OpenAPI document itself, Prometheus text. */
const NOT_OPERATIONS = [/^\/docs/, /^\/api\/v1\/openapi\.json$/, /^\/metrics$/, /^\*$/];

describe('capability registry', () => {
  let t: TestApp;
  let body: any;
  let etag: string;

  beforeAll(async () => {
    t = await startTestApp();
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/capabilities' });
    expect(r.statusCode).toBe(200);
    body = r.json();
    etag = String(r.headers.etag);
  });
  afterAll(async () => t.close());

  it('answers the seeds\' CapabilityRegistry without credentials, every field present and typed', () => {
    expect(body.schemaVersion).toBe(1);
    expect(Object.keys(body.generatedFrom).sort()).toEqual(['explorerSourceContracts', 'serviceSourceContracts', 'systemCatalogGeneratedAt', 'v1InventoryOperations']);
    expect(body.generatedFrom.systemCatalogGeneratedAt).toMatch(/^openapi-sha256:[0-9a-f]{64}$/);
    const summaryKeys = ['v1SourceOperations', 'canonicalPublicOperations', 'internalOnlyOperations', 'implementedContracts', 'plannedContracts', 'explorerOperations', 'serviceExpansionOperations', 'applicationExpansionOperations', 'capabilities', 'applications'];
    expect(Object.keys(body.summary).sort()).toEqual([...summaryKeys].sort());
    for (const k of summaryKeys) expect(INT(body.summary[k])).toBe(true);
    for (const a of body.applications) {
      for (const k of ['name', 'group', 'description', 'purpose']) expect(typeof a[k]).toBe('string');
      for (const k of ['audiences', 'businessCases', 'workflow', 'prerequisites', 'agentGuidance', 'relatedApplications']) expect(Array.isArray(a[k]) && a[k].every((x: unknown) => typeof x === 'string')).toBe(true);
      for (const k of ['order', 'operationCount', 'implementedContracts', 'plannedContracts']) expect(INT(a[k])).toBe(true);
    }
    const place = body.operations.find((o: any) => o.method === 'POST' && o.path === '/api/v1/trading/orders');
    expect(place).toMatchObject({
      id: 'placeCanonicalOrder', chapter: 'trading', capability: 'orders', applications: ['trading'], authentication: 'bearer', exposure: 'public', status: 'implemented', parity: 'platform-extension',
      contract: { authority: 'openapi', reference: '/api/v1/openapi.json#/paths/~1api~1v1~1trading~1orders/post', idempotency: true, documentationStatus: 'implemented-openapi', requestShapeAuthority: 'openapi' },
      businessContext: { workflowRole: 'create-or-command', purpose: 'Place an order (canonical order model).' },
    });
    expect(place.contract.parameters).toEqual(expect.arrayContaining([{ name: 'Idempotency-Key', location: 'header', required: false, type: 'string', description: expect.any(String) }, expect.objectContaining({ name: 'body', location: 'body', type: 'CanonicalOrder' })]));
    expect(place.contract.responses.map((r: any) => r.status)).toEqual(expect.arrayContaining([201, 400, 401, 402, 422]));
    expect(body.operations.find((o: any) => o.path === '/api/v1/api/v1/mtf/orders' && o.method === 'POST').parity).toBe('seed-path');
    const cancelInvoice = body.operations.find((o: any) => o.path === '/api/v1/commerce/invoices/{invoice_uuid}/cancel');
    expect(cancelInvoice.businessContext.workflowRole).toBe('revoke-or-delete');
    expect(cancelInvoice.contract.notes[0]).toContain('COMMERCE_INVOICE_CANCELLATION');
    expect(body.operations.find((o: any) => o.path.endsWith('/quotes')).authentication).toMatch(/^provider-key/);
    expect(body.operations.find((o: any) => o.path === '/api/v1/capabilities')).toMatchObject({ authentication: 'none', businessContext: { workflowRole: 'discover-or-read' } });
    expect(Object.keys(body.agentIntegration).sort()).toEqual(['decimalPolicy', 'errorEnvelope', 'idempotency', 'pagination', 'requestSigning', 'retryPolicy']);
  });

  it('counts that add up: per application, per capability and in the summary', () => {
    const ops: any[] = body.operations;
    const implemented = ops.filter((o) => o.status === 'implemented');
    expect(body.summary.implementedContracts + body.summary.plannedContracts).toBe(ops.length);
    expect(body.summary.implementedContracts).toBe(body.generatedFrom.v1InventoryOperations);
    expect(body.generatedFrom.explorerSourceContracts + body.generatedFrom.serviceSourceContracts).toBe(implemented.length);
    expect(body.summary.explorerOperations).toBe(implemented.filter((o) => o.authentication === 'none').length);
    expect(body.summary.internalOnlyOperations).toBe(2); // the two health probes
    expect(body.summary.serviceExpansionOperations).toBe(implemented.length - 4); // all but the seeds' four MTF paths
    expect(body.applications.reduce((s: number, a: any) => s + a.operationCount, 0)).toBe(ops.length);
    expect(body.capabilities.reduce((s: number, c: any) => s + c.operationCount, 0)).toBe(ops.length);
    expect([body.summary.applications, body.summary.capabilities]).toEqual([body.applications.length, body.capabilities.length]);
    for (const a of body.applications) expect(a.implementedContracts + a.plannedContracts).toBe(a.operationCount);
    const planned = ops.filter((o) => o.status === 'planned');
    expect(planned.length).toBeGreaterThan(0);
    for (const p of planned) expect(p.contract).toMatchObject({ authority: 'capability-registry', documentationStatus: expect.stringMatching(/^planned-(profiled|outline)$/) });
  });

  it('lists exactly the routes the server serves: none missing, none extra, no duplicates', () => {
    const served = t.app.get(ServedOpenApiDocument).routes
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !NOT_OPERATIONS.some((x) => x.test(r.url)))
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
    const listed = body.operations.filter((o: any) => o.status === 'implemented').map((o: any) => `${o.method} ${o.path}`);
    expect(new Set(listed).size).toBe(listed.length);
    expect(new Set(body.operations.map((o: any) => o.id)).size).toBe(body.operations.length);
    expect([...new Set(served)].sort()).toEqual([...listed].sort());
    // a planned operation is not served
    for (const p of body.operations.filter((o: any) => o.status === 'planned')) expect(served).not.toContain(`${p.method} ${p.path}`);
  });

  it('answers the same bytes and ETag on another node of the same build, and 304 to If-None-Match', async () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/capabilities', headers: { 'if-none-match': etag } });
    expect([again.statusCode, again.body, again.headers.etag]).toEqual([304, '', etag]);
    const other = await startTestApp();
    try {
      const r = await other.app.inject({ method: 'GET', url: '/api/v1/capabilities' });
      expect(r.headers.etag).toBe(etag);
      expect(r.body).toBe(JSON.stringify(body));
    } finally {
      await other.close();
    }
  });

  it('lists every way to authenticate as the seeds\' AuthenticationProfile', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/auth/profiles' });
    expect(r.json().profiles.map((p: any) => p.id)).toEqual(['interactive-session', 'price-provider-key', 'step-up', 'workload-client-credentials']);
    expect(r.json().agent_integration).toEqual(body.agentIntegration);
  });
});
