/**
 * Agentic memory on PostgreSQL read models (the production read side), over HTTP on the real app: versions and their
 * commitments, the catalogue's access filter (its SQL runs on PostgreSQL here), the inbox in cursor pages, resolution
 * and context publications — checked in the answers and in the rows the projectors wrote.
 */
import canonicalize from 'canonicalize';
import { DataSource } from 'typeorm';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from '../support/app';
import { contextObject, M, memoryApi, RATIONALE, sha256, type Person } from '../support/agentic-memory';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';

const schema = `t_${hex32().slice(0, 16)}`;
let t: TestApp;
let db: ReadModelDatabase;
let owner: Person;
let partner: Person;
let outsider: Person;
const { call, person, createCollection, publishObjects } = memoryApi(() => t);
const rows = (sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> => db.reader.query(db.sql(sql), params);

beforeAll(async () => {
  t = await startTestApp({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema });
  db = t.app.get(ReadModelDatabase);
  owner = await person(undefined, 'Publisher');
  partner = await person(undefined, 'Partner');
  outsider = await person(undefined, 'Outsider');
});
afterAll(async () => {
  await t?.close();
  const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
  await ds.initialize();
  await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await ds.destroy();
});

it('runs on the PostgreSQL schema of this suite, with the module’s tables', async () => {
  expect(db.isPostgres).toBe(true);
  const tables = (await rows("SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_name LIKE 'agentic_memory%' ORDER BY table_name", [schema])).map((r) => r.table_name);
  expect(tables).toEqual(['agentic_memory_audience', 'agentic_memory_collections', 'agentic_memory_items', 'agentic_memory_requests', 'agentic_memory_versions']);
});

it('publishes versions whose commitments recompute; earlier versions stay readable', async () => {
  const c = await createCollection(owner, { slug: 'pg-runbook' });
  const v2 = await publishObjects(owner, c.collection_uuid, [contextObject(), contextObject({ object_type: 'EVIDENCE', content: { claim: 'Seen in the logs.', evidence_kind: 'LOG_EXCERPT' } })]);
  expect(v2.commitment).toBe(sha256(canonicalize(v2.memories) as string));
  const stored = await rows('SELECT version, commitment FROM agentic_memory_versions WHERE collection_uuid = ? ORDER BY version', [c.collection_uuid]);
  expect(stored).toEqual([{ version: 1, commitment: sha256('[]') }, { version: 2, commitment: v2.commitment }]);
  const old = await call('GET', `${M}/collections/pg-runbook?version=1`, outsider.headers);
  expect(old.json.response).toMatchObject({ version: 1, memories: [] });
});

it('the catalogue shows LISTED collections to those with access only', async () => {
  const open = await createCollection(owner, { access_mode: 'OPEN' });
  const selected = await createCollection(owner, { access_mode: 'SELECTED_WORKSPACES', selected_workspaces: [partner.workspace] });
  const invited = await createCollection(owner, { access_mode: 'INVITE_ONLY', invited_principals: [partner.profile_uuid] });
  const workspaceOnly = await createCollection(owner, { access_mode: 'WORKSPACE_ONLY' });
  const unlisted = await createCollection(owner, { access_mode: 'OPEN', discovery_mode: 'UNLISTED' });
  const ids = async (who: Person) => (await call('GET', `${M}/collections?limit=200`, who.headers)).json.response.items.map((x: { collection_uuid: string }) => x.collection_uuid);
  const forPartner = await ids(partner);
  expect(forPartner).toEqual(expect.arrayContaining([open.collection_uuid, selected.collection_uuid, invited.collection_uuid]));
  expect(forPartner).not.toContain(workspaceOnly.collection_uuid);
  expect(forPartner).not.toContain(unlisted.collection_uuid);
  const forOutsider = await ids(outsider);
  expect(forOutsider).toContain(open.collection_uuid);
  for (const hidden of [selected, invited, workspaceOnly, unlisted]) expect(forOutsider).not.toContain(hidden.collection_uuid);
  expect(await ids(owner)).toEqual(expect.arrayContaining([open.collection_uuid, selected.collection_uuid, invited.collection_uuid, workspaceOnly.collection_uuid]));
  const audience = await rows('SELECT kind, reference FROM agentic_memory_audience WHERE collection_uuid IN (?, ?) ORDER BY kind', [selected.collection_uuid, invited.collection_uuid]);
  expect(audience).toEqual([{ kind: 'PRINCIPAL', reference: partner.profile_uuid }, { kind: 'WORKSPACE', reference: partner.workspace }]);
  // Pages: one at a time, newest first, every one exactly once.
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await call('GET', `${M}/collections?limit=1&workspace_uuid=${owner.workspace}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner.headers);
    seen.push(...r.json.response.items.map((x: { collection_uuid: string }) => x.collection_uuid));
    cursor = r.json.response.next_cursor;
  } while (cursor);
  expect(new Set(seen).size).toBe(seen.length);
  expect(seen.slice(0, 5)).toEqual([unlisted, workspaceOnly, invited, selected, open].map((x) => x.collection_uuid));
});

it('requests: receipts, the inbox in pages, resolution once; publications become pending objects', async () => {
  const c = await createCollection(owner);
  const id = c.collection_uuid;
  const receipts = [];
  for (let i = 0; i < 3; i++) receipts.push((await call('POST', `${M}/collections/${id}/requests`, partner.headers, { request_type: 'QUERY', question: `Question ${i}` })).json.response);
  const publication = await call('POST', `${M}/collections/${id}/publications`, partner.headers, { agent_action_rationale_commitment: RATIONALE, objects: [contextObject()] });
  expect(publication.status).toBe(202);
  const inbox: string[] = [];
  let cursor: string | undefined;
  do {
    const r = await call('GET', `${M}/collections/${id}/inbox?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, owner.headers);
    inbox.push(...r.json.response.items.map((e: { request: { request_uuid: string } }) => e.request.request_uuid));
    cursor = r.json.response.next_cursor;
  } while (cursor);
  expect(inbox).toEqual([...receipts.map((r) => r.request_uuid), publication.json.response.request_uuid]);

  const url = `${M}/requests/${receipts[0].request_uuid}/resolve`;
  expect((await call('POST', url, partner.headers, { state: 'ANSWERED', response: 'Self-answered.' })).status).toBe(403);
  const resolved = await call('POST', url, owner.headers, { state: 'ANSWERED', response: 'At 16:00 UTC.' });
  expect(resolved.json.response).toMatchObject({ state: 'ANSWERED', response: 'At 16:00 UTC.' });
  expect((await call('POST', url, owner.headers, { state: 'DISMISSED', response: 'Again.' })).status).toBe(409);
  expect(await rows('SELECT state FROM agentic_memory_requests WHERE request_uuid = ?', [receipts[0].request_uuid])).toEqual([{ state: 'ANSWERED' }]);
  const pending = await rows("SELECT state FROM agentic_memory_items WHERE collection_uuid = ? AND state = 'PENDING'", [id]);
  expect(pending).toHaveLength(1);
});
