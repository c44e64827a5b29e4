/**
 * Asset collections over HTTP on a running app, on SQLite read models (test/e2e/asset-collections.spec.ts) and on
 * PostgreSQL (test/integration/asset-collections-postgres.spec.ts): registration by platform admins with a metadata
 * hash any client recomputes, the lifecycle, the public listing of ACTIVE collections only, the seeds' limits, search,
 * and offset cursors that walk every item once and refuse other filters.
 */
import { createHash } from 'node:crypto';
import { canonicalize } from './jcs';
import { startTestApp, type TestApp } from './app';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from './traders';

const AC = '/api/v1/asset-collections';

interface Reply {
  status: number;
  json: any;
}

export function assetCollectionsSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let t: TestApp;
    let admin: Headers;
    let person: Headers;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers = {}, payload?: unknown): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    const register = (over: Record<string, unknown> = {}) =>
      call('POST', AC, admin, { name: 'Genesis Keys', description: 'The first keys.', category_code: 'ART', metadata: { edition: 1, artist: 'Ada', tags: ['b', 'a'] }, ...over });
    async function active(over: Record<string, unknown> = {}): Promise<any> {
      const r = await register(over);
      expect(r.status).toBe(201);
      const a = await call('POST', `${AC}/${r.json.collection_uuid}/activate`, admin, { expected_version: 0 });
      expect(a.status).toBe(200);
      return a.json;
    }

    beforeAll(async () => {
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
      admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
      person = await registerTrader(t);
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('platform admins register collections; metadata_hash is the SHA-256 of the RFC 8785 canonical JSON any client recomputes', async () => {
      expect((await call('POST', AC, person, { name: 'X', description: '', category_code: 'ART', metadata: {} })).status).toBe(403);
      expect((await call('POST', AC, {}, { name: 'X', description: '', category_code: 'ART', metadata: {} })).status).toBe(401);
      const bad = await register({ image_uri: 'http://example.com/a.png', metadata: [1], category_code: 'art' });
      expect([bad.status, bad.json.error.details.map((d: any) => d.field).sort()]).toEqual([400, ['category_code', 'image_uri', 'metadata']]);
      const metadata = { z: 1.5, a: { y: 'é', b: [3, 1e21] }, n: null };
      const r = await register({ metadata, image_uri: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi' });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ status: 'DRAFT', version: 0, metadata, image_uri: 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi' });
      const expected = createHash('sha256').update(canonicalize(r.json.metadata)).digest('hex');
      expect(r.json.metadata_hash).toBe(expected);
      expect(canonicalize(metadata)).toBe('{"a":{"b":[3,1e+21],"y":"é"},"n":null,"z":1.5}');
      // A DRAFT is not in the public listing nor readable without an admin's token.
      expect((await call('GET', `${AC}/${r.json.collection_uuid}`)).status).toBe(404);
      expect((await call('GET', `${AC}/${r.json.collection_uuid}`, admin)).json.status).toBe('DRAFT');
      expect((await register({ metadata: { big: 'x'.repeat(17 * 1024) } })).json.error.details).toEqual([{ field: 'metadata', issue: 'at most 16384 bytes as canonical JSON' }]);
    });

    it('lifecycle DRAFT → ACTIVE ⇄ SUSPENDED → RETIRED with versions; only ACTIVE collections are admitted to the listing', async () => {
      const c = await active({ name: 'Lifecycle Set', category_code: 'GAMES' });
      const id = c.collection_uuid;
      expect(c).toMatchObject({ status: 'ACTIVE', version: 1 });
      const listed = async () => (await call('GET', `${AC}?q=lifecycle`)).json.collections.map((x: any) => x.collection_uuid);
      expect(await listed()).toEqual([id]);
      const summary = (await call('GET', `${AC}?q=lifecycle`)).json.collections[0];
      expect(Object.keys(summary).sort()).toEqual(['category_code', 'collection_uuid', 'created_at', 'description', 'metadata_hash', 'name', 'status', 'updated_at']);
      expect((await call('POST', `${AC}/${id}/retire`, admin, { expected_version: 1 })).json.error.details).toEqual([{ field: 'status', issue: 'ACTIVE; retire needs SUSPENDED' }]);
      const stale = await call('POST', `${AC}/${id}/suspend`, admin, { expected_version: 0 });
      expect([stale.status, stale.json.error.current_version]).toEqual([409, 1]);
      expect((await call('POST', `${AC}/${id}/suspend`, person, { expected_version: 1 })).status).toBe(403);
      expect((await call('POST', `${AC}/${id}/suspend`, admin, { expected_version: 1 })).json.status).toBe('SUSPENDED');
      expect(await listed()).toEqual([]);
      expect((await call('GET', `${AC}/${id}`, person)).status).toBe(404);
      expect((await call('GET', `${AC}?q=lifecycle&status=suspended`, admin)).json.collections.map((x: any) => x.status)).toEqual(['SUSPENDED']);
      expect((await call('GET', `${AC}?q=lifecycle&status=Suspended`, person)).json).toEqual({ collections: [], limit: 24, next_cursor: null });
      expect((await call('POST', `${AC}/${id}/reinstate`, admin, { expected_version: 2 })).json.status).toBe('ACTIVE');
      await call('POST', `${AC}/${id}/suspend`, admin, { expected_version: 3 });
      expect((await call('POST', `${AC}/${id}/retire`, admin, { expected_version: 4 })).json).toMatchObject({ status: 'RETIRED', version: 5 });
      expect((await call('POST', `${AC}/${'f'.repeat(32)}/activate`, admin, { expected_version: 0 })).status).toBe(404);
    });

    it('listing: limit 1–200 (default 24); q case-insensitive over name, description and category (≤ 200); offset cursors walk every item once, only with their filters', async () => {
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push((await active({ name: `Walk ${i}`, description: i % 2 ? 'Odd ÉDITION' : 'even', category_code: i < 3 ? 'WALKERS' : 'STROLLERS' })).collection_uuid);
      const get = async (qs: string) => call('GET', `${AC}${qs}`);
      expect((await get('?q=édition')).json.collections.map((c: any) => c.name)).toEqual(['Walk 1', 'Walk 3', 'Walk 5']);
      expect((await get('?q=strollers')).json.collections).toHaveLength(4);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Reply = await get(`?q=walk&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        expect(page.json.limit).toBe(3);
        seen.push(...page.json.collections.map((c: any) => c.collection_uuid));
        cursor = page.json.next_cursor;
        if (cursor) expect(cursor).toMatch(/^offset-\d+\.[0-9a-f]{8}$/);
        pages++;
      } while (cursor);
      expect([pages, seen]).toEqual([3, made]);
      const first = (await get('?q=walk&limit=3')).json;
      expect(first.next_cursor).toMatch(/^offset-3\./);
      for (const [qs, field] of [
        ['?limit=0', 'limit'],
        ['?limit=201', 'limit'],
        [`?q=${'x'.repeat(201)}`, 'q'],
        ['?status=gone', 'status'],
        [`?q=walker&limit=3&cursor=${first.next_cursor}`, 'cursor'],
        [`?q=walk&limit=4&cursor=${first.next_cursor}`, 'cursor'],
        ['?cursor=offset-3', 'cursor'],
      ]) {
        const r = await get(qs);
        expect([qs, r.status, r.json.error.details[0].field]).toEqual([qs, 400, field]);
      }
      expect((await get('?q=walk')).json.limit).toBe(24);
    });
  });
}
