/**
 * Security headers (issue 19, item 4), set by helmet and @fastify/cors: no answer is cached, nothing is
 * sniffed, referred or framed, the docs page gets just what Swagger UI needs, and CORS opens only to an allow-list.
 */
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';

/** helmet's whole set besides the CSP (worked out once at start, not per request): each answer carries all of it. */
const EVERYWHERE = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

describe('security headers: default configuration', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it('answers credentials and secrets with Cache-Control: no-store (sign-in, authenticator enrolment)', async () => {
    const headers = await registerTrader(t);
    const enrolment = await t.app.inject({ method: 'POST', url: '/api/v1/identity/authenticator/enrollments', headers });
    expect(enrolment.statusCode).toBeLessThan(300);
    expect(enrolment.headers['cache-control']).toBe('no-store');
    const signIn = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email: 'nobody@example.com', password: 'Wrong-Password-2026' } });
    expect(signIn.statusCode).toBe(401);
    expect(signIn.headers['cache-control']).toBe('no-store');
    const token = await t.app.inject({ method: 'POST', url: '/api/v1/ai-wallets/workload/token', payload: { client_id: 'x', client_secret: 'y' } });
    expect(token.headers['cache-control']).toBe('no-store');
  });

  it.each([
    ['GET', '/api/v1/api/v1/mtf/markets'],
    ['GET', '/api/v1/trading/orders'],
    ['GET', '/api/v1/no-such-route'],
    ['GET', '/health/live'],
    ['GET', '/api/v1/openapi.json'],
    ['POST', '/api/v1/identity/registrations'],
  ])('%s %s: nosniff, no referrer, nothing framed, nothing loaded, not stored', async (method, url) => {
    const r = await t.app.inject({ method: method as 'GET', url, ...(method === 'POST' ? { payload: {} } : {}) });
    expect(r.headers).toMatchObject({ ...EVERYWHERE, 'cache-control': 'no-store' });
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("gives the docs page what Swagger UI needs (its own scripts, inline styles), still framed by nobody", async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers).toMatchObject(EVERYWHERE);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("default-src 'none'");
    // Every script the page runs is a same-origin file the CSP allows; none is inline.
    const scripts = [...page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) {
      expect(attributes).toMatch(/src=/);
      expect(inline.trim()).toBe('');
    }
    const init = await t.app.inject({ method: 'GET', url: '/docs/swagger-ui-init.js' });
    expect(init.statusCode).toBe(200);
  });

  it('keeps CORS off: a preflight from any origin is not allowed and no answer names an origin', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/trading/orders',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    expect(preflight.statusCode).toBe(404);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.json().error.code).toBe('NOT_FOUND');
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: { origin: 'https://app.example.com' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('security headers: CORS open to an allow-list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:5173' });
  });
  afterAll(async () => t.close());

  const preflight = (origin: string) =>
    t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/trading/orders',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
    });

  it('allows a listed origin the methods and headers the API uses, and lets its script read the platform headers', async () => {
    const r = await preflight('https://app.example.com');
    expect(r.statusCode).toBe(204);
    expect(r.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(String(r.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(r.headers['access-control-allow-headers']).toLowerCase()).toContain('idempotency-key');
    expect(r.headers['access-control-allow-credentials']).toBeUndefined();
    expect(r.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: { origin: 'http://localhost:5173' } });
    // Refusals too: the page's script can read the error envelope.
    expect(get.statusCode).toBe(401);
    expect(get.json().error.code).toBe('UNAUTHENTICATED');
    expect(get.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(String(get.headers['access-control-expose-headers'])).toContain('X-Request-Id');
    expect(get.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('does not allow an origin that is not listed', async () => {
    const r = await preflight('https://evil.example.com');
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.app.inject({ method: 'GET', url: '/api/v1/api/v1/mtf/markets', headers: { origin: 'https://evil.example.com' } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses an allow-list entry that is not an origin', () => {
    expect(() => loadPlatformConfig({ CORS_ALLOWED_ORIGINS: 'https://app.example.com/path' })).toThrow(/CORS_ALLOWED_ORIGINS/);
    expect(() => loadPlatformConfig({ CORS_ALLOWED_ORIGINS: '*' })).toThrow(/CORS_ALLOWED_ORIGINS/);
  });
});
