/**
 * Agentic memory test helpers on a running test app: people (optionally in another tenant) with their profile ids,
 * workspaces, collections with published objects, context objects and commitments computed the way a client would.
 */
import { createHash } from 'node:crypto';
import { readMailbox } from '../../src/modules/identity/delivery';
import type { TestApp } from './app';
import { hex32 } from './events';
import type { Headers } from './traders';

export const M = '/api/v1/agentic-memory';

export interface Reply {
  status: number;
  json: any;
  headers: Record<string, unknown>;
}

export interface Person {
  headers: Headers;
  profile_uuid: string;
  workspace: string;
}

/** SHA-256 hex of a text: what an agent sends instead of its rationale. */
export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
export const RATIONALE = sha256('The deploy agent saw the EU settlement window move and wants the runbook to say so.');

export const contextObject = (over: Record<string, unknown> = {}) => ({
  object_type: 'STATUS',
  topic: 'eu-settlement',
  title: 'EU settlement window moved to 16:00 UTC',
  summary: 'Since Monday the EU settlement batch closes at 16:00 UTC instead of 15:00 UTC.',
  classification: 'INTERNAL',
  confidence: 0.8,
  content: { state: 'CHANGED', detail: 'Batch close moved one hour later.', observed_at: '2026-11-20T16:05:00Z' },
  source_refs: ['ticket:OPS-1042', sha256('settlement-calendar-v7')],
  ...over,
});

export const collectionBody = (workspace: string, over: Record<string, unknown> = {}) => ({
  workspace_uuid: workspace,
  title: 'Payments runbook',
  description: 'How our payment rails behave, what failed and what we decided.',
  category: 'operations',
  access_mode: 'OPEN',
  discovery_mode: 'LISTED',
  capabilities: ['QUERY', 'CLARIFY', 'PROPOSE'],
  ...over,
});

export function memoryApi(current: () => TestApp) {
  async function call(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
    const r = await current().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: r.statusCode, json: r.body ? r.json() : undefined, headers: r.headers };
  }

  /** Registers and activates a person (in `tenant_uuid`, default the global tenant), signs in, creates a workspace. */
  async function person(tenant_uuid?: string, workspaceName = 'Research'): Promise<Person> {
    const email = `mem-${hex32().slice(0, 10)}@example.com`;
    const password = 'Memory-Password-2026';
    const reg = await call('POST', '/api/v1/identity/registrations', {}, {
      account_type: 'personal', first_name: 'M', last_name: 'P', email, password, terms: { version: '1', accepted: true }, ...(tenant_uuid ? { tenant_uuid } : {}),
    });
    expect(reg.status).toBe(201);
    const [d] = await readMailbox(current().config.dataDir, email);
    expect((await call('POST', '/api/v1/identity/activations', {}, { token: d.token })).status).toBeLessThan(300);
    const session = await call('POST', '/api/v1/auth/sessions', {}, { email, password });
    const headers = { authorization: `Bearer ${session.json.access_token}` };
    const contact = await call('GET', '/api/v1/identity/contact', headers);
    const ws = await call('POST', '/api/v1/workspaces', headers, { name: workspaceName });
    expect(ws.status).toBe(201);
    return { headers, profile_uuid: contact.json.profile_uuid, workspace: ws.json.workspace_id };
  }

  async function createCollection(owner: Person, over: Record<string, unknown> = {}): Promise<any> {
    const r = await call('POST', `${M}/collections`, owner.headers, collectionBody(owner.workspace, over));
    expect(r.status).toBe(201);
    return r.json.response;
  }

  /** Adds objects as the publisher, approves them and publishes: the collection at its new version. */
  async function publishObjects(owner: Person, collection: string, objects: Array<Record<string, unknown>>): Promise<any> {
    for (const o of objects) {
      const added = await call('POST', `${M}/collections/${collection}/items`, owner.headers, o);
      expect(added.status).toBe(201);
      const approved = await call('POST', `${M}/collections/${collection}/items/${added.json.response.object_uuid}/approve`, owner.headers, {});
      expect(approved.status).toBe(200);
    }
    const published = await call('POST', `${M}/collections/${collection}/publish`, owner.headers, {});
    expect(published.status).toBe(200);
    return published.json.response;
  }

  return { call, person, createCollection, publishObjects };
}
