/**
 * The collection manifest (SERVICE_AGENTIC_MEMORY_MANIFEST_V1) over HTTP, on one app with MEMORY_SIGNING_KEY and one
 * without. The test recomputes both commitments itself (`canonicalize` + node:crypto, not the platform's
 * serializer), verifies the Ed25519 signature twice — Node's crypto.verify with the public key imported as a JWK,
 * and WebCrypto with the raw key — checks that a tampered manifest fails, and follows every endpoint and action the
 * manifest names to see that they are real routes answering the receipt types it promises.
 */
import canonicalize from 'canonicalize';
import { createHash, createPublicKey, generateKeyPairSync, verify, webcrypto } from 'node:crypto';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { startTestApp, type TestApp } from '../support/app';
import { contextObject, M, memoryApi, RATIONALE, sha256, type Person } from '../support/agentic-memory';

/** An Ed25519 key made here: its 32-byte seed is the last 32 bytes of the PKCS #8 DER. */
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const SEED = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32).toString('base64');
const EXPECTED_X = publicKey.export({ format: 'jwk' }).x as string;

const commitmentOf = (value: unknown): string => sha256(canonicalize(value) as string);
const MANIFEST_FIELDS = ['access', 'actions', 'authority', 'capabilities', 'collection', 'delivery', 'endpoints', 'integrity', 'protocol_version', 'schema'];

let signed: TestApp;
let unsigned: TestApp;
let current: TestApp;
const { call, person, createCollection, publishObjects } = memoryApi(() => current);

beforeAll(async () => {
  signed = await startTestApp({ MEMORY_SIGNING_KEY: SEED });
  unsigned = await startTestApp();
});
afterAll(async () => {
  await signed.close();
  await unsigned.close();
});

async function setup(app: TestApp): Promise<{ owner: Person; reader: Person; collection: any; manifest: any }> {
  current = app;
  const owner = await person(undefined, 'Publisher');
  const reader = await person(undefined, 'Reader');
  const c = await createCollection(owner, { slug: `runbook-${Math.random().toString(16).slice(2, 10)}` });
  const collection = await publishObjects(owner, c.collection_uuid, [contextObject(), contextObject({ object_type: 'DECISION', title: 'Retry later', content: { decision: 'Retry after the close.' } })]);
  const r = await call('GET', `${M}/collections/${c.collection_uuid}/manifest`, reader.headers);
  expect(r.status).toBe(200);
  expect(Object.keys(r.json).sort()).toEqual(['response', 'success']);
  expect(r.json.success).toBe(true);
  return { owner, reader, collection, manifest: r.json.response };
}

describe('a signed manifest', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    s = await setup(signed);
  });
  beforeEach(() => {
    current = signed;
  });

  it('has the seed shape: schema, protocol, collection summary, access, capabilities, delivery, no authority', () => {
    const m = s.manifest;
    expect(Object.keys(m).sort()).toEqual(MANIFEST_FIELDS);
    expect(m.schema).toBe('SERVICE_AGENTIC_MEMORY_MANIFEST_V1');
    expect(m.protocol_version).toBe('1.0');
    expect(m.collection).toEqual({
      collection_uuid: s.collection.collection_uuid, slug: s.collection.slug, title: 'Payments runbook', publisher: s.collection.publisher,
      approved_version: 2, commitment: s.collection.commitment, projection_count: 2,
    });
    expect(m.access).toEqual({ audience_mode: 'OPEN', authentication_mechanism: 'BEARER_TOKEN', discovery_policy: 'LISTED' });
    expect(m.capabilities).toEqual(['QUERY', 'CLARIFY', 'PROPOSE']);
    expect(m.authority).toEqual({ quote: false, contract: false, wallet: false, transaction: false, settlement: false });
    expect(m.delivery).toMatchObject({ polling: { method: 'GET', endpoint: '/api/v1/agentic-memory/requests/{request_uuid}' }, durable_inbox: { endpoint: m.endpoints.inbox }, hot_standby_required: false });
  });

  it('commits to the collection and to itself; both recompute here', () => {
    const { integrity, ...body } = s.manifest;
    expect(integrity.collection_commitment).toBe(s.collection.commitment);
    expect(integrity.collection_commitment).toBe(commitmentOf(s.collection.memories));
    expect(integrity.manifest_commitment).toBe(commitmentOf(body));
  });

  it('carries an Ed25519 signature over the manifest commitment that verifies with the public key it names', async () => {
    const { integrity } = s.manifest;
    expect(integrity).toMatchObject({ signature_state: 'SIGNED', algorithm: 'Ed25519', public_key: EXPECTED_X, signed_payload: 'manifest_commitment' });
    // key_id: the RFC 7638 thumbprint of the public JWK, computed here.
    expect(integrity.key_id).toBe(createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${EXPECTED_X}"}`).digest('base64url'));
    const message = Buffer.from(integrity.manifest_commitment, 'ascii');
    const signature = Buffer.from(integrity.signature, 'base64url');
    expect(signature).toHaveLength(64);
    const jwk = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: integrity.public_key }, format: 'jwk' });
    expect(verify(null, message, jwk, signature)).toBe(true);
    const raw = await webcrypto.subtle.importKey('raw', Buffer.from(integrity.public_key, 'base64url'), { name: 'Ed25519' }, false, ['verify']);
    expect(await webcrypto.subtle.verify({ name: 'Ed25519' }, raw, signature, message)).toBe(true);

    // Any change to the manifest changes its commitment, and the signature no longer covers it.
    const tampered = { ...s.manifest, authority: { ...s.manifest.authority, wallet: true } };
    const { integrity: _i, ...tamperedBody } = tampered;
    expect(verify(null, Buffer.from(commitmentOf(tamperedBody), 'ascii'), jwk, signature)).toBe(false);
  });

  it('names real endpoints and actions that answer the receipt types it promises', async () => {
    const m = s.manifest;
    const id = s.collection.collection_uuid;
    expect(m.endpoints).toMatchObject({
      collection: `${M}/collections/${id}`, manifest: `${M}/collections/${id}/manifest`, status: `${M}/requests/{request_uuid}`, inbox: `${M}/collections/${id}/inbox`,
      human: `${M}/collections/${s.collection.slug}`,
    });
    for (const key of ['human', 'collection', 'manifest']) expect((await call('GET', m.endpoints[key], s.reader.headers)).status).toBe(200);
    expect((await call('GET', m.endpoints.inbox, s.owner.headers)).status).toBe(200);

    const bodies: Record<string, unknown> = {
      ClarificationRequest: { object_uuid: s.collection.memories[0].object_uuid, question: 'Since when?', agent_action_rationale_commitment: RATIONALE },
      ContextPublication: { agent_action_rationale_commitment: RATIONALE, objects: [contextObject()] },
    };
    const receiptFields: Record<string, string[]> = {
      AgenticMemoryRequestReceipt: ['collection_uuid', 'request_type', 'request_uuid', 'state'],
      AgenticMemoryRequestStatus: ['collection_uuid', 'created', 'question', 'request_type', 'request_uuid', 'resolved', 'response', 'state'],
      AgenticMemoryCollectionResponse: ['access_mode', 'capabilities', 'category', 'collection_uuid', 'commitment', 'description', 'discovery_mode', 'memories', 'publisher', 'slug', 'title', 'updated', 'version'],
      AgenticMemoryManifest: MANIFEST_FIELDS,
    };
    expect(m.actions.map((a: { action: string }) => a.action)).toEqual(['READ', 'MANIFEST', 'QUERY', 'CLARIFY', 'PROPOSE', 'PUBLISH_CONTEXT', 'STATUS']);
    let request_uuid = '';
    for (const action of m.actions) {
      expect(Object.keys(action).sort()).toEqual(['action', 'body_shape', 'endpoint', 'method', 'receipt_type']);
      let endpoint: string = action.endpoint;
      let body: unknown;
      if (action.body_shape) {
        expect(action.body_shape.extra_fields).toBe(false);
        body = action.body_shape.schema === 'AgenticMemoryQueryRequest' ? { ...action.body_shape.fixed, question: 'What changed?' } : bodies[action.body_shape.schema];
        for (const field of action.body_shape.required) expect(Object.keys(body as object)).toContain(field);
      }
      if (endpoint.includes('{request_uuid}')) endpoint = endpoint.replace('{request_uuid}', request_uuid);
      const r = await call(action.method, endpoint, s.reader.headers, body);
      expect({ action: action.action, status: r.status }).toEqual({ action: action.action, status: action.method === 'POST' ? 202 : 200 });
      expect(Object.keys(r.json.response).sort()).toEqual(receiptFields[action.receipt_type]);
      if (action.receipt_type === 'AgenticMemoryRequestReceipt') request_uuid = r.json.response.request_uuid;
    }
  });

  it('follows the collection: new settings make a new manifest commitment and signature; an earlier version keeps its own', async () => {
    const id = s.collection.collection_uuid;
    const before = s.manifest.integrity;
    await call('PATCH', `${M}/collections/${id}`, s.owner.headers, { capabilities: ['QUERY'] });
    const changed = (await call('GET', `${M}/collections/${id}/manifest`, s.reader.headers)).json.response;
    expect(changed.capabilities).toEqual(['QUERY']);
    expect(changed.actions.map((a: { action: string }) => a.action)).toEqual(['READ', 'MANIFEST', 'QUERY', 'STATUS']);
    expect(changed.integrity.manifest_commitment).not.toBe(before.manifest_commitment);
    expect(changed.integrity.collection_commitment).toBe(before.collection_commitment);
    const { integrity, ...body } = changed;
    expect(integrity.manifest_commitment).toBe(commitmentOf(body));
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: integrity.public_key }, format: 'jwk' });
    expect(verify(null, Buffer.from(integrity.manifest_commitment, 'ascii'), key, Buffer.from(integrity.signature, 'base64url'))).toBe(true);

    const v1 = (await call('GET', `${M}/collections/${id}/manifest?version=1`, s.reader.headers)).json.response;
    expect(v1.collection).toMatchObject({ approved_version: 1, projection_count: 0, commitment: commitmentOf([]) });
    expect(v1.integrity.collection_commitment).toBe(commitmentOf([]));
  });
});

describe('an unsigned manifest', () => {
  it('says so, and still carries both commitments', async () => {
    const s = await setup(unsigned);
    const { integrity, ...body } = s.manifest;
    expect(integrity).toEqual({ collection_commitment: commitmentOf(s.collection.memories), manifest_commitment: commitmentOf(body), signature_state: 'UNSIGNED' });
    expect(s.manifest.authority).toEqual({ quote: false, contract: false, wallet: false, transaction: false, settlement: false });
  });
});

describe('MEMORY_SIGNING_KEY', () => {
  it('is validated at start: base64 of a 32-byte Ed25519 seed', () => {
    expect(() => loadPlatformConfig({ MEMORY_SIGNING_KEY: 'not-a-key' })).toThrow(/MEMORY_SIGNING_KEY/);
    expect(() => loadPlatformConfig({ MEMORY_SIGNING_KEY: Buffer.alloc(16).toString('base64') })).toThrow(/MEMORY_SIGNING_KEY/);
    expect(loadPlatformConfig({ MEMORY_SIGNING_KEY: SEED }).memorySigningKey).toBe(SEED);
    expect(loadPlatformConfig({ MEMORY_SIGNING_KEY: '' }).memorySigningKey).toBeUndefined();
  });
});
