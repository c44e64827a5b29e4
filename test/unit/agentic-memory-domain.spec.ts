/**
 * The agentic memory domain, given/when/then on decide/evolve (no I/O; clock and ids injected), the access rules,
 * content checks, the secret scanner and the manifest body.
 */
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import { grantOf, requireGrant, type AccessSettings, type CallerFacts } from '../../src/modules/agentic-memory/domain/access';
import {
  collectionDecider, EMPTY_COLLECTION_COMMITMENT, MAX_OPEN_REQUESTS_PER_REQUESTER, slugDecider, type CollectionAggregate, type CollectionCommand, type CollectionCore, type CollectionEvent, type MemoryObject,
} from '../../src/modules/agentic-memory/domain/collection';
import { manifestBody, manifestCommitment } from '../../src/modules/agentic-memory/domain/manifest';
import { contentProblems, isPublicRef } from '../../src/modules/agentic-memory/domain/objects';
import { credentialIn, privateMaterialIn } from '../../src/modules/agentic-memory/domain/secrets';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const OWNER = 'd'.repeat(32);
const AGENT = 'e'.repeat(32);
let ids = 0;
const id = (): string => (++ids).toString(16).padStart(32, '0');
const ctx = (now = NOW) => ({ now, newId: id });
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const core = (over: Partial<CollectionCore> = {}): Omit<CollectionCore, 'created'> => ({
  collection_uuid: 'c'.repeat(32), tenant_uuid: '0'.repeat(32), workspace_uuid: 'a'.repeat(32), slug: 'runbook', publisher: { workspace_uuid: 'a'.repeat(32), name: 'Payments' },
  created_by_profile_uuid: OWNER, title: 'Runbook', description: 'd', category: 'ops', access_mode: 'OPEN', discovery_mode: 'LISTED', capabilities: ['QUERY', 'CLARIFY', 'PROPOSE'],
  selected_workspaces: [], invited_principals: [], ...over,
});
const object = (over: Partial<MemoryObject> = {}): MemoryObject => ({
  object_type: 'STATUS', topic: 't', title: 'Batch close moved', summary: 's', classification: 'INTERNAL', confidence: 0.9, content: { state: 'CHANGED' }, source_refs: ['ticket:1'],
  source_memory_commitment: null, ...over,
});
const create = (over: Partial<CollectionCore> = {}): CollectionCommand => ({ kind: 'CreateCollection', core: core(over) });
const add = (object_uuid: string, over: Partial<MemoryObject> = {}): CollectionCommand => ({
  kind: 'AddItem', object_uuid, object: object(over), source_id: 'crm:42', payload: { secret_sauce: 'private notes' }, by: { type: 'profile', reference: OWNER },
});
const approve = (object_uuid: string): CollectionCommand => ({ kind: 'ReviewItem', object_uuid, action: 'APPROVE', by_profile_uuid: OWNER, reason: null });
const publish: CollectionCommand = { kind: 'PublishVersion', by_profile_uuid: OWNER };
const query = (request_uuid: string, by = AGENT): CollectionCommand => ({
  kind: 'FileRequest', request_uuid, request_type: 'QUERY', question: 'When?', priority: 'NORMAL', object_uuid: null, agent_action_rationale_commitment: null, requested_by_profile_uuid: by,
});

/** given commands (decided and folded in order), when a command, then events or an error. */
function given(commands: CollectionCommand[]): CollectionAggregate {
  let state = collectionDecider.initialState();
  for (const c of commands) for (const e of collectionDecider.decide(c, state, ctx())) state = collectionDecider.evolve(state, e);
  return state;
}
const when = (state: CollectionAggregate, c: CollectionCommand): CollectionEvent[] => collectionDecider.decide(c, state, ctx());
const O1 = '1'.repeat(32);
const O2 = '2'.repeat(32);
const O3 = '3'.repeat(32);

describe('collections and versions', () => {
  it('creating publishes version 1, the empty list, committed to as SHA-256 of "[]"', () => {
    const events = when(collectionDecider.initialState(), create({ capabilities: ['PROPOSE', 'QUERY', 'QUERY'] as never }));
    expect(events.map((e) => e.type)).toEqual(['AgenticMemoryCollectionCreated', 'AgenticMemoryVersionPublished']);
    expect(events[1].data).toMatchObject({ version: 1, object_uuids: [], commitment: sha256('[]') });
    expect(EMPTY_COLLECTION_COMMITMENT).toBe(sha256('[]'));
    // Capabilities in the allowlist's order, once each.
    expect((events[0].data as { collection: CollectionCore }).collection.capabilities).toEqual(['QUERY', 'PROPOSE']);
  });

  it('refuses capabilities beyond knowledge', () => {
    expect(() => when(collectionDecider.initialState(), create({ capabilities: ['QUERY', 'TRANSFER'] as never }))).toThrow(/knowledge capabilities only/);
  });

  it('a version commits to the approved projections, sorted, without private provenance', () => {
    const s = given([create(), add(O2), add(O1), add(O3), approve(O2), approve(O1)]);
    const [published] = when(s, publish);
    expect(published.type).toBe('AgenticMemoryVersionPublished');
    const data = published.data as { version: number; object_uuids: string[]; commitment: string; projection_count: number };
    expect(data).toMatchObject({ version: 2, object_uuids: [O1, O2], projection_count: 2 });
    const projections = [O1, O2].map((o) => s.approved.get(o)!);
    expect(data.commitment).toBe(sha256(canonicalize(projections) as string));
    expect(JSON.stringify(projections)).not.toMatch(/crm:42|secret_sauce|source_id|payload|submitted_by/);
  });

  it('publishing nothing new is refused; a withdrawal is something new', () => {
    const s = given([create(), add(O1), approve(O1), publish]);
    expect(() => when(s, publish)).toThrow(/Nothing to publish/);
    const withdrawn = given([create(), add(O1), approve(O1), publish, { kind: 'ReviewItem', object_uuid: O1, action: 'WITHDRAW', by_profile_uuid: OWNER, reason: null }]);
    expect(when(withdrawn, publish)[0].data).toMatchObject({ version: 3, object_uuids: [], commitment: EMPTY_COLLECTION_COMMITMENT });
  });

  it('reviews move objects one way: pending to approved or rejected, approved to withdrawn', () => {
    const s = given([create(), add(O1), approve(O1)]);
    expect(() => when(s, approve(O1))).toThrow(/already APPROVED/);
    expect(() => when(s, { kind: 'ReviewItem', object_uuid: O1, action: 'REJECT', by_profile_uuid: OWNER, reason: null })).toThrow(/already APPROVED/);
    expect(() => when(given([create(), add(O1)]), { kind: 'ReviewItem', object_uuid: O1, action: 'WITHDRAW', by_profile_uuid: OWNER, reason: null })).toThrow(/Only an approved/);
    expect(() => when(s, approve(O2))).toThrow(/No such memory object/);
  });

  it('settings that change nothing decide nothing', () => {
    const s = given([create({ selected_workspaces: ['b'.repeat(32)] })]);
    expect(when(s, { kind: 'UpdateCollection', changes: { title: 'Runbook', selected_workspaces: ['b'.repeat(32), 'b'.repeat(32)] }, by_profile_uuid: OWNER })).toEqual([]);
    expect(when(s, { kind: 'UpdateCollection', changes: { access_mode: 'INVITE_ONLY' }, by_profile_uuid: OWNER })[0].type).toBe('AgenticMemoryCollectionUpdated');
  });

  it('a slug belongs to the first collection claiming it', () => {
    const claim = (collection_uuid: string) => ({ kind: 'ClaimSlug' as const, tenant_uuid: '0'.repeat(32), slug: 'runbook', collection_uuid });
    const [claimed] = slugDecider.decide(claim(O1), slugDecider.initialState(), ctx());
    const s = slugDecider.evolve(slugDecider.initialState(), claimed);
    expect(slugDecider.decide(claim(O1), s, ctx())).toEqual([]);
    expect(() => slugDecider.decide(claim(O2), s, ctx())).toThrow(/taken/);
  });
});

describe('requests and their resolution', () => {
  const R = 'f'.repeat(32);

  it('a request is accepted OPEN; acceptance is not an answer', () => {
    const [accepted] = when(given([create()]), query(R));
    expect(accepted).toMatchObject({ type: 'AgenticMemoryRequestAccepted', data: { request: { state: 'OPEN', resolved: null, response: null, request_type: 'QUERY', requested_by: { reference: AGENT } } } });
  });

  it('only offered capabilities are accepted', () => {
    expect(() => when(given([create({ capabilities: ['CLARIFY'] })]), query(R))).toThrow(/does not accept QUERY/);
  });

  it('CLARIFY must name an object of the published version', () => {
    const clarify = (object_uuid: string): CollectionCommand => ({ ...(query(R) as Extract<CollectionCommand, { kind: 'FileRequest' }>), request_type: 'CLARIFY', object_uuid, agent_action_rationale_commitment: sha256('r') });
    const s = given([create(), add(O1), approve(O1), add(O2), approve(O2), publish, add(O3)]);
    expect(when(s, clarify(O1))[0].data).toMatchObject({ request: { request_type: 'CLARIFY', object_uuid: O1 } });
    expect(() => when(s, clarify(O3))).toThrow(/No memory object/);
  });

  it('resolves once, never by the requester', () => {
    const s = given([create(), query(R)]);
    const resolve = (by: string, state: 'ANSWERED' | 'DISMISSED' = 'ANSWERED'): CollectionCommand => ({ kind: 'ResolveRequest', request_uuid: R, state, response: 'At 16:00.', by_profile_uuid: by });
    expect(() => when(s, resolve(AGENT))).toThrow(/requester cannot resolve/);
    const [resolved] = when(s, resolve(OWNER));
    expect(resolved).toMatchObject({ type: 'AgenticMemoryRequestResolved', data: { state: 'ANSWERED', response: 'At 16:00.', resolved: NOW.toISOString() } });
    const after = given([create(), query(R), resolve(OWNER)]);
    expect(after.requests.get(R)).toMatchObject({ state: 'ANSWERED', resolved: NOW.toISOString(), response: 'At 16:00.' });
    expect(() => when(after, resolve(OWNER, 'DISMISSED'))).toThrow(/already ANSWERED/);
    expect(() => when(after, { ...(resolve(OWNER) as Extract<CollectionCommand, { kind: 'ResolveRequest' }>), request_uuid: O3 })).toThrow(/No such agentic memory request/);
  });

  it('a context publication adds pending objects with its PROPOSE request; dismissing it rejects those still pending', () => {
    const publication: CollectionCommand = {
      kind: 'PublishContext', request_uuid: R, object_uuids: [O1, O2], objects: [object(), object({ object_type: 'TASK', content: { task_state: 'OPEN' } })],
      agent_action_rationale_commitment: sha256('r'), human_approval_commitment: null, requested_by_profile_uuid: AGENT,
    };
    const events = when(given([create()]), publication);
    expect(events.map((e) => e.type)).toEqual(['AgenticMemoryRequestAccepted', 'AgenticMemoryItemAdded', 'AgenticMemoryItemAdded']);
    expect(events[1].data).toMatchObject({ item: { state: 'PENDING', origin: 'AGENT_PUBLICATION', request_uuid: R, submitted_by: { reference: AGENT }, source_id: null } });
    const s = given([create(), publication, approve(O1)]);
    const dismissed = when(s, { kind: 'ResolveRequest', request_uuid: R, state: 'DISMISSED', response: 'No.', by_profile_uuid: OWNER });
    expect(dismissed.map((e) => e.type)).toEqual(['AgenticMemoryRequestResolved', 'AgenticMemoryItemRejected']);
    expect(dismissed[1].data).toMatchObject({ object_uuid: O2 });
    expect(() => when(given([create({ capabilities: ['QUERY'] })]), publication)).toThrow(/does not accept PROPOSE/);
  });
});

describe('access', () => {
  const settings = (over: Partial<AccessSettings> = {}): AccessSettings => ({
    tenant_uuid: 'T', workspace_uuid: 'W', access_mode: 'OPEN', discovery_mode: 'LISTED', selected_workspaces: ['S'], invited_principals: ['P'], ...over,
  });
  const caller = (profile_uuid: string, workspaces: Record<string, string> = {}, tenant_uuid = 'T'): CallerFacts => ({ profile_uuid, tenant_uuid, workspaces: new Map(Object.entries(workspaces)) });

  it.each([
    ['OPEN', caller('X'), 'READ'],
    ['WORKSPACE_ONLY', caller('X'), 'NONE'],
    ['WORKSPACE_ONLY', caller('X', { W: 'OWNER' }), 'MANAGE'],
    ['WORKSPACE_ONLY', caller('X', { W: 'MEMBER' }), 'MEMBER'],
    ['SELECTED_WORKSPACES', caller('X', { S: 'MEMBER' }), 'READ'],
    ['SELECTED_WORKSPACES', caller('P'), 'NONE'],
    ['INVITE_ONLY', caller('P'), 'READ'],
    ['INVITE_ONLY', caller('X', { S: 'OWNER' }), 'NONE'],
    ['OPEN', caller('X', { W: 'OWNER' }, 'OTHER'), 'NONE'],
  ] as const)('%s grants %j: %s', (access_mode, facts, grant) => {
    expect(grantOf(settings({ access_mode }), facts)).toBe(grant);
  });

  it('without access: PRIVATE (and another tenant) is 404, otherwise 403', () => {
    const outsider = caller('X');
    const attempt = (discovery_mode: AccessSettings['discovery_mode'], facts = outsider) => {
      const s = settings({ access_mode: 'WORKSPACE_ONLY', discovery_mode });
      try {
        requireGrant(s, facts, grantOf(s, facts), 'read');
        return 200;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    expect(attempt('LISTED')).toBe(403);
    expect(attempt('UNLISTED')).toBe(403);
    expect(attempt('PRIVATE')).toBe(404);
    expect(attempt('LISTED', caller('X', {}, 'OTHER'))).toBe(404);
    expect(attempt('PRIVATE', caller('X', { W: 'MEMBER' }))).toBe(200);
  });
});

describe('memory content', () => {
  it.each([
    ['STATUS', { state: 'OK', observed_at: '2026-11-22T10:00:00Z' }],
    ['TASK', { task_state: 'BLOCKED', blocked_by: ['ticket:OPS-1', 'a'.repeat(64)] }],
    ['DECISION', { decision: 'Retry later.', alternatives: ['Retry now'], reversible: false }],
    ['EVIDENCE', { claim: 'The bank moved the close.', evidence_kind: 'DOCUMENT' }],
  ])('accepts a %s with its own fields', (type, content) => {
    expect(contentProblems(type, content)).toEqual([]);
  });

  it.each([
    ['an unknown field', 'STATUS', { state: 'OK', colour: 'green' }, 'content.colour'],
    ['a private field', 'STATUS', { state: 'OK', api_key: 'x' }, 'content.api_key'],
    ['a missing required field', 'DECISION', { reversible: true }, 'content.decision'],
    ['a wrong type', 'DECISION', { decision: 'x', reversible: 'yes' }, 'content.reversible'],
    ['a bad timestamp', 'STATUS', { state: 'OK', observed_at: 'yesterday' }, 'content.observed_at'],
    ['a credential in a value', 'EVIDENCE', { claim: 'token hcsu_AAAAAAAAAAAAAAAAAAAA' }, 'content.claim'],
    ['an e-mail address in a value', 'STATUS', { state: 'OK', detail: 'ask ops@bank.example' }, 'content.detail'],
    ['a reference with a query string', 'TASK', { task_state: 'OPEN', blocked_by: ['https://x.example/?t=1'] }, 'content.blocked_by[0]'],
  ])('refuses %s', (_, type, content, field) => {
    expect(contentProblems(type, content).map((p) => p.field)).toContain(field);
  });

  it('source refs are identifiers or commitments, never URLs with user info or queries', () => {
    expect(isPublicRef('ticket:OPS-1042')).toBe(true);
    expect(isPublicRef(`sha256:${'a'.repeat(64)}`)).toBe(true);
    expect(isPublicRef('https://wiki.example/runbooks/payments')).toBe(true);
    expect(isPublicRef('https://user:pw@wiki.example/x')).toBe(false);
    expect(isPublicRef('https://wiki.example/x?token=1')).toBe(false);
    expect(isPublicRef('two words')).toBe(false);
  });
});

describe('the secret scanner', () => {
  it.each([
    ['private key', '-----BEGIN RSA PRIVATE KEY-----'],
    ['platform token', 'hcsu_abcdefghijklmnop'],
    ['platform token', 'hcat_abcdefghijklmnop'],
    ['bearer token', 'Bearer abcdefghijklmnopqrstuv'],
    ['JSON Web Token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXZhbHVl'],
    ['password in a URL', 'amqp://guest:guest@rabbit:5672/'],
    ['AWS access key', 'AKIAIOSFODNN7EXAMPLE'],
    ['AWS secret access key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['Google API key', `AIza${'B'.repeat(35)}`],
    ['GitHub token', `ghp_${'a'.repeat(36)}`],
    ['Slack token', 'xoxp-1234567890-abcdef'],
    ['Stripe key', 'rk_live_abcdefghijklmnop'],
    ['OpenAI or Anthropic API key', `sk-ant-api03-${'x'.repeat(30)}`],
    ['npm token', `npm_${'a'.repeat(36)}`],
    ['credential assignment', 'client_secret: s3cr3t-value'],
    ['hex private key', `private key 0x${'ab'.repeat(32)}`],
  ])('finds a %s', (kind, text) => {
    expect(credentialIn(`see ${text} here`)).toBe(kind);
  });

  it('leaves ordinary text, identifiers and commitments alone; e-mail is private material, not a credential', () => {
    for (const text of ['the password policy', 'The secret: always verify signatures', 'api key: rotation', `commitment ${'a'.repeat(64)}`, `object ${'b'.repeat(32)}`, 'bearer of the notice', 'API key rotation', 'https://docs.example/a/b']) {
      expect(credentialIn(text)).toBeNull();
    }
    expect(credentialIn('ops@bank.example')).toBeNull();
    expect(privateMaterialIn('ops@bank.example')).toBe('e-mail address');
  });
});

describe('the manifest', () => {
  it('grants no authority, lists only offered actions, and commits to itself canonically', () => {
    const s = given([create({ capabilities: ['CLARIFY'] })]);
    const body = manifestBody(s.core!, { version: 1, commitment: EMPTY_COLLECTION_COMMITMENT, projection_count: 0 });
    expect(body.authority).toEqual({ quote: false, contract: false, wallet: false, transaction: false, settlement: false });
    expect(body.delivery.hot_standby_required).toBe(false);
    expect(body.actions.map((a) => a.action)).toEqual(['READ', 'MANIFEST', 'CLARIFY', 'STATUS']);
    expect(manifestCommitment(body)).toBe(sha256(canonicalize(body) as string));
  });
});

describe('room for requests and items', () => {
  const resolve = (request_uuid: string): CollectionCommand => ({ kind: 'ResolveRequest', request_uuid, state: 'DISMISSED', response: 'No.', by_profile_uuid: OWNER });

  it('given one agent at its open-request limit, when it asks again, then it is rate limited while others are not', () => {
    const mine = Array.from({ length: MAX_OPEN_REQUESTS_PER_REQUESTER }, () => query(id()));
    let s = given([create(), ...mine]);
    expect(() => when(s, query(id()))).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    expect(when(s, query(id(), 'f'.repeat(32)))).toHaveLength(1);
    // One of its requests resolved: room again.
    const first = (mine[0] as { request_uuid: string }).request_uuid;
    for (const e of when(s, resolve(first))) s = collectionDecider.evolve(s, e);
    expect(when(s, query(id()))).toHaveLength(1);
  });

  it('given rejected items, when counting room, then only pending and approved items take it', () => {
    let s = given([create(), add(O1), add(O2)]);
    expect(s.live_items).toBe(2);
    for (const e of when(s, { kind: 'ReviewItem', object_uuid: O2, action: 'REJECT', by_profile_uuid: OWNER, reason: 'stale' })) s = collectionDecider.evolve(s, e);
    expect(s.live_items).toBe(1);
    for (const e of when(s, approve(O1))) s = collectionDecider.evolve(s, e);
    expect(s.live_items).toBe(1);
    for (const e of when(s, { kind: 'ReviewItem', object_uuid: O1, action: 'WITHDRAW', by_profile_uuid: OWNER, reason: 'superseded' })) s = collectionDecider.evolve(s, e);
    expect(s.live_items).toBe(0);
  });
});
