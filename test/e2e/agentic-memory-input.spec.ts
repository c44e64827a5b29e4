/**
 * Bad input for every agentic memory request shape over HTTP: an extra field, a wrong type, a missing field and
 * secret-looking text are each a 400 VALIDATION_FAILED in the platform's error envelope naming the field (never
 * echoing the secret), and nothing is written. Ordinary text that merely talks about credentials passes.
 */
import { startTestApp, type TestApp } from '../support/app';
import { collectionBody, contextObject, M, memoryApi, RATIONALE, sha256, type Person } from '../support/agentic-memory';
import type { Headers } from '../support/traders';

let t: TestApp;
let owner: Person;
let agent: Person;
let collection: string;
let objectId: string;
const { call, person, createCollection, publishObjects } = memoryApi(() => t);

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
/** Credentials of common shapes, each inside ordinary words. */
const SECRETS: Array<[string, string]> = [
  ['a step-up token', `retry with hcsu_${'Q7x'.repeat(14)}A`],
  ['a session token', `my session is hcs_${'Rt5'.repeat(14)}b`],
  ['a contact-change token', `confirm with hcct_${'Wq2'.repeat(14)}c`],
  ['an activation token', `activation hcat_${'k2P'.repeat(14)}z`],
  ['a workload token', `agent token hcwt_${'Zz9'.repeat(14)}q`],
  ['a workload client secret', `client secret hcws_${'m4N'.repeat(14)}w`],
  ['a bearer token', 'call it with Authorization: Bearer 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c'],
  ['a JWT', `the session is ${JWT}`],
  ['a private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'],
  ['an AWS access key', 'the deploy key is AKIAIOSFODNN7EXAMPLE'],
  ['a password in a URL', 'connect to postgres://payments:hunter2-prod@db.internal:5432/ledger'],
  ['a GitHub token', `ghp_${'a1B2c3D4e5'.repeat(4)}`],
  ['an OpenAI key', `OPENAI_API_KEY sk-proj-${'Xy7'.repeat(15)}`],
  ['a Slack token', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'],
  ['a Stripe key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
  ['a password assignment', 'password=Tr0ub4dor&3-horse'],
];

function refused(reply: { status: number; json: any }, field: string, secret?: string): void {
  expect(reply.status).toBe(400);
  expect(reply.json.success).toBe(false);
  expect(reply.json.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
  expect(reply.json.error.request_id).toEqual(expect.any(String));
  const fields = reply.json.error.details.map((d: { field: string }) => d.field);
  expect(fields.some((f: string) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`))).toBe(true);
  if (secret) expect(JSON.stringify(reply.json)).not.toContain(secret.split(' ').pop());
}

interface Shape {
  name: string;
  method: 'POST' | 'PATCH';
  url: () => Promise<string>;
  who: () => Headers;
  valid: () => Record<string, any>;
  ok: number;
  /** A required field to leave out (none for shapes whose fields are all optional). */
  missing: string | null;
  wrongType: [string, unknown];
  /** Where a secret goes: a top-level text field, or a nested one through `put`. */
  secretField: string;
  put?: (body: Record<string, any>, secret: string) => void;
}

let requestCounter = 0;
async function openRequest(): Promise<string> {
  const r = await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'QUERY', question: `Question ${++requestCounter}` });
  return r.json.response.request_uuid;
}
let pendingObject = '';

const SHAPES: Shape[] = [
  {
    name: 'AgenticMemoryCollectionRequest', method: 'POST', url: async () => `${M}/collections`, who: () => owner.headers, ok: 201,
    valid: () => collectionBody(owner.workspace), missing: 'title', wrongType: ['capabilities', 'QUERY'], secretField: 'description',
  },
  {
    name: 'AgenticMemoryCollectionUpdate', method: 'PATCH', url: async () => `${M}/collections/${collection}`, who: () => owner.headers, ok: 200,
    valid: () => ({ title: 'Payments runbook (2026)' }), missing: null, wrongType: ['selected_workspaces', 'a'.repeat(32)], secretField: 'title',
  },
  {
    name: 'AgenticMemoryItemRequest', method: 'POST', url: async () => `${M}/collections/${collection}/items`, who: () => owner.headers, ok: 201,
    valid: () => ({ ...contextObject(), source_id: 'wiki:page/1' }), missing: 'summary', wrongType: ['confidence', '0.5'], secretField: 'payload',
    put: (b, s) => (b.payload = { notes: [s] }),
  },
  {
    name: 'ReviewItemRequest', method: 'POST', url: async () => `${M}/collections/${collection}/items/${pendingObject}/approve`, who: () => owner.headers, ok: 200,
    valid: () => ({ reason: 'Checked.' }), missing: null, wrongType: ['reason', 5], secretField: 'reason',
  },
  {
    name: 'AgenticMemoryQueryRequest', method: 'POST', url: async () => `${M}/collections/${collection}/requests`, who: () => agent.headers, ok: 202,
    valid: () => ({ request_type: 'QUERY', question: 'When does the batch close?', priority: 'NORMAL' }), missing: 'question', wrongType: ['question', ['When?']], secretField: 'question',
  },
  {
    name: 'ClarificationRequest', method: 'POST', url: async () => `${M}/collections/${collection}/clarifications`, who: () => agent.headers, ok: 202,
    valid: () => ({ object_uuid: objectId, question: 'Since when?', agent_action_rationale_commitment: RATIONALE }), missing: 'agent_action_rationale_commitment',
    wrongType: ['object_uuid', 123], secretField: 'question',
  },
  {
    name: 'ContextPublication', method: 'POST', url: async () => `${M}/collections/${collection}/publications`, who: () => agent.headers, ok: 202,
    valid: () => ({ agent_action_rationale_commitment: RATIONALE, objects: [contextObject()] }), missing: 'objects', wrongType: ['objects', { object_type: 'STATUS' }],
    secretField: 'objects', put: (b, s) => (b.objects[0].content.detail = s),
  },
  {
    name: 'ResolveMemoryRequest', method: 'POST', url: async () => `${M}/requests/${await openRequest()}/resolve`, who: () => owner.headers, ok: 200,
    valid: () => ({ state: 'ANSWERED', response: 'At 16:00 UTC.' }), missing: 'response', wrongType: ['state', true], secretField: 'response',
  },
];

async function writes(): Promise<string> {
  const c = await call('GET', `${M}/collections/${collection}`, owner.headers);
  const items = await call('GET', `${M}/collections/${collection}/items?limit=200`, owner.headers);
  const inbox = await call('GET', `${M}/collections/${collection}/inbox?limit=200`, owner.headers);
  const listing = await call('GET', `${M}/collections?workspace_uuid=${owner.workspace}&limit=200`, owner.headers);
  return JSON.stringify([c.json, items.json, inbox.json.response.items.length, listing.json.response.items.length]);
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await person(undefined, 'Publisher');
  agent = await person(undefined, 'Agent');
  collection = (await createCollection(owner, { slug: 'input-checks' })).collection_uuid;
  objectId = (await publishObjects(owner, collection, [contextObject()])).memories[0].object_uuid;
  pendingObject = (await call('POST', `${M}/collections/${collection}/items`, owner.headers, contextObject({ title: 'Awaiting review' }))).json.response.object_uuid;
});
afterAll(() => t.close());

describe('partial updates', () => {
  it('refuse null for every settings field (absent means unchanged; null is not a value any of them takes)', async () => {
    const url = `${M}/collections/${collection}`;
    const before = await writes();
    for (const field of ['title', 'description', 'category', 'access_mode', 'discovery_mode', 'capabilities', 'selected_workspaces', 'invited_principals']) {
      refused(await call('PATCH', url, owner.headers, { [field]: null }), field);
    }
    expect(await writes()).toBe(before);
    // The read model kept up: a valid change after them is projected and read back.
    const ok = await call('PATCH', url, owner.headers, { category: 'runbooks' });
    expect(ok.status).toBe(200);
    expect(ok.json.response.category).toBe('runbooks');
  });
});

describe.each(SHAPES)('$name', (shape) => {
  it('refuses an extra field, a wrong type, a missing field and secret-looking text, writing nothing', async () => {
    const url = await shape.url();
    const before = await writes();
    refused(await call(shape.method, url, shape.who(), { ...shape.valid(), unexpected_field: 'x' }), 'unexpected_field');
    const [field, value] = shape.wrongType;
    refused(await call(shape.method, url, shape.who(), { ...shape.valid(), [field]: value }), field);
    if (shape.missing) {
      const body = shape.valid();
      delete body[shape.missing];
      refused(await call(shape.method, url, shape.who(), body), shape.missing);
    }
    for (const [, secret] of SECRETS.slice(0, 4)) {
      const body = shape.valid();
      if (shape.put) shape.put(body, secret);
      else body[shape.secretField] = secret;
      const reply = await call(shape.method, url, shape.who(), body);
      refused(reply, shape.secretField, secret);
      expect(JSON.stringify(reply.json.error.details)).toContain('credential');
    }
    expect(await writes()).toBe(before);
    // The same body without the problem goes through: the refusals were about the one change each.
    expect((await call(shape.method, url, shape.who(), shape.valid())).status).toBe(shape.ok);
  });
});

describe('secret-looking text', () => {
  it.each(SECRETS)('refuses a question holding %s, naming the kind, never echoing it', async (_, secret) => {
    const reply = await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'QUERY', question: `Please check: ${secret}` });
    refused(reply, 'question', secret);
    expect(reply.json.error.details[0].issue).toMatch(/looks like a credential or private data \(.+\)/);
  });

  it.each(SECRETS)('refuses a title holding %s', async (_, secret) => {
    refused(await call('POST', `${M}/collections/${collection}/items`, owner.headers, contextObject({ title: secret.slice(0, 200) })), 'title', secret);
  });

  it('refuses private material from agents: an e-mail address in a question or in content', async () => {
    refused(await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'QUERY', question: 'Is jane.doe@example.com the approver?' }), 'question');
    refused(
      await call('POST', `${M}/collections/${collection}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, objects: [contextObject({ summary: 'Ask ops@bank.example for the notice.' })] }),
      'objects',
    );
  });

  it('lets ordinary text through: words about credentials, identifiers and commitments', async () => {
    const texts = [
      'Does the password policy apply to service accounts?',
      `Is commitment ${sha256('x')} the one of version 2?`,
      `Object ${objectId} says the bearer of the notice is the bank.`,
      'Which API key rotation schedule applies (not the key itself)?',
    ];
    for (const question of texts) expect((await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'QUERY', question })).status).toBe(202);
  });
});

describe('context objects', () => {
  const publish = (object: Record<string, unknown>, over: Record<string, unknown> = {}) =>
    call('POST', `${M}/collections/${collection}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, objects: [object], ...over });

  it.each([
    ['an object type outside the allowlist', { object_type: 'CREDENTIAL' }, 'objects[0].object_type'],
    ['RESTRICTED material', { classification: 'RESTRICTED' }, 'objects[0].classification'],
    ['a confidence above 1', { confidence: 1.5 }, 'objects[0].confidence'],
    ['a confidence as a string', { confidence: '0.5' }, 'objects[0].confidence'],
    ['an unknown content field', { content: { state: 'OK', mood: 'good' } }, 'objects[0].content'],
    ['a private content field', { content: { state: 'OK', password: 'x' } }, 'objects[0].content'],
    ['content missing its required field', { content: { detail: 'no state' } }, 'objects[0].content'],
    ['content of another object type', { object_type: 'TASK', content: { state: 'OK' } }, 'objects[0].content'],
    ['an invalid task state', { object_type: 'TASK', content: { task_state: 'MAYBE' } }, 'objects[0].content'],
    ['content that is not an object', { content: ['state'] }, 'objects[0].content'],
    ['a source ref with a query string', { source_refs: ['https://wiki.example/page?token=abc'] }, 'objects[0].source_refs'],
    ['a source ref with user info', { source_refs: ['https://ops@wiki.example/page'] }, 'objects[0].source_refs'],
    ['a source memory commitment in cleartext', { source_memory_commitment: 'the runbook of March' }, 'objects[0].source_memory_commitment'],
    ['an extra field in an object', { severity: 'HIGH' }, 'objects[0].severity'],
  ])('refuses %s', async (_, over, field) => {
    refused(await publish(contextObject(over)), field);
  });

  it('refuses a cleartext rationale, a cleartext approval and an empty publication', async () => {
    refused(await publish(contextObject(), { agent_action_rationale_commitment: 'because the deploy changed' }), 'agent_action_rationale_commitment');
    refused(await publish(contextObject(), { agent_action_rationale_commitment: RATIONALE.toUpperCase() }), 'agent_action_rationale_commitment');
    refused(await publish(contextObject(), { human_approval_commitment: 'approved by Jane' }), 'human_approval_commitment');
    refused(await call('POST', `${M}/collections/${collection}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, objects: [] }), 'objects');
  });

  it.each([
    ['a JSON array body', 'requests', []],
    ['a null question', 'requests', { request_type: 'QUERY', question: null }],
    ['a lone surrogate', 'requests', { request_type: 'QUERY', question: 'broken \ud800 text' }],
    ['a NUL character', 'requests', { request_type: 'QUERY', question: 'nul \u0000 here' }],
    ['a null object', 'publications', { agent_action_rationale_commitment: RATIONALE, objects: [null] }],
    ['a string object', 'publications', { agent_action_rationale_commitment: RATIONALE, objects: ['STATUS'] }],
    ['a __proto__ key in content', 'publications', { agent_action_rationale_commitment: RATIONALE, objects: [contextObject({ content: JSON.parse('{"state":"OK","__proto__":{"x":1}}') })] }],
    ['numbers as source refs', 'publications', { agent_action_rationale_commitment: RATIONALE, objects: [contextObject({ source_refs: [1, 2] })] }],
    ['deeply nested content', 'publications', { agent_action_rationale_commitment: RATIONALE, objects: [contextObject({ content: { state: 'OK', detail: JSON.parse('['.repeat(200) + ']'.repeat(200)) } })] }],
  ])('answers %s with a 400, never a 500', async (_, route, body) => {
    const r = await call('POST', `${M}/collections/${collection}/${route}`, agent.headers, body);
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses knowledge capabilities it does not know, and bad path ids, without a 500', async () => {
    refused(await call('POST', `${M}/collections`, owner.headers, collectionBody(owner.workspace, { capabilities: ['QUERY', 'TRANSFER'] })), 'capabilities');
    refused(await call('POST', `${M}/collections`, owner.headers, collectionBody(owner.workspace, { slug: 'a'.repeat(32).replace(/a/g, 'b') })), 'slug');
    expect((await call('POST', `${M}/collections/NOT_A_SLUG!/requests`, agent.headers, { request_type: 'QUERY', question: 'x' })).status).toBe(400);
    expect((await call('POST', `${M}/requests/xyz/resolve`, owner.headers, { state: 'ANSWERED', response: 'x' })).status).toBe(400);
    expect((await call('GET', `${M}/collections/${collection}?version=0`, owner.headers)).status).toBe(400);
    expect((await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'CLARIFY', question: 'x' })).status).toBe(400);
  });
});
