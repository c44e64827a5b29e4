/**
 * The inbox is a projection and nothing else: build it through every kind of source flow and inbox command, tamper
 * with its rows, rebuild it from zero with `npm run projections -- rebuild notification-inbox` (the CLI on the
 * stores the server left behind) and get exactly the rows — notifications with their statuses, and the projector's
 * facts — and the pages the API served before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { READ_MODELS } from '../../projections';
import { runProjectionsCli, type CliIo } from '../../src/cli/projections';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from '../support/app';
import { intentBody, policy, walletApi } from '../support/ai-wallets';
import { collectionBody, M } from '../support/agentic-memory';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { FIREFOX, N, notificationApi, SAFARI, type Account } from '../support/notifications';
import { until, type Headers } from '../support/traders';

const MTF = '/api/v1/api/v1/mtf';

describe.each(['sqlite', 'postgres'] as const)('notification-inbox rebuild (%s read models)', (kind) => {
  let t: TestApp;
  const api = notificationApi(() => t);
  const { call } = api;

  async function settle(): Promise<void> {
    const store: EventStore = t.app.get(EVENT_STORE);
    expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 8000)).toBe(true);
  }

  async function place(who: Headers, over: Record<string, unknown>): Promise<string> {
    const r = await call('POST', `${MTF}/orders`, who, { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'cmVidWlsZA', ...over });
    expect(r.status).toBe(201);
    return r.json.response.order_uuid;
  }
  const orderStatus = (who: Headers, id: string) =>
    until(
      async () => (await call('GET', `${MTF}/order_meta?order_uuid=${id}`, who)).json?.response?.order?.status as string | undefined,
      (s) => s === 'OPEN' || s === 'FILLED' || s === 'CANCELLED',
    );

  /** What the API shows each account: every list and filter, all pages. */
  async function pages(accounts: Account[]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const a of accounts) for (const status of [undefined, 'UNREAD', 'READ', 'ARCHIVED']) out.push(await api.all(a.headers, status, 3));
    return out;
  }

  it('builds from every source, rebuilds from zero through the CLI, and gets the same rows and pages', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'inbox-rebuild-'));
    const schema = `t_${hex32().slice(0, 16)}`;
    const env: Record<string, string> = { DATA_DIR: dataDir, ...(kind === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}) };
    try {
      t = await startTestApp(env);

      // Identity: a new device, a failed-sign-in burst, step-ups.
      const ada = await api.account(FIREFOX);
      await api.login(ada.email, ada.password, ada.ip, SAFARI);
      for (let i = 0; i < 5; i++) expect((await call('POST', '/api/v1/auth/sessions', {}, { email: ada.email, password: `Not-The-Password-${i}` }, { ip: api.nextIp() })).status).toBe(401);
      for (let i = 0; i < 3; i++) expect((await call('POST', '/api/v1/auth/step-up', ada.headers, { purpose: 'ACCOUNT_CLOSURE', password: ada.password })).status).toBe(201);

      // Trading: a partial fill, two fills, a cancellation by the platform.
      const alice = await api.account();
      const bob = await api.account();
      const ask = await place(alice.headers, { direction: 'SELL', order_size: '0.020', limit_price: '70000' });
      expect(await orderStatus(alice.headers, ask)).toBe('OPEN');
      await place(bob.headers, { order_size: '0.010', limit_price: '70000' });
      await place(bob.headers, { order_size: '0.010', limit_price: '70000' });
      const market = await place(bob.headers, { market: 'SOL-PERP', order_size: '1', limit_price: null });
      await api.waitFor(alice.headers, (n) => n.type === 'ORDER_FILLED');
      await api.waitFor(bob.headers, (n) => n.reference === market);

      // AI-agent wallets: an approval waiting, a denial.
      const owner = await api.account();
      const ws = await call('POST', '/api/v1/workspaces', owner.headers, { name: 'Treasury' });
      const wallets = walletApi(() => ({ t, owner: owner.headers, workspace: ws.json.workspace_id }));
      const { binding, agent } = await wallets.newBinding(policy());
      const intents = `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`;
      expect((await call('POST', intents, { ...agent, 'idempotency-key': 'rebuild-1' }, intentBody('0.5'))).status).toBe(201);
      expect((await call('POST', intents, { ...agent, 'idempotency-key': 'rebuild-2' }, intentBody('0.5', { asset: 'SOL' }))).json.state).toBe('DENIED');

      // Agentic memory: a request for the publisher, its answer for the requester.
      const collection = (await call('POST', `${M}/collections`, owner.headers, collectionBody(ws.json.workspace_id))).json.response.collection_uuid;
      const request = (await call('POST', `${M}/collections/${collection}/requests`, ada.headers, { request_type: 'QUERY', question: 'Which rails are affected?' })).json.response.request_uuid;
      expect((await call('POST', `${M}/requests/${request}/resolve`, owner.headers, { state: 'ANSWERED', response: 'SEPA only.' })).status).toBe(200);

      // The inbox's own commands.
      await settle();
      const adas = await api.all(ada.headers);
      expect(adas.length).toBeGreaterThanOrEqual(6);
      expect((await call('POST', `${N}/${adas[0].notificationUuid}/read`, ada.headers)).json.status).toBe('READ');
      expect((await call('POST', `${N}/${adas[1].notificationUuid}/archive`, ada.headers)).json.status).toBe('ARCHIVED');
      expect((await call('POST', `${N}/read-all`, alice.headers)).json).toEqual({ unreadCount: 0 });
      expect((await call('POST', `${N}/read-all`, owner.headers)).json).toEqual({ unreadCount: 0 });
      // Arrives after the read-all: stays unread, in the rebuild too.
      expect((await call('POST', '/api/v1/auth/step-up', owner.headers, { purpose: 'ACCOUNT_CLOSURE', password: owner.password })).status).toBe(201);
      await settle();

      const accounts = [ada, alice, bob, owner];
      const before = await api.rows();
      const served = await pages(accounts);
      const types = new Set((before.notifications as Array<{ type: string }>).map((n) => n.type));
      for (const type of ['SECURITY_NEW_DEVICE_SIGN_IN', 'SECURITY_FAILED_SIGN_IN_BURST', 'SECURITY_STEP_UP_ISSUED', 'ORDER_PARTIALLY_FILLED', 'ORDER_FILLED', 'ORDER_CANCELLED_BY_PLATFORM',
        'AI_WALLET_APPROVAL_REQUESTED', 'AI_WALLET_INTENT_DENIED', 'MEMORY_REQUEST_RECEIVED', 'MEMORY_REQUEST_ANSWERED']) expect([type, types.has(type)]).toEqual([type, true]);
      const statuses = new Set((before.notifications as Array<{ status: string }>).map((n) => n.status));
      expect([...statuses].sort()).toEqual(['ARCHIVED', 'READ', 'UNREAD']);
      expect(before.facts.length).toBeGreaterThan(0);

      // Spoil the read model: the rebuild owes nothing to what is there.
      await t.app.get(ReadModelDatabase).transaction(async (tx) => {
        await tx.query("UPDATE notification_inbox SET title = 'tampered', status = 'UNREAD'");
        await tx.query('DELETE FROM notification_inbox_facts');
      });
      await t.close();

      const lines: string[] = [];
      const io: CliIo = { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`), interactive: false };
      expect(await runProjectionsCli(['rebuild', 'notification-inbox'], loadPlatformConfig(env), READ_MODELS, io)).toBe(0);
      expect(lines).toContainEqual(expect.stringMatching(/^rebuilt notification-inbox: \d+ events up to position \d+/));
      expect(lines.filter((l) => l.startsWith('ERR'))).toEqual([]);

      t = await startTestApp(env);
      await settle();
      const after = await api.rows();
      expect(after.notifications).toEqual(before.notifications);
      expect(after.facts).toEqual(before.facts);
      // The same accounts, signed in again, see the same pages.
      const again: Account[] = [];
      for (const a of accounts) again.push({ ...a, ...(await api.login(a.email, a.password, a.ip, a === ada ? FIREFOX : undefined)) });
      await settle();
      expect(await pages(again)).toEqual(served);
    } finally {
      await t?.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
      if (kind === 'postgres') {
        const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
        await ds.initialize();
        await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await ds.destroy();
      }
    }
  });
});
