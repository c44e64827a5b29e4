/**
 * Access and discovery on every agentic memory route, for each access mode × discovery mode, with real people:
 * the publisher (owner of the publishing workspace), an insider (owner of a selected workspace and an invited
 * principal), an outsider of the same tenant and a person of another tenant. Then the owner edits the allowlist and
 * the invitations, and access follows.
 */
import { startTestApp, type TestApp } from '../support/app';
import { contextObject, M, memoryApi, RATIONALE, type Person } from '../support/agentic-memory';

let t: TestApp;
let owner: Person;
let insider: Person;
let outsider: Person;
let foreigner: Person;
const { call, person, createCollection, publishObjects } = memoryApi(() => t);

const ACCESS = ['OPEN', 'WORKSPACE_ONLY', 'SELECTED_WORKSPACES', 'INVITE_ONLY'] as const;
const DISCOVERY = ['LISTED', 'UNLISTED', 'PRIVATE'] as const;
type Who = 'owner' | 'insider' | 'outsider' | 'foreigner';

function hasAccess(mode: string, who: Who): boolean {
  if (who === 'owner') return true;
  if (who === 'foreigner') return false;
  if (mode === 'OPEN') return true;
  return who === 'insider' && (mode === 'SELECTED_WORKSPACES' || mode === 'INVITE_ONLY');
}

/** What a caller without access gets: 404 where it may not know the collection exists, else 403. */
const denied = (discovery: string, who: Who): number => (who === 'foreigner' || discovery === 'PRIVATE' ? 404 : 403);

beforeAll(async () => {
  t = await startTestApp();
  owner = await person(undefined, 'Publisher');
  insider = await person(undefined, 'Partner');
  outsider = await person(undefined, 'Someone else');
  const tenant = await call('POST', '/api/v1/tenants', outsider.headers, { name: 'Other tenant' });
  expect(tenant.status).toBe(201);
  // Its owner opens it to registrations (by default it takes members by invitation only).
  expect((await call('PUT', `/api/v1/tenants/${tenant.json.tenant_uuid}/join-policy`, outsider.headers, { join_policy: 'OPEN' })).status).toBe(200);
  foreigner = await person(tenant.json.tenant_uuid, 'Foreign');
});
afterAll(() => t.close());

/** Every catalogue page of `who`, concatenated. */
async function catalogue(who: Person, query = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await call('GET', `${M}/collections?limit=200${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, who.headers);
    expect(r.status).toBe(200);
    ids.push(...r.json.response.items.map((c: { collection_uuid: string }) => c.collection_uuid));
    cursor = r.json.response.next_cursor;
  } while (cursor);
  return ids;
}

describe.each(ACCESS.flatMap((a) => DISCOVERY.map((d) => [a, d] as const)))('%s × %s', (access_mode, discovery_mode) => {
  let id: string;
  let slug: string;
  let objectId: string;

  beforeAll(async () => {
    slug = `${access_mode}-${discovery_mode}`.toLowerCase().replace(/_/g, '-');
    const c = await createCollection(owner, {
      slug, access_mode, discovery_mode, selected_workspaces: [insider.workspace], invited_principals: [insider.profile_uuid], capabilities: ['QUERY', 'CLARIFY', 'PROPOSE'],
    });
    id = c.collection_uuid;
    const published = await publishObjects(owner, id, [contextObject()]);
    objectId = published.memories[0].object_uuid;
  });

  it.each(['owner', 'insider', 'outsider', 'foreigner'] as Who[])('reading and filing requests as the %s', async (who) => {
    const caller = { owner, insider, outsider, foreigner }[who];
    const allowed = hasAccess(access_mode, who);
    const routes: Array<[string, 'GET' | 'POST', string, unknown, number]> = [
      ['collection by id', 'GET', `${M}/collections/${id}`, undefined, 200],
      ['collection by slug', 'GET', `${M}/collections/${slug}`, undefined, 200],
      ['an earlier version', 'GET', `${M}/collections/${id}?version=1`, undefined, 200],
      ['manifest', 'GET', `${M}/collections/${id}/manifest`, undefined, 200],
      ['own requests', 'GET', `${M}/collections/${id}/requests`, undefined, 200],
      ['QUERY', 'POST', `${M}/collections/${id}/requests`, { request_type: 'QUERY', question: 'What changed?' }, 202],
      ['CLARIFY', 'POST', `${M}/collections/${slug}/clarifications`, { object_uuid: objectId, question: 'Since when?', agent_action_rationale_commitment: RATIONALE }, 202],
      ['publication', 'POST', `${M}/collections/${id}/publications`, { agent_action_rationale_commitment: RATIONALE, objects: [contextObject()] }, 202],
    ];
    for (const [name, method, url, body, ok] of routes) {
      const r = await call(method, url, caller.headers, body);
      const expected = allowed ? ok : denied(discovery_mode, who);
      expect({ route: name, status: r.status }).toEqual({ route: name, status: expected });
      if (!allowed) expect(r.json.success).toBe(false);
      if (allowed && method === 'GET') expect(r.json.success).toBe(true);
    }
  });

  it.each(['owner', 'insider', 'outsider', 'foreigner'] as Who[])('the publishing workspace’s routes as the %s', async (who) => {
    const caller = { owner, insider, outsider, foreigner }[who];
    const routes: Array<[string, 'GET' | 'POST' | 'PATCH', string, unknown, number]> = [
      ['inbox', 'GET', `${M}/collections/${id}/inbox`, undefined, 200],
      ['objects', 'GET', `${M}/collections/${id}/items`, undefined, 200],
      ['settings', 'PATCH', `${M}/collections/${id}`, { description: 'Still the payments runbook.' }, 200],
      ['add object', 'POST', `${M}/collections/${slug}/items`, contextObject(), 201],
    ];
    for (const [name, method, url, body, ok] of routes) {
      const r = await call(method, url, caller.headers, body);
      const expected = who === 'owner' ? ok : hasAccess(access_mode, who) ? 403 : denied(discovery_mode, who);
      expect({ route: name, status: r.status }).toEqual({ route: name, status: expected });
    }
    if (who === 'owner') {
      const inbox = await call('GET', `${M}/collections/${id}/inbox`, owner.headers);
      const first = inbox.json.response.items[0];
      // Whoever filed it, only the publishing workspace resolves (and never its own request).
      const resolve = await call('POST', `${M}/requests/${first.request.request_uuid}/resolve`, owner.headers, { state: 'ANSWERED', response: 'See the runbook, section 3.' });
      expect(resolve.status).toBe(first.requested_by.reference === owner.profile_uuid ? 403 : 200);
    }
  });

  it('appears in the catalogue of those with access when LISTED, and in its workspace’s listing always', async () => {
    for (const who of ['owner', 'insider', 'outsider', 'foreigner'] as Who[]) {
      const caller = { owner, insider, outsider, foreigner }[who];
      const listed = (await catalogue(caller)).includes(id);
      expect({ who, listed }).toEqual({ who, listed: discovery_mode === 'LISTED' && hasAccess(access_mode, who) });
    }
    expect(await catalogue(owner, `&workspace_uuid=${owner.workspace}`)).toContain(id);
    expect((await call('GET', `${M}/collections?workspace_uuid=${owner.workspace}`, outsider.headers)).status).toBe(404);
  });
});

describe('the owner edits the audience', () => {
  it('SELECTED_WORKSPACES: the allowlist decides, and changes take effect at once', async () => {
    const c = await createCollection(owner, { access_mode: 'SELECTED_WORKSPACES', discovery_mode: 'PRIVATE', selected_workspaces: [] });
    const url = `${M}/collections/${c.collection_uuid}`;
    expect((await call('GET', url, insider.headers)).status).toBe(404);
    const added = await call('PATCH', url, owner.headers, { selected_workspaces: [insider.workspace, outsider.workspace] });
    expect(added.status).toBe(200);
    expect(added.json.meta.audience.selected_workspaces).toEqual([insider.workspace, outsider.workspace]);
    expect((await call('GET', url, insider.headers)).status).toBe(200);
    expect((await call('GET', url, outsider.headers)).status).toBe(200);
    // Readers never see the audience.
    expect((await call('GET', url, insider.headers)).json.meta.audience).toBeUndefined();
    await call('PATCH', url, owner.headers, { selected_workspaces: [outsider.workspace] });
    expect((await call('GET', url, insider.headers)).status).toBe(404);
    expect((await call('GET', url, outsider.headers)).status).toBe(200);
    // Another mode: the allowlist stays kept but no longer grants anything.
    await call('PATCH', url, owner.headers, { access_mode: 'WORKSPACE_ONLY', discovery_mode: 'UNLISTED' });
    expect((await call('GET', url, outsider.headers)).status).toBe(403);
  });

  it('INVITE_ONLY: invited principals only; an invitation withdrawn ends access', async () => {
    const c = await createCollection(owner, { access_mode: 'INVITE_ONLY', discovery_mode: 'LISTED', invited_principals: [insider.profile_uuid] });
    const url = `${M}/collections/${c.collection_uuid}`;
    expect((await call('GET', url, insider.headers)).status).toBe(200);
    expect((await call('GET', url, outsider.headers)).status).toBe(403);
    expect((await catalogue(insider)).includes(c.collection_uuid)).toBe(true);
    await call('PATCH', url, owner.headers, { invited_principals: [outsider.profile_uuid] });
    expect((await call('GET', url, insider.headers)).status).toBe(403);
    expect((await call('GET', url, outsider.headers)).status).toBe(200);
    expect((await catalogue(insider)).includes(c.collection_uuid)).toBe(false);
  });

  it('a requester who lost access still polls its own request', async () => {
    const c = await createCollection(owner, { access_mode: 'INVITE_ONLY', discovery_mode: 'PRIVATE', invited_principals: [insider.profile_uuid] });
    const receipt = await call('POST', `${M}/collections/${c.collection_uuid}/requests`, insider.headers, { request_type: 'QUERY', question: 'Is this current?' });
    expect(receipt.status).toBe(202);
    await call('PATCH', `${M}/collections/${c.collection_uuid}`, owner.headers, { invited_principals: [] });
    expect((await call('GET', `${M}/collections/${c.collection_uuid}`, insider.headers)).status).toBe(404);
    const status = await call('GET', `${M}/requests/${receipt.json.response.request_uuid}`, insider.headers);
    expect(status.status).toBe(200);
    expect(status.json.response.state).toBe('OPEN');
  });
});
