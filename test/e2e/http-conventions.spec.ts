/**
 * PLATFORM.md section 4 end to end, over the real application (Fastify, Nest, SQLite stores) with the test-only
 * ledger module: envelopes, validation, idempotency, pagination, read-your-writes, request ids, docs, health,
 * metrics and log redaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { Logger } from 'nestjs-pino';
import { createRequestContext, runWithContext } from '../../src/platform/context/request-context';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';

describe('HTTP conventions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ BODY_LIMIT_BYTES: '4096', MIN_POSITION_TIMEOUT_MS: '100' });
  });
  afterAll(async () => t.close());

  const post = (url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload: payload as object, headers });
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const openLedger = async (owner = 'ada'): Promise<string> => {
    const r = await post('/api/v1/test-ledgers', { owner });
    expect(r.statusCode).toBe(201);
    return r.json().ledger_id;
  };
  const store = (): EventStore => t.app.get(EVENT_STORE);

  function expectEnvelope(body: unknown, code: string): void {
    expect(body).toMatchObject({ success: false, error: { code, message: expect.any(String), request_id: expect.any(String), retryable: expect.any(Boolean), details: expect.any(Array) } });
  }

  describe('commands', () => {
    it('answers with X-Position and X-Request-Id, and a read right after sees the write', async () => {
      const id = await openLedger();
      const credit = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '250' }, { 'x-request-id': 'client-req-0001' });
      expect(credit.statusCode).toBe(200);
      expect(credit.headers['x-request-id']).toBe('client-req-0001');
      expect(credit.headers['x-position']).toMatch(/^\d+$/);
      expect(credit.json()).toEqual({ ledger_id: id, owner: 'ada', balance: '250', version: 1 });

      const read = await get(`/api/v1/test-ledgers/${id}`);
      expect(read.statusCode).toBe(200);
      expect(read.json()).toMatchObject({ balance: '250', version: 1 });
      expect(read.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);

      const [event] = await store().readStream(`test-ledger-${id}`, { fromRevision: 1n });
      expect(event.type).toBe('LedgerCredited');
      expect(event.metadata.request_id).toBe('client-req-0001');
      expect(event.position.toString()).toBe(credit.headers['x-position']);
    });

    it('reports a stale expected_version as 409 VERSION_CONFLICT with the current version', async () => {
      const id = await openLedger();
      await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '1' });
      const stale = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '1', expected_version: 0 });
      expect(stale.statusCode).toBe(409);
      expectEnvelope(stale.json(), 'VERSION_CONFLICT');
      expect(stale.json().error.current_version).toBe(1);
      const fresh = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '1', expected_version: 1 });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json().version).toBe(2);
    });

    it('keeps one gap-free stream when unpinned commands race (retry on conflict)', async () => {
      const id = await openLedger();
      const results = await Promise.all(Array.from({ length: 8 }, () => post(`/api/v1/test-ledgers/${id}/credits`, { amount: '5' })));
      expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      expect((await get(`/api/v1/test-ledgers/${id}`)).json()).toMatchObject({ balance: '40', version: 8 });
    });
  });

  describe('validation', () => {
    it('rejects a JSON number where a decimal string is due, naming the field', async () => {
      const id = await openLedger();
      const r = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: 10 });
      expect(r.statusCode).toBe(400);
      expectEnvelope(r.json(), 'VALIDATION_FAILED');
      expect(r.json().error.details).toEqual([{ field: 'amount', issue: expect.stringContaining('not a JSON number') }]);
    });

    it('rejects unknown fields on "no extra fields" shapes and ignores them elsewhere', async () => {
      const id = await openLedger();
      const strict = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '3', note: 'hi' });
      expect(strict.statusCode).toBe(400);
      expect(strict.json().error.details).toEqual([{ field: 'note', issue: expect.stringContaining('unknown field') }]);
      const open = await post('/api/v1/test-ledgers', { owner: 'bob', favourite_colour: 'green' });
      expect(open.statusCode).toBe(201);
      expect(open.json()).not.toHaveProperty('favourite_colour');
    });

    it.each([
      ['malformed JSON', { 'content-type': 'application/json' }, '{"owner":', 400, 'VALIDATION_FAILED'],
      ['an empty JSON body', { 'content-type': 'application/json' }, '', 400, 'VALIDATION_FAILED'],
      ['a JSON array', { 'content-type': 'application/json' }, '[1,2]', 400, 'VALIDATION_FAILED'],
      ['prototype poisoning', { 'content-type': 'application/json' }, '{"owner":"x","__proto__":{"admin":true}}', 400, 'VALIDATION_FAILED'],
      ['text/plain', { 'content-type': 'text/plain' }, 'owner=ada', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'owner=ada', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a body over the limit', { 'content-type': 'application/json' }, JSON.stringify({ owner: 'x'.repeat(5000) }), 413, 'PAYLOAD_TOO_LARGE'],
      ['nesting 1000 levels deep', { 'content-type': 'application/json' }, `{"owner":"x","a":${'['.repeat(1000)}${']'.repeat(1000)}}`, 400, 'VALIDATION_FAILED'],
      ['a NUL character', { 'content-type': 'application/json' }, '{"owner":"a\\u0000b"}', 400, 'VALIDATION_FAILED'],
      ['a lone surrogate', { 'content-type': 'application/json' }, '{"owner":"a\\ud800b"}', 400, 'VALIDATION_FAILED'],
      ['a charset other than UTF-8', { 'content-type': 'application/json; charset=latin1' }, '{"owner":"x"}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ])('answers %s with the error envelope', async (_name, headers, payload, status, code) => {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', headers, payload });
      expect(r.statusCode).toBe(status);
      expectEnvelope(r.json(), code);
      expect(r.json().error.request_id).toBe(r.headers['x-request-id']);
    });

    it('answers unknown routes, methods and malformed path ids without a 500', async () => {
      const unknown = await get('/api/v1/no-such-thing');
      expect(unknown.statusCode).toBe(404);
      expectEnvelope(unknown.json(), 'NOT_FOUND');
      const method = await t.app.inject({ method: 'DELETE', url: '/api/v1/test-ledgers' });
      expect(method.statusCode).toBe(404);
      const badId = await get('/api/v1/test-ledgers/NOT-HEX');
      expect(badId.statusCode).toBe(400);
      expect(badId.json().error.details[0].field).toBe('ledger_id');
      const missing = await get(`/api/v1/test-ledgers/${'a'.repeat(32)}`);
      expect(missing.statusCode).toBe(404);
      for (const url of ['/api/v1/test-ledgers/%E0%A4%A', `/api/v1/test-ledgers/${'a'.repeat(500)}`]) {
        const odd = await get(url);
        expect(odd.statusCode).toBe(400);
        expectEnvelope(odd.json(), 'VALIDATION_FAILED');
        expect(odd.headers['x-request-id']).toBe(odd.json().error.request_id);
      }
    });

    it('answers a server fault with INTERNAL and no stack, SQL or message text', async () => {
      const r = await post('/api/v1/test-failures/internal', {});
      expect(r.statusCode).toBe(500);
      expectEnvelope(r.json(), 'INTERNAL');
      expect(r.body).not.toMatch(/SELECT|SQLITE|password|at \w+ \(/);
      expect(t.logs.some((l) => l.includes('request failed') && l.includes(r.json().error.request_id))).toBe(true);
    });
  });

  describe('idempotency', () => {
    it('replays the first result for the same key and body, appending once', async () => {
      const id = await openLedger();
      const headers = { 'idempotency-key': 'credit-0001' };
      const first = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '70' }, headers);
      const again = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '70' }, headers);
      expect(first.statusCode).toBe(200);
      expect(again.statusCode).toBe(200);
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(first.headers['idempotent-replay']).toBeUndefined();
      expect(again.body).toBe(first.body);
      expect(again.headers['x-position']).toBe(first.headers['x-position']);
      expect(await store().readStream(`test-ledger-${id}`)).toHaveLength(2);
    });

    it('keeps keys per caller: the same key and body from two signed-in callers are two commands', async () => {
      const [ada, bob] = [await registerTrader(t), await registerTrader(t)];
      const body = { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '1000.0', external_ref: 'same-ref' };
      const place = (who: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', payload: body, headers: { ...who, 'idempotency-key': 'shared-key-1' } });
      const a = await place(ada);
      const b = await place(bob);
      expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
      expect(b.headers['idempotent-replay']).toBeUndefined();
      expect(b.json().response.order_uuid).not.toBe(a.json().response.order_uuid);
      // The same caller again is a replay of its own answer.
      const again = await place(ada);
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(again.json().response.order_uuid).toBe(a.json().response.order_uuid);
    });

    it('refuses the same key with another body, and scopes nothing across keys', async () => {
      const id = await openLedger();
      await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '1' }, { 'idempotency-key': 'k-reuse' });
      const reused = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '2' }, { 'idempotency-key': 'k-reuse' });
      expect(reused.statusCode).toBe(409);
      expectEnvelope(reused.json(), 'IDEMPOTENCY_KEY_REUSED');
      const other = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '2' }, { 'idempotency-key': 'k-other' });
      expect(other.statusCode).toBe(200);
      expect(other.json().balance).toBe('3');
    });

    it('does not retain failures: after a 4xx the key can be used for the corrected request', async () => {
      const id = await openLedger();
      const bad = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: 5 }, { 'idempotency-key': 'k-fix' });
      expect(bad.statusCode).toBe(400);
      const fixed = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '5' }, { 'idempotency-key': 'k-fix' });
      expect(fixed.statusCode).toBe(200);
    });

    it('does a command once even when the first response was lost before its key was recorded (crash)', async () => {
      const { ReadModelDatabase } = await import('../../src/platform/read-model/read-model.datasource');
      const db = t.app.get(ReadModelDatabase);
      const forgetKeys = () => db.transaction((tx) => tx.query('DELETE FROM idempotency_records'));
      const open1 = await post('/api/v1/test-ledgers', { owner: 'crash' }, { 'idempotency-key': 'crash-open' });
      await forgetKeys();
      const open2 = await post('/api/v1/test-ledgers', { owner: 'crash' }, { 'idempotency-key': 'crash-open' });
      expect(open2.statusCode).toBe(201);
      expect(open2.json()).toEqual(open1.json());
      const id = open1.json().ledger_id;

      const credit1 = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '70' }, { 'idempotency-key': 'crash-credit' });
      await forgetKeys();
      const credit2 = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '70' }, { 'idempotency-key': 'crash-credit' });
      expect(credit2.statusCode).toBe(200);
      expect(credit2.json()).toEqual({ ledger_id: id, owner: 'crash', balance: '70', version: 1 });
      expect(credit2.headers['x-position']).toBe(credit1.headers['x-position']);
      expect((await store().readStream(`test-ledger-${id}`)).map((e) => e.type)).toEqual(['LedgerOpened', 'LedgerCredited']);
    });

    it('rejects a malformed key', async () => {
      const r = await post('/api/v1/test-ledgers', { owner: 'x' }, { 'idempotency-key': 'has space' });
      expect(r.statusCode).toBe(400);
      expect(r.json().error.details[0].field).toBe('Idempotency-Key');
    });
  });

  describe('pagination', () => {
    it('pages with limit and an opaque cursor, stable while rows are added', async () => {
      const fresh = await startTestApp();
      try {
        for (let i = 0; i < 5; i++) await fresh.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: `o${i}` } });
        const p1 = await fresh.app.inject({ method: 'GET', url: '/api/v1/test-ledgers?limit=2' });
        expect(p1.json().items).toHaveLength(2);
        expect(p1.json().next_cursor).toEqual(expect.any(String));
        await fresh.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: 'late' } });
        const p2 = await fresh.app.inject({ method: 'GET', url: `/api/v1/test-ledgers?limit=2&cursor=${p1.json().next_cursor}` });
        const p3 = await fresh.app.inject({ method: 'GET', url: `/api/v1/test-ledgers?limit=2&cursor=${p2.json().next_cursor}` });
        expect(p3.json().next_cursor).toBeUndefined();
        const seen = [...p1.json().items, ...p2.json().items, ...p3.json().items].map((x: { owner: string }) => x.owner);
        expect(new Set(seen).size).toBe(5);
        expect(seen).not.toContain('late');
      } finally {
        await fresh.close();
      }
    });

    it('rejects a forged cursor and an out-of-range limit with 400', async () => {
      for (const q of ['cursor=not-a-cursor!', 'cursor=WzFd', 'limit=0', 'limit=1000', 'limit=abc']) {
        const r = await get(`/api/v1/test-ledgers?${q}`);
        expect(r.statusCode).toBe(400);
        expectEnvelope(r.json(), 'VALIDATION_FAILED');
      }
    });
  });

  describe('X-Min-Position', () => {
    it('waits for a reached position, times out on a future one, rejects a malformed one', async () => {
      const id = await openLedger();
      const credit = await post(`/api/v1/test-ledgers/${id}/credits`, { amount: '1' });
      const ok = await get(`/api/v1/test-ledgers/${id}`, { 'x-min-position': credit.headers['x-position'] as string });
      expect(ok.statusCode).toBe(200);
      const future = await get(`/api/v1/test-ledgers/${id}`, { 'x-min-position': '999999999' });
      expect(future.statusCode).toBe(503);
      expect(future.json().error.retryable).toBe(true);
      expect(future.headers['retry-after']).toBe('1');
      const bad = await get(`/api/v1/test-ledgers/${id}`, { 'x-min-position': '-1' });
      expect(bad.statusCode).toBe(400);
    });
  });

  describe('docs, health, metrics, logs', () => {
    it('serves OpenAPI and Swagger UI', async () => {
      const spec = await get('/api/v1/openapi.json');
      expect(spec.statusCode).toBe(200);
      expect(spec.json().openapi).toMatch(/^3\./);
      expect(Object.keys(spec.json().paths)).toContain('/api/v1/test-ledgers/{ledger_id}/credits');
      const ui = await get('/docs');
      expect(ui.statusCode).toBe(200);
      expect(ui.body).toContain('swagger-ui');
    });

    it('reports liveness, readiness and projection lag', async () => {
      expect((await get('/health/live')).json()).toEqual({ status: 'ok' });
      const ready = await get('/health/ready');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ok', checks: { event_store: { status: 'up' }, read_models: { status: 'up' }, projections: { status: 'up' } } });
      await openLedger();
      const metrics = await get('/metrics');
      expect(metrics.statusCode).toBe(200);
      expect(metrics.headers['content-type']).toMatch(/text\/plain/);
      expect(metrics.body).toMatch(/platform_projection_lag\{projection="test-ledger-balances"\} \d+/);
      expect(metrics.body).toMatch(/platform_projection_checkpoint_position\{projection="test-ledger-balances"\} [1-9]\d*/);
      expect(metrics.body).toMatch(/platform_http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/test-ledgers",status="201"\} [1-9]/);
    });

    it('never logs credentials', async () => {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/test-ledgers',
        headers: { authorization: 'Bearer tok_SUPERSECRET_1234567890', cookie: 'session=COOKIESECRET' },
        payload: { owner: 'eve' },
      });
      await get('/api/v1/test-ledgers?limit=5&token=QUERYSECRET999');
      const joined = t.logs.join('\n');
      expect(joined).not.toContain('QUERYSECRET999');
      expect(joined).toContain('"url":"/api/v1/test-ledgers"');
      expect(joined).toContain('[REDACTED]');
      expect(joined).not.toContain('SUPERSECRET');
      expect(joined).not.toContain('COOKIESECRET');
    });

    it('logs one line per request with its id, and the request id on every line logged while it runs', async () => {
      const before = t.logs.length;
      await get('/api/v1/test-ledgers/00000000000000000000000000000000', { 'x-request-id': 'req-line-0001' });
      await get('/health/live', { 'x-request-id': 'req-live-0001' });
      const lines = t.logs.slice(before).map((l) => JSON.parse(l));
      const line = lines.find((l) => l.request_id === 'req-line-0001');
      expect(line).toMatchObject({ msg: 'request completed', level: 30, req: { id: 'req-line-0001', method: 'GET', url: '/api/v1/test-ledgers/00000000000000000000000000000000' }, res: { statusCode: 404 } });
      expect(typeof line.responseTime).toBe('number');
      expect(lines.filter((l) => l.request_id === 'req-line-0001')).toHaveLength(1);
      // Liveness probes are not logged.
      expect(lines.some((l) => l.request_id === 'req-live-0001' || l.req?.id === 'req-live-0001')).toBe(false);

      const logger = t.app.get(Logger);
      runWithContext(createRequestContext({ request_id: 'req-ctx-0001' }), () => logger.warn({ step: 'inside' }, 'a line inside a request'));
      logger.warn({ step: 'outside' }, 'a line outside any request');
      const logged = t.logs.slice(before).map((l) => JSON.parse(l));
      expect(logged.find((l) => l.step === 'inside')).toMatchObject({ request_id: 'req-ctx-0001' });
      expect(logged.find((l) => l.step === 'outside')).not.toHaveProperty('request_id');
    });
  });
});

describe('HTTP conventions across restarts and slow projections', () => {
  it('logs a request its client abandons while it waits', async () => {
    const t = await startTestApp({ MIN_POSITION_TIMEOUT_MS: '800' });
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (t.app.getHttpServer().address() as AddressInfo).port;
      await new Promise<void>((resolve) => {
        const req = request({ port, host: '127.0.0.1', path: '/api/v1/test-ledgers', headers: { 'x-min-position': '99999999', 'x-request-id': 'abandoned-0001' } });
        req.on('error', () => resolve());
        req.end();
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      const deadline = Date.now() + 3000;
      const line = () => t.logs.map((l) => JSON.parse(l)).find((l) => l.request_id === 'abandoned-0001');
      while (!line() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(line()).toMatchObject({ msg: 'request aborted', req: { method: 'GET', url: '/api/v1/test-ledgers' } });
    } finally {
      await t.close();
    }
  });

  it('keeps idempotency records across a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-restart-'));
    try {
      const first = await startTestApp({ DATA_DIR: dataDir });
      const open = await first.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: 'ada' }, headers: { 'idempotency-key': 'open-1' } });
      await first.close();
      const second = await startTestApp({ DATA_DIR: dataDir });
      const replay = await second.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: 'ada' }, headers: { 'idempotency-key': 'open-1' } });
      expect(replay.headers['idempotent-replay']).toBe('true');
      expect(replay.statusCode).toBe(201);
      expect(replay.json()).toEqual(open.json());
      const got = await second.app.inject({ method: 'GET', url: `/api/v1/test-ledgers/${open.json().ledger_id}` });
      expect(got.statusCode).toBe(200);
      await second.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps read-your-writes on a node that runs no projectors (another node does)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'app-nodes-'));
    const projecting = await startTestApp({ DATA_DIR: dataDir });
    const apiOnly = await startTestApp({ DATA_DIR: dataDir, PROJECTIONS_AUTOSTART: 'false' });
    try {
      const open = await apiOnly.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: 'far' } });
      expect(open.statusCode).toBe(201);
      const read = await apiOnly.app.inject({ method: 'GET', url: `/api/v1/test-ledgers/${open.json().ledger_id}` });
      expect(read.statusCode).toBe(200);
      const min = await apiOnly.app.inject({ method: 'GET', url: `/api/v1/test-ledgers/${open.json().ledger_id}`, headers: { 'x-min-position': open.headers['x-position'] as string } });
      expect(min.statusCode).toBe(200);
      expect((await apiOnly.app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
    } finally {
      await apiOnly.close();
      await projecting.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers 202 with the position when projections do not catch up in time', async () => {
    const slow = await startTestApp({ PROJECTIONS_AUTOSTART: 'false', READ_YOUR_WRITES_TIMEOUT_MS: '50' });
    try {
      const r = await slow.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: 'ada' } });
      expect(r.statusCode).toBe(202);
      expect(r.headers['x-position']).toMatch(/^\d+$/);
      expect(r.json()).toMatchObject({ owner: 'ada', version: 0 });
    } finally {
      await slow.close();
    }
  });
});
