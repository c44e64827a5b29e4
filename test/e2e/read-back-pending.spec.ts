/**
 * Commands whose answer is read back from a read model, when the read models lag past the read-your-writes wait:
 * the command has succeeded, so the answer is 202 with X-Position and what the command itself knows (PLATFORM.md
 * section 1), never a 404 for what was just written, and a binding's client secret (shown once) is not lost.
 */
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp, type TestApp } from '../support/app';
import { collectionBody, M } from '../support/agentic-memory';
import { DEST, policy } from '../support/ai-wallets';
import { registerTrader, until, type Headers } from '../support/traders';

let t: TestApp;
let owner: Headers;
let workspace: string;

beforeAll(async () => {
  // SESSION_CACHE_MS 1: every request asks whether its session row is fresh (a wait of 0), as any request does once the
  // 1-s cache has lapsed on a slow machine; the stubs below must leave that check alone.
  // One thread (WORKER_THREADS=0): the lag is made by stopping this thread's projection runner.
  t = await startTestApp({ READ_YOUR_WRITES_TIMEOUT_MS: '300', SESSION_CACHE_MS: '1', WORKER_THREADS: '0' });
  owner = await registerTrader(t);
  const ws = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: owner, payload: { name: 'Lagging' } });
  expect(ws.statusCode).toBe(201);
  workspace = ws.json().workspace_id;
  // The read models stop following the log: every answer below has to do without them.
  await t.app.get(ProjectionRunner).stop();
});
afterAll(() => t.close());

it('an AI-wallet binding created while the read models lag answers 202 with its id, client id and secret', async () => {
  const r = await t.app.inject({
    method: 'POST', url: '/api/v1/ai-wallets/bindings', headers: owner,
    payload: { workspace_uuid: workspace, agent_label: 'lagging-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, policy: policy() },
  });
  expect(r.statusCode).toBe(202);
  expect(r.headers['x-position']).toMatch(/^\d+$/);
  const body = r.json();
  expect(body).toEqual({ binding_uuid: expect.stringMatching(/^[0-9a-f]{32}$/), workload_client_id: expect.stringMatching(/^[0-9a-f]{32}$/), client_secret: expect.stringMatching(/^hcws_/) });

  // Once the read models catch up, the secret that went out works.
  t.app.get(ProjectionRunner).start();
  const token = await until(
    () => t.app.inject({ method: 'POST', url: '/api/v1/auth/token', payload: { grant_type: 'client_credentials', client_id: body.workload_client_id, client_secret: body.client_secret } }),
    (x) => x.statusCode === 200,
  );
  expect(token.json().token_type).toBe('Bearer');
  await t.app.get(ProjectionRunner).stop();
});

it('an agentic memory collection created while the read models lag answers 202 in the memory envelope', async () => {
  const r = await t.app.inject({ method: 'POST', url: `${M}/collections`, headers: owner, payload: collectionBody(workspace, { slug: 'lagging-notes' }) });
  expect(r.statusCode).toBe(202);
  expect(r.headers['x-position']).toMatch(/^\d+$/);
  expect(r.json()).toEqual({ success: true, response: { collection_uuid: expect.stringMatching(/^[0-9a-f]{32}$/) }, meta: { projections_pending: true } });
});

it('a read-your-writes wait that fails (the read-model database gone, as while the app closes) answers pending, never brings the process down', async () => {
  const runner = t.app.get(ProjectionRunner);
  const waitFor = runner.waitFor.bind(runner);
  // Only the command's read-back fails: a check that does not wait (timeout 0: the session row's freshness, asked
  // whenever its 1-s cache has lapsed, as on a slow machine) is the runner's own.
  runner.waitFor = (position, names, timeoutMs) => (timeoutMs === 0 ? waitFor(position, names, timeoutMs) : Promise.reject(new Error('read-model database closed')));
  try {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/workspaces', headers: { ...owner, 'idempotency-key': 'wait-fails-1' }, payload: { name: 'Closing' } });
    // The workspace was created: its answer is the pending one, with the position to read it back at.
    expect(r.statusCode).toBe(202);
    expect(r.headers['x-position']).toMatch(/^\d+$/);
    expect(r.json()).toMatchObject({ workspace_id: expect.stringMatching(/^[0-9a-f]{32}$/), name: 'Closing', role: 'OWNER' });
  } finally {
    runner.waitFor = waitFor;
  }
});

it('an answer given without its read-back stays a 202 even when the read models catch up before it is sent', async () => {
  const runner = t.app.get(ProjectionRunner);
  const waitFor = runner.waitFor.bind(runner);
  let calls = 0;
  // The read-back's wait gives up; the wait before sending (settle) would succeed: the body is the pending one.
  runner.waitFor = async (position, names, timeoutMs) => (timeoutMs === 0 ? waitFor(position, names, timeoutMs) : ++calls > 1);
  try {
    const r = await t.app.inject({
      method: 'POST', url: '/api/v1/ai-wallets/bindings', headers: owner,
      payload: { workspace_uuid: workspace, agent_label: 'late-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, policy: policy() },
    });
    expect(r.statusCode).toBe(202);
    expect(r.headers['x-position']).toMatch(/^\d+$/);
    expect(Object.keys(r.json()).sort()).toEqual(['binding_uuid', 'client_secret', 'workload_client_id']);
  } finally {
    runner.waitFor = waitFor;
  }
});
