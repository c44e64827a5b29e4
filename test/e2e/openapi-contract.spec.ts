/**
 * The OpenAPI document's structure (issue 20): generated from the code, committed as docs/openapi.json (a review
 * shows every contract change), every path parameter declared, one readable operationId per operation, one module tag
 * each, public routes without the bearer requirement and the bearer scheme not claiming JWT.
 */
import { readFileSync } from 'node:fs';
import { generateOpenApiText, OPENAPI_FILE } from '../../src/cli/openapi';
import { OPENAPI_TAGS } from '../../src/platform/http/openapi';
import { CLOSED_SHAPES } from '../../src/platform/http/validation';
import { registerTrader } from '../support/traders';
import { startTestApp, type TestApp } from '../support/app';

type Operation = {
  operationId: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: object; $ref?: string }>;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: unknown }>;
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/**
 * The fields the seeds declare free-form (any JSON object, or "structured" per its kind): ContextObject's `content`, an
 * agentic memory item's private `payload`, CancelTransferComplianceRequest's `evidence` and CanonicalOrder's
 * `aggregation_meta`. Any other `{type: object}` must say what it holds.
 */
const FREE_FORM = [
  '#/components/schemas/AgenticMemoryItemRequest/properties/content',
  '#/components/schemas/AgenticMemoryItemRequest/properties/payload',
  '#/components/schemas/CancelTransferComplianceRequest/properties/evidence',
  '#/components/schemas/CanonicalOrder/properties/aggregation_meta',
  '#/components/schemas/ContextObject/properties/content',
];

/** Pointers to every schema of the document that is an object with nothing said about its fields (or no type at all as an array's items or a map's values). */
function bareObjects(document: { paths: object; components: { schemas: Record<string, unknown> } }): string[] {
  const found: string[] = [];
  const says = (s: Record<string, unknown>) => ['properties', 'additionalProperties', '$ref', 'allOf', 'oneOf', 'anyOf'].some((k) => s[k] !== undefined);
  const schema = (s: unknown, at: string): void => {
    if (s === null || typeof s !== 'object') return;
    const o = s as Record<string, unknown>;
    if ((o.type === 'object' || (o.type === undefined && !('enum' in o))) && !says(o)) found.push(at);
    for (const [k, v] of Object.entries(o)) {
      if (k === 'properties') for (const [name, p] of Object.entries(v as object)) schema(p, `${at}/properties/${name}`);
      else if (k === 'items' || k === 'additionalProperties' || k === 'not') schema(v, `${at}/${k}`);
      else if (k === 'allOf' || k === 'oneOf' || k === 'anyOf') (v as unknown[]).forEach((x, i) => schema(x, `${at}/${k}/${i}`));
    }
  };
  for (const [name, s] of Object.entries(document.components.schemas)) schema(s, `#/components/schemas/${name}`);
  // Schemas written inline in the operations (parameters, bodies, answers).
  const inline = (node: unknown, at: string): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      const here = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (k === 'schema') schema(v, here);
      else inline(v, here);
    }
  };
  inline(document.paths, '#/paths');
  return found.sort();
}

describe('the OpenAPI document', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>>; security: unknown; info: { license?: { name: string } }; servers: unknown[]; tags: Array<{ name: string; description: string }>; components: { securitySchemes: Record<string, Record<string, string>> } };
  let operations: Array<[string, string, Operation]>;
  beforeAll(async () => {
    t = await startTestApp();
    doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([m, op]) => [path, m, op] as [string, string, Operation]));
  });
  afterAll(async () => t.close());

  it('is committed as docs/openapi.json exactly as the code generates it (npm run openapi)', async () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(await generateOpenApiText());
  }, 60_000);

  it('declares every path parameter of every operation, required, with a schema, and no other', () => {
    const problems: string[] = [];
    for (const [path, method, op] of operations) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const declared = (op.parameters ?? []).filter((p) => p.in === 'path' && !p.$ref);
      for (const name of inPath) if (!declared.some((p) => p.name === name && p.required && p.schema)) problems.push(`${method} ${path}: ${name} not declared`);
      for (const p of declared) if (!inPath.includes(p.name)) problems.push(`${method} ${path}: ${p.name} declared but not in the path`);
    }
    expect(problems).toEqual([]);
    expect(operations.length).toBeGreaterThan(90);
  });

  it('names each operation once, as a method a generated client would call (camelCase)', () => {
    const ids = operations.map(([, , op]) => op.operationId);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(ids).toEqual(expect.arrayContaining(['placeOrder', 'cancelOrders', 'listMarkets', 'getCanonicalOrder', 'listNotifications', 'signIn', 'registerAccount']));
  });

  it('tags every platform operation with its module, each tag described', () => {
    const platform = operations.filter(([path]) => !path.startsWith('/api/v1/test-'));
    expect(platform.filter(([, , op]) => op.tags?.length !== 1 || !(op.tags[0] in OPENAPI_TAGS)).map(([p, m]) => `${m} ${p}`)).toEqual([]);
    for (const tag of doc.tags.filter((x) => x.name in OPENAPI_TAGS)) expect(tag.description).toBe(OPENAPI_TAGS[tag.name]);
  });

  it('requires the bearer token everywhere except on public routes, which say security: []', () => {
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer', description: expect.stringContaining('opaque') });
    const publicIds = operations.filter(([, , op]) => Array.isArray(op.security) && op.security.length === 0).map(([, , op]) => op.operationId);
    expect(publicIds).toEqual(expect.arrayContaining(['registerAccount', 'activateAccount', 'signIn', 'checkLiveness', 'checkReadiness', 'issueWorkloadToken']));
    expect(publicIds).not.toContain('placeOrder');
    // Every operation either inherits the root requirement or opts out with []; only the providers' push route names
    // another scheme (its own key, below).
    expect(operations.filter(([, , op]) => op.security !== undefined && op.security.length > 0).map(([, , op]) => op.operationId)).toEqual(['pushPriceQuotes']);
  });

  it('declares the price providers\' key as an apiKey scheme (header X-Provider-Key) and requires it where quotes are pushed, so a generated client sends it', () => {
    const schemes = doc.components.securitySchemes;
    const named = Object.entries(schemes).filter(([, s]) => s.type === 'apiKey' && s.in === 'header' && s.name === 'X-Provider-Key');
    expect(named.map(([name]) => name)).toEqual(['providerKey']);
    expect(schemes.providerKey.description).toContain('push key');
    const [, , push] = operations.find(([, , op]) => op.operationId === 'pushPriceQuotes')!;
    expect(push.security).toEqual([{ providerKey: [] }]);
    // The scheme carries the header: not declared a second time as a plain parameter (a client would send it twice).
    expect((push.parameters ?? []).filter((p) => p.name?.toLowerCase() === 'x-provider-key')).toEqual([]);
    // Without the key (as without a session) the route answers 401, and the document says so.
    expect(push.responses['401']).toEqual({ $ref: '#/components/responses/Unauthenticated' });
  });

  it('names the arena envelope as the seeds do: every arena answer is ArenaAdminResponse, { success: true, data }', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { required?: string[]; properties?: Record<string, { type?: string; enum?: unknown[]; oneOf?: Array<{ $ref: string }> }> }> } }).components.schemas;
    const envelope = schemas.ArenaAdminResponse;
    expect(envelope).toBeDefined();
    expect(envelope.required?.sort()).toEqual(['data', 'success']);
    expect(Object.keys(envelope.properties ?? {}).sort()).toEqual(['data', 'success']);
    expect(envelope.properties?.success).toMatchObject({ type: 'boolean', enum: [true] });
    // data: the tenant-scoped projection the operation answers (a season, a page of seasons, or a pending command's id).
    expect(envelope.properties?.data.oneOf?.map((s) => s.$ref).sort()).toEqual(['#/components/schemas/ArenaCommandReceipt', '#/components/schemas/ArenaSeason', '#/components/schemas/ArenaSeasonList']);
    const arena = operations.filter(([path]) => path.startsWith('/api/v1/admin/arena'));
    expect(arena.length).toBeGreaterThan(5);
    const refs = arena.flatMap(([, , op]) =>
      Object.entries(op.responses).filter(([status]) => status.startsWith('2')).map(([status, r]) => `${op.operationId} ${status} ${(r.content as { 'application/json': { schema: { $ref: string } } })['application/json'].schema.$ref}`),
    );
    expect(refs.filter((r) => !r.endsWith(' #/components/schemas/ArenaAdminResponse'))).toEqual([]);
    expect(Object.keys(schemas).filter((name) => /^Arena.*Response$/.test(name))).toEqual(['ArenaAdminResponse']);
  });

  it('leaves no schema a bare object: every object has properties, additionalProperties or a $ref, but the free-form fields the seeds declare', () => {
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: object; components: { schemas: Record<string, unknown> } };
    expect(bareObjects(committed)).toEqual(FREE_FORM);
  });

  it('types the combos of a canonical order and the legacy sources of a capability operation', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { required?: string[]; properties: Record<string, { items?: { $ref?: string } }> }> } }).components.schemas;
    for (const name of ['CanonicalOrder', 'PlacedCanonicalOrder', 'CanonicalOrderState']) expect([name, schemas[name].properties.combos.items]).toEqual([name, { $ref: '#/components/schemas/CanonicalOrder' }]);
    expect(schemas.CapabilityOperation.properties.legacySources.items).toEqual({ $ref: '#/components/schemas/LegacyCapabilitySource' });
    const legacy = schemas.LegacyCapabilitySource;
    expect(Object.keys(legacy.properties).sort()).toEqual(['kind', 'method', 'path', 'system']);
    expect(legacy.required?.sort()).toEqual(['kind', 'method', 'path', 'system']);
  });

  it('has a license, a server and no route left out by accident (the Prometheus scrape is not JSON API)', () => {
    expect(doc.info.license).toEqual({ name: 'Proprietary' });
    expect(doc.servers).toEqual([{ url: '/', description: 'This server' }]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });

  it('gives every operation the platform conventions: the error envelope per status, 202 and X-Position on commands, the headers in', () => {
    const problems: string[] = [];
    for (const [path, method, op] of operations) {
      const refs = (op.parameters ?? []).map((p) => p.$ref);
      const name = `${method} ${path}`;
      if (!refs.includes('#/components/parameters/XMinPosition')) problems.push(`${name}: no X-Min-Position`);
      for (const status of ['400', '500', '503', ...(op.security?.length === 0 ? [] : ['401'])]) if (op.responses[status] === undefined) problems.push(`${name}: no ${status}`);
      if (method !== 'get') {
        if (!op.responses['202']) problems.push(`${name}: no 202`);
        for (const [status, r] of Object.entries(op.responses)) if (status.startsWith('2') && !r.headers?.['X-Position']) problems.push(`${name}: ${status} without X-Position`);
      }
    }
    expect(problems).toEqual([]);
    const byId = Object.fromEntries(operations.map(([, , op]) => [op.operationId, op]));
    const idempotency = (id: string) => (byId[id].parameters ?? []).some((p) => p.$ref === '#/components/parameters/IdempotencyKey');
    expect(idempotency('placeOrder')).toBe(true);
    // Answers that carry a secret are never retained, so there the key is not offered.
    expect(idempotency('signIn')).toBe(false);
    expect(idempotency('enrollAuthenticator')).toBe(false);
    const envelope = (doc as unknown as { components: { schemas: Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }> } }).components.schemas.ErrorEnvelope;
    expect(envelope.properties.error.properties.code.enum).toEqual(expect.arrayContaining(['VALIDATION_FAILED', 'NOT_FOUND', 'RULE_VIOLATION', 'IDEMPOTENCY_KEY_REUSED']));
  });

  it('types every success answer of the platform: each 2xx a JSON body of a named schema, so a generated client returns a type, not void', () => {
    // The committed document (the platform's modules, without the suites' test-only routes).
    const committed = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
    const problems: string[] = [];
    let answers = 0;
    for (const item of Object.values(committed.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        for (const [status, r] of Object.entries(op.responses)) {
          if (!status.startsWith('2')) continue;
          answers += 1;
          const ref = (r.content as { 'application/json'?: { schema?: { $ref?: string } } } | undefined)?.['application/json']?.schema?.$ref;
          if (!ref) problems.push(`${op.operationId} ${status}: no JSON schema of a named component`);
          else if (!committed.components.schemas[ref.split('/').pop() as string]) problems.push(`${op.operationId} ${status}: ${ref} is not a component`);
        }
      }
    }
    expect(answers).toBeGreaterThan(140);
    expect(problems).toEqual([]);
  });

  it('closes the shapes the seeds mark "no extra fields" (additionalProperties: false), and the server refuses an unknown field there', async () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { additionalProperties?: unknown }> } }).components.schemas;
    expect(CLOSED_SHAPES.size).toBeGreaterThan(15);
    for (const name of CLOSED_SHAPES) expect([name, schemas[name]?.additionalProperties]).toEqual([name, false]);
    expect(schemas.PlaceMtfOrderRequest.additionalProperties).toBeUndefined(); // not a closed shape in the seeds
    const headers = await registerTrader(t);
    const r = await t.app.inject({ method: 'POST', url: `/api/v1/trading/orders/${'a'.repeat(32)}/cancel`, headers, payload: { venue: 'MTF', note: 'x' } });
    expect(r.statusCode).toBe(400);
    expect(r.json().error.details).toContainEqual({ field: 'note', issue: 'unknown field: this shape allows no extra fields' });
  });
});
