/** Trading test helpers on a running test app: traders with bearer tokens, placing orders, waiting for the engine. */
import { readMailbox } from '../../src/modules/identity/delivery';
import type { TestApp } from './app';
import { hex32 } from './events';

export type Headers = Record<string, string>;
export const TEST_ADMIN = { email: 'ops@platform.test', password: 'Root-Passw0rd-2026!' };

/** Registers, activates and logs in a new trader; returns the Authorization header. */
export async function registerTrader(t: TestApp): Promise<Headers> {
  const email = `trader-${hex32().slice(0, 8)}@example.com`;
  const password = 'Trader-Password-2026';
  await t.app.inject({ method: 'POST', url: '/api/v1/identity/registrations', payload: { account_type: 'personal', first_name: 'T', last_name: 'R', email, password, terms: { version: '1', accepted: true } } });
  const [d] = await readMailbox(t.config.dataDir, email);
  await t.app.inject({ method: 'POST', url: '/api/v1/identity/activations', payload: { token: d.token } });
  const r = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: { email, password } });
  return { authorization: `Bearer ${r.json().access_token}` };
}

/**
 * The owner opens a tenant to registrations: anyone who knows its tenant_uuid may then register into it. A tenant
 * takes members by invitation only until its owner does this (docs/identity.md, "Who joins a tenant").
 */
export async function openTenant(t: TestApp, owner: Headers, tenant_uuid: string): Promise<void> {
  const r = await t.app.inject({ method: 'PUT', url: `/api/v1/tenants/${tenant_uuid}/join-policy`, headers: owner, payload: { join_policy: 'OPEN' } });
  if (r.statusCode !== 200) throw new Error(`opening tenant ${tenant_uuid} answered ${r.statusCode}: ${r.body}`);
}

export async function adminHeaders(t: TestApp): Promise<Headers> {
  const a = await t.app.inject({ method: 'POST', url: '/api/v1/auth/sessions', payload: TEST_ADMIN });
  return { authorization: `Bearer ${a.json().access_token}` };
}

/** Polls `read` until `done` holds (the engine decides asynchronously); fails with the last value seen. */
export async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms; last value: ${JSON.stringify(last, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
    await new Promise((r) => setTimeout(r, 20));
    last = await read();
  }
  return last;
}
