/**
 * News administration over HTTP on a running app, on SQLite read models (test/e2e/news.spec.ts) and on PostgreSQL
 * (test/integration/news-postgres.spec.ts): the role matrix and tenant boundary, the lifecycle with its versions, the
 * unpublished changes of a published article, the scheduler publishing exactly once after downtime (a clock the test
 * moves), the list's search, filters and pages, and the readers' notifications.
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { NewsPublishSchedule } from '../../src/modules/news/publish-schedule';
import { articleStream } from '../../src/modules/news/domain/article';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp, type TestApp } from './app';
import { hex32 } from './events';
import { openTenant, registerTrader, type Headers } from './traders';

const PASSWORD = 'News-Password-2026';
const NEWS = '/api/v1/admin/news';

interface Reply {
  status: number;
  json: any;
}

export function newsSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let now = new Date('2026-11-25T10:00:00.000Z');
    let t: TestApp;
    let tenant: string;
    let moderator: Headers;
    let admin: Headers;
    let reader: Headers;
    let outsider: Headers;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    async function member(tenant_uuid: string): Promise<{ headers: Headers; profile_uuid: string }> {
      const email = `news-${hex32().slice(0, 10)}@example.com`;
      expect((await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'N', last_name: 'W', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid })).status).toBe(201);
      const [d] = await readMailbox(t.config.dataDir, email);
      expect((await call('POST', '/api/v1/identity/activations', {}, { token: d.token })).status).toBeLessThan(300);
      const headers = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json.access_token}` };
      return { headers, profile_uuid: (await call('GET', '/api/v1/identity/contact', headers)).json.profile_uuid };
    }
    /** A tenant with a moderator, an admin and a reader (each registered into it). */
    async function newsroom(label: string): Promise<{ tenant: string; moderator: Headers; admin: Headers; reader: Headers }> {
      const founder = await registerTrader(t);
      const created = (await call('POST', '/api/v1/tenants', founder, { name: label })).json.tenant_uuid;
      await openTenant(t, founder, created);
      const [m, a, r] = [await member(created), await member(created), await member(created)];
      for (const [who, role_code] of [[m, 'TENANT_MODERATOR'], [a, 'TENANT_ADMIN']] as const) {
        expect((await call('POST', `/api/v1/tenants/${created}/authorities`, founder, { profile_uuid: who.profile_uuid, role_code, reason: 'Runs the tenant news desk' })).status).toBe(201);
      }
      return { tenant: created, moderator: m.headers, admin: a.headers, reader: r.headers };
    }
    const draft = (who: Headers, over: Record<string, unknown> = {}) =>
      call('POST', NEWS, who, { slug: `note-${hex32().slice(0, 6)}`, title: 'Maintenance window', summary: 'Trading pauses for ten minutes.', body: 'On **Sunday** at 02:00 UTC.', ...over });
    const act = (who: Headers, id: string, action: string, body: Record<string, unknown>) => call('POST', `${NEWS}/${id}/${action}`, who, body);
    async function settled(): Promise<void> {
      const store: EventStore = t.app.get(EVENT_STORE);
      expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 8000)).toBe(true);
    }

    beforeAll(async () => {
      t = await startTestApp({ ...env(), NEWS_PUBLISH_SWEEP_MS: '3600000' }, { clock: () => now });
      ({ tenant, moderator, admin, reader } = await newsroom('Daily Co'));
      outsider = (await newsroom('Other Co')).admin;
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('roles: moderators draft and revise, admins publish; a plain member is 403; another tenant\'s admin does not see the article (404)', async () => {
      expect((await call('GET', NEWS, reader)).status).toBe(403);
      expect((await draft(reader)).status).toBe(403);
      const created = await draft(moderator, { notify_readers: true });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({
        article_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), tenant_uuid: tenant, slug: expect.stringMatching(/^note-/), title: 'Maintenance window', summary: 'Trading pauses for ten minutes.',
        status: 'DRAFT', version: 0, author_profile_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), publish_at: null, published_at: null, has_unpublished_changes: false, notify_readers: true,
        created_at: now.toISOString(), updated_at: now.toISOString(), body: 'On **Sunday** at 02:00 UTC.', published: null,
      });
      const id = created.json.article_uuid;
      expect((await act(moderator, id, 'publish', { expected_version: 0 })).status).toBe(403);
      expect((await call('GET', `${NEWS}/${id}`, outsider)).status).toBe(404);
      expect((await act(outsider, id, 'publish', { expected_version: 0 })).status).toBe(404);
      expect((await call('GET', `${NEWS}/${id}`, reader)).status).toBe(403);
      expect((await draft(moderator, { slug: 'Not A Slug', extra: 1 })).json.error.details.map((d: any) => d.field).sort()).toEqual(['extra', 'slug']);
    });

    it('lifecycle: publish with the version read (409 with current_version when stale); revisions of a published article wait unpublished; unpublish, archive', async () => {
      const id = (await draft(moderator)).json.article_uuid;
      const stale = await act(admin, id, 'publish', { expected_version: 3 });
      expect([stale.status, stale.json.error.code, stale.json.error.current_version]).toEqual([409, 'VERSION_CONFLICT', 0]);
      const published = await act(admin, id, 'publish', { expected_version: 0 });
      expect(published.json).toMatchObject({ status: 'PUBLISHED', version: 1, published_at: now.toISOString(), has_unpublished_changes: false, published: { title: 'Maintenance window' } });
      expect((await act(admin, id, 'publish', { expected_version: 1 })).json.error.code).toBe('STATE_CONFLICT');
      const revised = await act(moderator, id, 'revise', { expected_version: 1, title: 'Maintenance window moved' });
      expect(revised.json).toMatchObject({ status: 'PUBLISHED', version: 2, title: 'Maintenance window moved', has_unpublished_changes: true, published: { title: 'Maintenance window' } });
      const again = await act(admin, id, 'publish', { expected_version: 2 });
      expect(again.json).toMatchObject({ version: 3, has_unpublished_changes: false, published: { title: 'Maintenance window moved' } });
      expect((await act(admin, id, 'unschedule', { expected_version: 3 })).json.error.details).toEqual([{ field: 'status', issue: 'PUBLISHED; unscheduled needs SCHEDULED' }]);
      expect((await act(admin, id, 'unpublish', { expected_version: 3 })).json).toMatchObject({ status: 'DRAFT', version: 4, published: null, published_at: null });
      expect((await act(admin, id, 'archive', { expected_version: 4 })).json).toMatchObject({ status: 'ARCHIVED', version: 5 });
      expect((await act(moderator, id, 'revise', { expected_version: 5, title: 'Too late' })).json.error.code).toBe('STATE_CONFLICT');
    });

    it('the scheduler publishes a due article exactly once, at its instant, also after downtime and when two runs race', async () => {
      const id = (await draft(moderator)).json.article_uuid;
      expect((await act(admin, id, 'schedule', { expected_version: 0, publish_at: '2026-11-25T09:00:00Z' })).json.error.details).toEqual([{ field: 'publish_at', issue: 'must be in the future' }]);
      const scheduled = await act(admin, id, 'schedule', { expected_version: 0, publish_at: '2026-11-25T11:00:00Z' });
      expect(scheduled.json).toMatchObject({ status: 'SCHEDULED', version: 1, publish_at: '2026-11-25T11:00:00.000Z' });
      const other = (await draft(moderator)).json.article_uuid;
      expect((await act(admin, other, 'schedule', { expected_version: 0, publish_at: '2026-11-25T11:30:00Z' })).status).toBe(200);
      expect((await act(admin, other, 'unschedule', { expected_version: 1 })).json).toMatchObject({ status: 'DRAFT', publish_at: null });
      const scheduler = t.app.get(NewsPublishSchedule);
      now = new Date('2026-11-25T10:59:59.999Z');
      expect(await scheduler.tick()).toBe(0);
      // Every node was down at 11:00; the next run, hours later, publishes it, at its instant.
      now = new Date('2026-11-25T14:00:00.000Z');
      const [a, b] = await Promise.all([scheduler.publishDue(), scheduler.publishDue()]);
      expect(a + b).toBe(1);
      expect(await scheduler.tick()).toBe(0);
      await settled();
      expect((await call('GET', `${NEWS}/${id}`, admin)).json).toMatchObject({ status: 'PUBLISHED', version: 2, published_at: '2026-11-25T11:00:00.000Z', publish_at: null });
      const events = await t.app.get<EventStore>(EVENT_STORE).readStream(articleStream(id));
      expect(events.filter((e) => e.type === 'NewsArticlePublished').map((e) => e.data.scheduled)).toEqual([true]);
      expect((await call('GET', `${NEWS}/${other}`, admin)).json.status).toBe('DRAFT');
      now = new Date('2026-11-25T10:00:00.000Z');
    });

    it('list: AdminNewsListQuery (no extra fields); q case-insensitive over title, summary and slug; status; pages walk every item once', async () => {
      const room = await newsroom('Search Co');
      const made: string[] = [];
      for (const [slug, title, summary] of [
        ['alpha-one', 'Ünïcode Release', 'First'],
        ['beta-two', 'Fees', 'LOWER fees for makers'],
        ['gamma-three', 'Markets', 'New markets: ETH'],
        ['delta-100', 'Percent 100% off', 'a_b'],
        ['epsilon-five', 'Outage report', 'Resolved'],
      ]) {
        made.push((await draft(room.moderator, { slug, title, summary })).json.article_uuid);
      }
      expect((await act(room.admin, made[1], 'publish', { expected_version: 0 })).status).toBe(200);
      const list = async (qs: string) => (await call('GET', `${NEWS}${qs}`, room.moderator)).json;
      expect((await list('?q=lower')).items.map((i: any) => i.slug)).toEqual(['beta-two']);
      expect((await list('?q=ÜNÏCODE')).items.map((i: any) => i.slug)).toEqual(['alpha-one']);
      expect((await list('?q=GAMMA')).items.map((i: any) => i.slug)).toEqual(['gamma-three']);
      expect((await list('?q=100%25')).items.map((i: any) => i.slug)).toEqual(['delta-100']);
      expect((await list('?q=a_b')).items.map((i: any) => i.slug)).toEqual(['delta-100']);
      expect((await list('?status=PUBLISHED')).items.map((i: any) => i.slug)).toEqual(['beta-two']);
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.limit).toBe(2);
        seen.push(...page.items.map((i: any) => i.article_uuid));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      expect([pages, seen]).toEqual([3, [...made].reverse()]);
      expect(await list('?limit=0')).toEqual({ items: [], limit: 0 });
      const first = await list('?limit=2');
      for (const [qs, field] of [['?limit=201', 'limit'], ['?status=LIVE', 'status'], ['?tenant_uuid=x', 'tenant_uuid'], [`?limit=2&status=DRAFT&cursor=${first.next_cursor}`, 'cursor']]) {
        const r = await call('GET', `${NEWS}${qs}`, room.moderator);
        expect([r.status, r.json.error.details[0].field]).toEqual([400, field]);
      }
      // Another tenant's list does not hold them.
      expect((await call('GET', `${NEWS}?q=alpha`, admin)).json.items).toEqual([]);
    });

    it('an article published with notify_readers reaches every person of its tenant once; none of another tenant', async () => {
      const room = await newsroom('Readers Co');
      const id = (await draft(room.moderator, { notify_readers: true, title: 'New markets', summary: 'ETH and SOL perpetuals from Monday.' })).json.article_uuid;
      expect((await act(room.admin, id, 'publish', { expected_version: 0 })).status).toBe(200);
      await act(room.admin, id, 'revise', { expected_version: 1, summary: 'ETH, SOL and BTC perpetuals from Monday.' });
      await act(room.admin, id, 'publish', { expected_version: 2 });
      const quiet = (await draft(room.moderator, { notify_readers: false })).json.article_uuid;
      await act(room.admin, quiet, 'publish', { expected_version: 0 });
      await settled();
      const inbox = (await call('GET', '/api/v1/notifications', room.reader)).json.items.filter((n: any) => n.source === 'news');
      expect(inbox.map((n: any) => [n.type, n.title, n.message, n.reference])).toEqual([['NEWS_ARTICLE_PUBLISHED', 'New markets', 'ETH and SOL perpetuals from Monday.', id]]);
      expect((await call('GET', '/api/v1/notifications', room.moderator)).json.items.filter((n: any) => n.source === 'news')).toHaveLength(1);
      expect((await call('GET', '/api/v1/notifications', reader)).json.items.filter((n: any) => n.reference === id)).toEqual([]);
    });
  });
}
