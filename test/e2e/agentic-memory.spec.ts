/**
 * Agentic memory over HTTP on the real app: collections, objects and their review, versions with commitments
 * recomputed here (the `canonicalize` package and node:crypto, not the platform's code), the request lifecycle
 * (QUERY, CLARIFY, PROPOSE; durable receipts, the publisher's inbox with cursor pages, status polling, resolution),
 * context publications becoming pending objects, the memory envelope on every answer and the stream's hash chain.
 */
import canonicalize from 'canonicalize';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { startTestApp, type TestApp } from '../support/app';
import { contextObject, M, memoryApi, RATIONALE, sha256, type Person } from '../support/agentic-memory';

let t: TestApp;
let owner: Person;
let agent: Person;
let stranger: Person;
const { call, person, createCollection, publishObjects } = memoryApi(() => t);

/** SHA-256 of the RFC 8785 canonical JSON, computed independently of the platform's serializer. */
const commitmentOf = (value: unknown): string => sha256(canonicalize(value) as string);

const COLLECTION_FIELDS = ['access_mode', 'capabilities', 'category', 'collection_uuid', 'commitment', 'description', 'discovery_mode', 'memories', 'publisher', 'slug', 'title', 'updated', 'version'];
const STATUS_FIELDS = ['collection_uuid', 'created', 'question', 'request_type', 'request_uuid', 'resolved', 'response', 'state'];

/** The memory envelope: success true, a response, meta only as an object; nothing else. */
function envelope(reply: { status: number; json: any }, status = 200): any {
  expect(reply.status).toBe(status);
  expect(reply.json.success).toBe(true);
  for (const key of Object.keys(reply.json)) expect(['success', 'response', 'meta']).toContain(key);
  if (reply.json.meta !== undefined) expect(typeof reply.json.meta).toBe('object');
  return reply.json.response;
}

beforeAll(async () => {
  t = await startTestApp();
  owner = await person(undefined, 'Payments team');
  agent = await person(undefined, 'Agents');
  stranger = await person(undefined, 'Elsewhere');
});
afterAll(() => t.close());

describe('collections, objects and versions', () => {
  it('creates a collection at version 1, the empty list, with the seed fields only', async () => {
    const r = await call('POST', `${M}/collections`, owner.headers, {
      workspace_uuid: owner.workspace, title: 'Settlement notes', description: 'What we know about settlement.', category: 'operations', slug: 'settlement-notes',
      access_mode: 'OPEN', discovery_mode: 'LISTED', capabilities: ['PROPOSE', 'QUERY'],
    });
    const c = envelope(r, 201);
    expect(Object.keys(c).sort()).toEqual(COLLECTION_FIELDS);
    expect(c).toMatchObject({
      title: 'Settlement notes', category: 'operations', slug: 'settlement-notes', version: 1, memories: [], access_mode: 'OPEN', discovery_mode: 'LISTED',
      capabilities: ['QUERY', 'PROPOSE'], publisher: { workspace_uuid: owner.workspace, name: 'Payments team' },
    });
    expect(c.collection_uuid).toMatch(/^[0-9a-f]{32}$/);
    expect(c.commitment).toBe(commitmentOf([]));
    expect(Date.parse(c.updated)).not.toBeNaN();
    expect(r.json.meta).toMatchObject({ projection: 'APPROVED_ONLY', provenance: 'EXCLUDED' });

    const bySlug = envelope(await call('GET', `${M}/collections/settlement-notes`, agent.headers));
    expect(bySlug.collection_uuid).toBe(c.collection_uuid);
    const taken = await call('POST', `${M}/collections`, agent.headers, { workspace_uuid: agent.workspace, title: 'Mine', description: 'd', category: 'x', slug: 'settlement-notes', access_mode: 'OPEN', discovery_mode: 'LISTED', capabilities: [] });
    expect(taken.status).toBe(409);
    expect(taken.json.error.code).toBe('STATE_CONFLICT');
  });

  it('publishes approved projections only, committed to over the canonical list; earlier versions stay readable', async () => {
    const c = await createCollection(owner);
    const id = c.collection_uuid;
    const privateMaterial = { source_id: 'crm:note/8812', payload: { original: 'Internal escalation thread with the bank.' } };
    const a = envelope(await call('POST', `${M}/collections/${id}/items`, owner.headers, { ...contextObject({ title: 'Batch close moved' }), ...privateMaterial }), 201);
    expect(a).toMatchObject({ state: 'PENDING', origin: 'PUBLISHER', source_id: 'crm:note/8812', payload: privateMaterial.payload, collection_uuid: id });
    const b = envelope(await call('POST', `${M}/collections/${id}/items`, owner.headers, contextObject({ object_type: 'DECISION', title: 'Retry after close', content: { decision: 'Retry failed payouts after 16:30 UTC.', reversible: true } })), 201);
    const pending = envelope(await call('POST', `${M}/collections/${id}/items`, owner.headers, contextObject({ title: 'Not reviewed yet' })), 201);

    // Nothing approved yet: version 1 already holds exactly that.
    expect((await call('POST', `${M}/collections/${id}/publish`, owner.headers, {})).status).toBe(409);
    for (const o of [a, b]) expect((await call('POST', `${M}/collections/${id}/items/${o.object_uuid}/approve`, owner.headers, { reason: 'Checked with the bank.' })).status).toBe(200);
    expect((await call('POST', `${M}/collections/${id}/items/${a.object_uuid}/approve`, owner.headers, {})).status).toBe(409);

    const v2 = envelope(await call('POST', `${M}/collections/${id}/publish`, owner.headers, {}));
    expect(v2.version).toBe(2);
    expect(v2.memories.map((m: any) => m.object_uuid)).toEqual([a.object_uuid, b.object_uuid].sort());
    expect(v2.commitment).toMatch(/^[0-9a-f]{64}$/);
    expect(v2.commitment).toBe(commitmentOf(v2.memories));
    const text = JSON.stringify(v2.memories);
    for (const secret of ['crm:note/8812', 'escalation', 'source_id', 'payload', 'request_uuid', 'submitted_by', owner.profile_uuid, pending.object_uuid]) expect(text).not.toContain(secret);
    expect(v2.memories.find((m: any) => m.object_uuid === b.object_uuid)).toMatchObject({ object_type: 'DECISION', origin: 'PUBLISHER', content: { decision: 'Retry failed payouts after 16:30 UTC.', reversible: true } });

    // Withdrawn from the next version; version 2 keeps it.
    envelope(await call('POST', `${M}/collections/${id}/items/${a.object_uuid}/withdraw`, owner.headers, {}));
    const v3 = envelope(await call('POST', `${M}/collections/${id}/publish`, owner.headers, {}));
    expect(v3.version).toBe(3);
    expect(v3.memories.map((m: any) => m.object_uuid)).toEqual([b.object_uuid]);
    expect(v3.commitment).toBe(commitmentOf(v3.memories));
    // Rejected: never in a version, and a rejection is final.
    const rejected = envelope(await call('POST', `${M}/collections/${id}/items/${pending.object_uuid}/reject`, owner.headers, { reason: 'Not confirmed by the bank.' }));
    expect(rejected).toMatchObject({ object_uuid: pending.object_uuid, state: 'REJECTED', review_reason: 'Not confirmed by the bank.', reviewed_by_profile_uuid: owner.profile_uuid });
    expect((await call('POST', `${M}/collections/${id}/items/${pending.object_uuid}/approve`, owner.headers, {})).status).toBe(409);
    expect((await call('POST', `${M}/collections/${id}/publish`, owner.headers, {})).status).toBe(409);
    const old = await call('GET', `${M}/collections/${id}?version=2`, agent.headers);
    expect(envelope(old)).toMatchObject({ version: 2, commitment: v2.commitment, memories: v2.memories });
    expect(old.json.meta.latest_version).toBe(3);
    const first = envelope(await call('GET', `${M}/collections/${id}?version=1`, agent.headers));
    expect(first).toMatchObject({ version: 1, memories: [], commitment: commitmentOf([]) });
    expect((await call('GET', `${M}/collections/${id}?version=9`, agent.headers)).status).toBe(404);
    expect(envelope(await call('GET', `${M}/collections/${id}`, agent.headers))).toMatchObject({ version: 3, commitment: v3.commitment });
  });

  it('only the publishing workspace manages; its object list shows private provenance, to it alone', async () => {
    const c = await createCollection(owner);
    const id = c.collection_uuid;
    await call('POST', `${M}/collections/${id}/items`, owner.headers, { ...contextObject(), source_id: 'wiki:page/77' });
    const list = await call('GET', `${M}/collections/${id}/items?state=PENDING`, owner.headers);
    expect(envelope(list).items[0]).toMatchObject({ source_id: 'wiki:page/77', state: 'PENDING' });
    // OPEN: the agent reads the collection but is no member of the publishing workspace.
    expect((await call('GET', `${M}/collections/${id}/items`, agent.headers)).status).toBe(403);
    expect((await call('POST', `${M}/collections/${id}/items`, agent.headers, contextObject())).status).toBe(403);
    expect((await call('POST', `${M}/collections/${id}/publish`, agent.headers, {})).status).toBe(403);
    expect((await call('PATCH', `${M}/collections/${id}`, agent.headers, { title: 'Hijacked' })).status).toBe(403);
    const created = await call('POST', `${M}/collections`, agent.headers, { workspace_uuid: owner.workspace, title: 't', description: 'd', category: 'c', access_mode: 'OPEN', discovery_mode: 'LISTED', capabilities: [] });
    expect(created.status).toBe(404);
  });

  it('appends every change to the collection stream, whose hash chain verifies', async () => {
    const c = await createCollection(owner);
    await publishObjects(owner, c.collection_uuid, [contextObject()]);
    await call('POST', `${M}/collections/${c.collection_uuid}/requests`, agent.headers, { request_type: 'QUERY', question: 'Does the close move in December too?' });
    // The chain is checked on the log as stored (RAW_EVENT_STORE): a person's question is sealed there.
    const events = await t.app.get<EventStore>(RAW_EVENT_STORE).readStream(`agentic-memory-collection-${c.collection_uuid}`);
    expect(events.map((e) => e.type)).toEqual([
      'AgenticMemoryCollectionCreated', 'AgenticMemoryVersionPublished', 'AgenticMemoryItemAdded', 'AgenticMemoryItemApproved', 'AgenticMemoryVersionPublished', 'AgenticMemoryRequestAccepted',
    ]);
    expect(verifyStreamChain(events)).toBeNull();
    expect(events[0].previous_event_commitment).toBeNull();
    expect(events[0].metadata).toMatchObject({ actor: { type: 'profile', reference: owner.profile_uuid }, workspace_uuid: owner.workspace });
    expect(events[5].metadata).toMatchObject({ actor: { type: 'profile', reference: agent.profile_uuid }, workspace_uuid: owner.workspace });
    expect((events[5].data.request as { question: unknown }).question).toEqual({ $sealed_field: 'request.question' });
    expect(JSON.stringify(events.map((e) => e.data))).not.toContain('Does the close move');
    const opened = await t.app.get<EventStore>(EVENT_STORE).readStream(`agentic-memory-collection-${c.collection_uuid}`);
    expect((opened[5].data.request as { question: unknown }).question).toBe('Does the close move in December too?');
  });
});

describe('the request lifecycle', () => {
  it('QUERY: a durable receipt in state OPEN, the inbox in cursor pages, status polling, one resolution', async () => {
    const c = await createCollection(owner);
    const id = c.collection_uuid;
    const receipts = [];
    for (const question of ['When does the EU batch close?', 'Is the US batch affected?', 'Who approves retries?']) {
      const r = await call('POST', `${M}/collections/${id}/requests`, agent.headers, { request_type: 'QUERY', question, priority: 'HIGH', agent_action_rationale_commitment: RATIONALE });
      const receipt = envelope(r, 202);
      expect(Object.keys(receipt).sort()).toEqual(['collection_uuid', 'request_type', 'request_uuid', 'state']);
      expect(receipt).toMatchObject({ collection_uuid: id, request_type: 'QUERY', state: 'OPEN' });
      expect(receipt.request_uuid).toMatch(/^[0-9a-f]{32}$/);
      receipts.push(receipt);
    }
    const status = envelope(await call('GET', `${M}/requests/${receipts[0].request_uuid}`, agent.headers));
    expect(Object.keys(status).sort()).toEqual(STATUS_FIELDS);
    expect(status).toMatchObject({ state: 'OPEN', question: 'When does the EU batch close?', resolved: null, response: null, request_type: 'QUERY' });

    // The publisher's inbox, oldest first, one a page.
    const seen: any[] = [];
    let cursor: string | undefined;
    do {
      const pageReply = await call('GET', `${M}/collections/${id}/inbox?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner.headers);
      const p = envelope(pageReply);
      seen.push(...p.items);
      cursor = p.next_cursor;
    } while (cursor);
    expect(seen.map((e) => e.request.request_uuid)).toEqual(receipts.map((r) => r.request_uuid));
    expect(seen[0]).toMatchObject({ priority: 'HIGH', agent_action_rationale_commitment: RATIONALE, requested_by: { type: 'profile', reference: agent.profile_uuid }, request: { state: 'OPEN' } });
    expect((await call('GET', `${M}/collections/${id}/inbox?cursor=bm90LWEtY3Vyc29y`, owner.headers)).status).toBe(400);
    // Only the publishing workspace reads the inbox; nobody else sees another's request.
    expect((await call('GET', `${M}/collections/${id}/inbox`, agent.headers)).status).toBe(403);
    expect((await call('GET', `${M}/requests/${receipts[0].request_uuid}`, stranger.headers)).status).toBe(404);

    const url = `${M}/requests/${receipts[0].request_uuid}/resolve`;
    const answer = { state: 'ANSWERED', response: 'The EU batch closes at 16:00 UTC since 2026-11-16.' };
    const byRequester = await call('POST', url, agent.headers, answer);
    expect(byRequester.status).toBe(403);
    expect(byRequester.json.error.code).toBe('FORBIDDEN');
    expect((await call('POST', url, stranger.headers, answer)).status).toBe(404);
    // The owner of another collection resolves nothing here.
    const other = await createCollection(stranger);
    expect(other.collection_uuid).toMatch(/^[0-9a-f]{32}$/);
    expect((await call('POST', url, stranger.headers, answer)).status).toBe(404);

    const resolved = envelope(await call('POST', url, owner.headers, answer));
    expect(resolved).toMatchObject({ state: 'ANSWERED', response: answer.response, request_uuid: receipts[0].request_uuid });
    expect(Date.parse(resolved.resolved)).not.toBeNaN();
    const twice = await call('POST', url, owner.headers, { state: 'DISMISSED', response: 'Again.' });
    expect(twice.status).toBe(409);
    expect(twice.json.error.code).toBe('STATE_CONFLICT');
    expect(envelope(await call('GET', `${M}/requests/${receipts[0].request_uuid}`, agent.headers))).toMatchObject({ state: 'ANSWERED', response: answer.response, resolved: resolved.resolved });

    const dismissed = envelope(await call('POST', `${M}/requests/${receipts[1].request_uuid}/resolve`, owner.headers, { state: 'DISMISSED', response: 'Out of scope for this runbook.' }));
    expect(dismissed).toMatchObject({ state: 'DISMISSED', response: 'Out of scope for this runbook.' });
    const open = envelope(await call('GET', `${M}/collections/${id}/inbox`, owner.headers));
    expect(open.items.map((e: any) => e.request.request_uuid)).toEqual([receipts[2].request_uuid]);
    const answered = envelope(await call('GET', `${M}/collections/${id}/inbox?state=ANSWERED`, owner.headers));
    expect(answered.items[0]).toMatchObject({ request: { state: 'ANSWERED' }, resolved_by_profile_uuid: owner.profile_uuid });
    const mine = envelope(await call('GET', `${M}/collections/${id}/requests`, agent.headers));
    expect(mine.items.map((s: any) => s.request_uuid)).toEqual(receipts.map((r) => r.request_uuid).reverse());
    expect(envelope(await call('GET', `${M}/collections/${id}/requests`, stranger.headers)).items).toEqual([]);
  });

  it('a retried request with the same Idempotency-Key gets the same receipt; the key with another body is refused', async () => {
    const c = await createCollection(owner);
    const url = `${M}/collections/${c.collection_uuid}/requests`;
    const headers = { ...agent.headers, 'idempotency-key': 'ask-once-1' };
    const first = await call('POST', url, headers, { request_type: 'QUERY', question: 'Is the close moving again?' });
    const again = await call('POST', url, headers, { request_type: 'QUERY', question: 'Is the close moving again?' });
    expect(envelope(again, 202)).toEqual(envelope(first, 202));
    expect(again.headers['idempotent-replay']).toBe('true');
    const misuse = await call('POST', url, headers, { request_type: 'QUERY', question: 'Something else?' });
    expect(misuse.status).toBe(409);
    expect(misuse.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(envelope(await call('GET', `${M}/collections/${c.collection_uuid}/inbox`, owner.headers)).items).toHaveLength(1);
  });

  it('a requester of the publishing workspace cannot resolve its own request', async () => {
    const c = await createCollection(owner);
    const receipt = envelope(await call('POST', `${M}/collections/${c.collection_uuid}/requests`, owner.headers, { request_type: 'PROPOSE', question: 'Add the December calendar.' }), 202);
    expect(receipt.request_type).toBe('PROPOSE');
    const r = await call('POST', `${M}/requests/${receipt.request_uuid}/resolve`, owner.headers, { state: 'ANSWERED', response: 'Done.' });
    expect(r.status).toBe(403);
    expect(envelope(await call('GET', `${M}/requests/${receipt.request_uuid}`, owner.headers)).state).toBe('OPEN');
  });

  it('CLARIFY asks about a published object; capabilities decide what a collection accepts', async () => {
    const c = await createCollection(owner, { capabilities: ['CLARIFY'] });
    const id = c.collection_uuid;
    const v2 = await publishObjects(owner, id, [contextObject()]);
    const object_uuid = v2.memories[0].object_uuid;
    const body = { object_uuid, question: 'Does the new close apply on bank holidays?', agent_action_rationale_commitment: RATIONALE, priority: 'LOW' };
    const receipt = envelope(await call('POST', `${M}/collections/${id}/clarifications`, agent.headers, body), 202);
    expect(receipt).toMatchObject({ request_type: 'CLARIFY', state: 'OPEN', collection_uuid: id });
    const inbox = envelope(await call('GET', `${M}/collections/${id}/inbox`, owner.headers));
    expect(inbox.items[0]).toMatchObject({ object_uuid, priority: 'LOW', request: { request_type: 'CLARIFY', question: body.question } });

    const unknown = await call('POST', `${M}/collections/${id}/clarifications`, agent.headers, { ...body, object_uuid: 'f'.repeat(32) });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.details[0].field).toBe('object_uuid');
    // Pending objects are not published: nothing to clarify yet.
    const pending = envelope(await call('POST', `${M}/collections/${id}/items`, owner.headers, contextObject()), 201);
    expect((await call('POST', `${M}/collections/${id}/clarifications`, agent.headers, { ...body, object_uuid: pending.object_uuid })).status).toBe(404);
    const query = await call('POST', `${M}/collections/${id}/requests`, agent.headers, { request_type: 'QUERY', question: 'Anything new?' });
    expect(query.status).toBe(422);
    expect(query.json.error.code).toBe('RULE_VIOLATION');
    const publication = await call('POST', `${M}/collections/${id}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, objects: [contextObject()] });
    expect(publication.status).toBe(422);
  });
});

describe('context publications', () => {
  it('published objects become pending memory objects; approved ones reach the next version, a dismissal rejects the rest', async () => {
    const c = await createCollection(owner);
    const id = c.collection_uuid;
    const objects = [
      contextObject({ object_type: 'TASK', title: 'Update the payout retry job', content: { task_state: 'OPEN', description: 'Move the retry to 16:30 UTC.', blocked_by: ['ticket:OPS-1043'] }, confidence: 0.6 }),
      contextObject({ object_type: 'EVIDENCE', title: 'Bank notice of 2026-11-14', content: { claim: 'The bank moved the close.', evidence_kind: 'DOCUMENT' }, source_memory_commitment: sha256('bank-notice') }),
    ];
    const human_approval_commitment = sha256('approved by the on-call lead');
    const r = await call('POST', `${M}/collections/${id}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, human_approval_commitment, objects });
    const receipt = envelope(r, 202);
    expect(receipt).toMatchObject({ request_type: 'PROPOSE', state: 'OPEN', collection_uuid: id });
    const status = envelope(await call('GET', `${M}/requests/${receipt.request_uuid}`, agent.headers));
    expect(status.question).toContain('Proposes 2 context objects');

    const inbox = envelope(await call('GET', `${M}/collections/${id}/inbox`, owner.headers));
    const entry = inbox.items.find((e: any) => e.request.request_uuid === receipt.request_uuid);
    expect(entry).toMatchObject({ agent_action_rationale_commitment: RATIONALE, human_approval_commitment });
    expect(entry.proposed_object_uuids).toHaveLength(2);
    const items = envelope(await call('GET', `${M}/collections/${id}/items?state=PENDING`, owner.headers)).items;
    expect(items.map((i: any) => i.object_uuid).sort()).toEqual([...entry.proposed_object_uuids].sort());
    expect(items[0]).toMatchObject({ origin: 'AGENT_PUBLICATION', request_uuid: receipt.request_uuid, submitted_by: { type: 'profile', reference: agent.profile_uuid }, source_id: null, payload: null });
    // Pending objects are not in the collection until approved and published.
    expect(envelope(await call('GET', `${M}/collections/${id}`, agent.headers)).memories).toEqual([]);

    const task = items.find((i: any) => i.object_type === 'TASK');
    const evidence = items.find((i: any) => i.object_type === 'EVIDENCE');
    envelope(await call('POST', `${M}/collections/${id}/items/${task.object_uuid}/approve`, owner.headers, {}));
    const v2 = envelope(await call('POST', `${M}/collections/${id}/publish`, owner.headers, {}));
    expect(v2.memories).toHaveLength(1);
    expect(v2.memories[0]).toMatchObject({ object_uuid: task.object_uuid, origin: 'AGENT_PUBLICATION', confidence: 0.6, content: objects[0].content, source_refs: objects[0].source_refs });
    expect(JSON.stringify(v2.memories)).not.toContain(receipt.request_uuid);
    expect(JSON.stringify(v2.memories)).not.toContain(agent.profile_uuid);
    expect(v2.commitment).toBe(commitmentOf(v2.memories));

    envelope(await call('POST', `${M}/requests/${receipt.request_uuid}/resolve`, owner.headers, { state: 'DISMISSED', response: 'The task is taken; the evidence is already filed.' }));
    const after = envelope(await call('GET', `${M}/collections/${id}/items`, owner.headers)).items;
    expect(after.find((i: any) => i.object_uuid === evidence.object_uuid)).toMatchObject({ state: 'REJECTED', review_reason: 'The proposal was dismissed.' });
    expect(after.find((i: any) => i.object_uuid === task.object_uuid).state).toBe('APPROVED');
  });
});
