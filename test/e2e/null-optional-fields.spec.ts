/**
 * JSON `null` in optional request fields, over HTTP on the real app. A field the seeds do not make nullable is
 * `@Optional()`: null is a 400 VALIDATION_FAILED in the platform's error envelope naming the field (before, it slipped
 * past class-validator's IsOptional into handlers and events). A field the seeds mark "may be null" is
 * `@OptionalNullable()`: null is accepted and means what leaving it out means — including the two that were 500s
 * (a canonical order's and a position close's `quantity`).
 */
import { readMailbox } from '../../src/modules/identity/delivery';
import { GLOBAL_TENANT_UUID, SERVICE_NAME } from '../../src/modules/identity/domain/identity.constants';
import { totpCode } from '../../src/modules/identity/security/totp';
import { startTestApp, type TestApp } from '../support/app';
import { intentBody, walletApi, workspaceOwner } from '../support/ai-wallets';
import { collectionBody, contextObject, M, memoryApi, RATIONALE, sha256, type Person } from '../support/agentic-memory';
import { hex32 } from '../support/events';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';

let t: TestApp;
let alice: Headers;
let bob: Headers;

interface Reply {
  status: number;
  json: any;
}

async function call(method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, headers: Headers, payload?: unknown): Promise<Reply> {
  const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: r.statusCode, json: r.body ? r.json() : undefined };
}

/** A 400 in the platform's error envelope whose details name `field` (and only fields the request set to null). */
function refused(reply: Reply, field: string): void {
  expect({ status: reply.status, body: reply.json }).toEqual({
    status: 400,
    body: {
      success: false,
      error: { code: 'VALIDATION_FAILED', message: expect.any(String), request_id: expect.any(String), retryable: false, details: expect.any(Array) },
    },
  });
  const details: Array<{ field: string; issue: string }> = reply.json.error.details;
  expect([...new Set(details.map((d) => d.field))]).toEqual([field]);
  expect(details.every((d) => d.issue.length > 0)).toBe(true);
}

function ok(reply: Reply, status: number): any {
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${JSON.stringify(reply.json)}`);
  return reply.json;
}

beforeAll(async () => {
  t = await startTestApp({ ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password });
  alice = await registerTrader(t);
  bob = await registerTrader(t);
});
afterAll(() => t.close());

describe('identity', () => {
  const password = 'Null-Fields-Passw0rd';

  async function account(): Promise<{ email: string; headers: Headers }> {
    const email = `nulls-${hex32().slice(0, 10)}@example.com`;
    const reg = ok(
      await call('POST', '/api/v1/identity/registrations', {}, {
        account_type: 'personal', first_name: 'N', last_name: 'F', email, password, terms: { version: '1', accepted: true },
        middle_name: null, tenant_uuid: null,
      }),
      201,
    );
    expect(reg).toMatchObject({ status: 'PENDING_ACTIVATION', tenant_uuid: GLOBAL_TENANT_UUID });
    const [d] = await readMailbox(t.config.dataDir, email);
    ok(await call('POST', '/api/v1/identity/activations', {}, { token: d.token }), 200);
    const session = ok(await call('POST', '/api/v1/auth/sessions', {}, { email, password }), 201);
    return { email, headers: { authorization: `Bearer ${session.access_token}` } };
  }

  it('refuses a null totp_code at sign-in and step-up with 400 (not a failed sign-in)', async () => {
    const a = await account();
    refused(await call('POST', '/api/v1/auth/sessions', {}, { email: a.email, password, totp_code: null }), 'totp_code');
    refused(await call('POST', '/api/v1/auth/step-up', a.headers, { purpose: 'ACCOUNT_CLOSURE', password, totp_code: null }), 'totp_code');
    // The same requests without the field are fine.
    ok(await call('POST', '/api/v1/auth/sessions', {}, { email: a.email, password }), 201);
    ok(await call('POST', '/api/v1/auth/step-up', a.headers, { purpose: 'ACCOUNT_CLOSURE', password }), 201);
  });

  it('takes null where the seeds allow it: registration middle_name/tenant_uuid (global tenant), corporate first_name', async () => {
    // (account() registers with middle_name: null and tenant_uuid: null.)
    await account();
    const corporate = await call('POST', '/api/v1/identity/registrations', {}, {
      account_type: 'corporate', company_name: 'Null Fields Ltd', first_name: null, last_name: null, email: `corp-${hex32().slice(0, 10)}@example.com`,
      password, terms: { version: '1', accepted: true },
    });
    expect(ok(corporate, 201).tenant_uuid).toBe(GLOBAL_TENANT_UUID);
    // A personal account still needs its names: null is not a first name.
    const personal = await call('POST', '/api/v1/identity/registrations', {}, {
      account_type: 'personal', first_name: null, last_name: 'F', email: `pers-${hex32().slice(0, 10)}@example.com`, password, terms: { version: '1', accepted: true },
    });
    refused(personal, 'first_name');
  });

  it('takes null issuer/label (the service name) and null step_up_token next to a recovery code (one method)', async () => {
    const a = await account();
    const e = ok(await call('POST', '/api/v1/identity/authenticator/enrollments', a.headers, { issuer: null, label: null }), 201);
    expect(e.label).toBe(SERVICE_NAME);
    const confirmed = ok(await call('POST', `/api/v1/identity/authenticator/enrollments/${e.enrollment_id}/confirm`, a.headers, { code: totpCode(e.secret, Date.now()) }), 200);
    const disabled = await call('POST', '/api/v1/identity/authenticator/disable', a.headers, { recovery_code: confirmed.recovery_codes[0], step_up_token: null });
    expect(ok(disabled, 200)).toEqual({ status: 'DISABLED', sessions_revoked: true });
  });

  it('takes null reason_code and step_up_token on closure: USER_REQUESTED, no step-up', async () => {
    const a = await account();
    const closure = ok(await call('POST', '/api/v1/identity/closure', a.headers, { current_password: password, reason_code: null, step_up_token: null }), 202);
    expect(closure).toMatchObject({ status: 'SCHEDULED', reason_code: 'USER_REQUESTED' });
    expect(ok(await call('POST', '/api/v1/identity/closure/cancel', a.headers, { step_up_token: null }), 200).status).toBe('CANCELLED');
  });
});

describe('trading', () => {
  const mtf = { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'bnVsbHM=' };
  const canonical = {
    venue: 'MTF', market: 'ETH-PERP', side: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'bnVsbHM=', leverage: 1, reduce_only: false,
    combos: [], quantity: '1', limit_price: '1000',
  };
  const orders = async (h: Headers): Promise<Array<{ order_uuid: string; status: string }>> => (await call('GET', '/api/v1/api/v1/mtf/orders?limit=1000', h)).json.response;
  const positions = async (h: Headers): Promise<Array<Record<string, string>>> => (await call('GET', '/api/v1/trading/positions', h)).json.items;

  it('MTF placement refuses a null flag (they are integers 0/1), and places the order without it', async () => {
    const before = (await orders(alice)).length;
    for (const flag of ['book_or_cancel', 'fill_or_kill', 'immediate_or_cancel']) {
      refused(await call('POST', '/api/v1/api/v1/mtf/orders', alice, { ...mtf, [flag]: null }), flag);
    }
    expect(await orders(alice)).toHaveLength(before);
    ok(await call('POST', '/api/v1/api/v1/mtf/orders', alice, mtf), 201);
  });

  it('canonical placement takes null for the nullable optionals, and a null quantity is a 400 (it was a 500)', async () => {
    const placed = ok(
      await call('POST', '/api/v1/trading/orders', alice, {
        ...canonical, client_reference: null, reporting_identifier: null, trigger_price: null, expiry_timestamp: null, notional_amount: null,
        tip_quantity: null, trailing_amount: null, trailing_percent: null,
      }),
      201,
    );
    expect(placed).toMatchObject({ status: 'NEW', client_reference: null, reporting_identifier: null, trigger_price: null, quantity: '1.000000000000000000' });
    const noQuantity = await call('POST', '/api/v1/trading/orders', alice, { ...canonical, quantity: null });
    refused(noQuantity, 'quantity');
    expect(noQuantity.json.error.details).toEqual([{ field: 'quantity', issue: 'required' }]);
  });

  it('cancel-all with a market refuses a null venue; a null market is every market', async () => {
    refused(await call('POST', '/api/v1/trading/orders/cancel-all', bob, { market: 'BTC-PERP', venue: null }), 'venue');
    const id = ok(await call('POST', '/api/v1/trading/orders', bob, { ...canonical, market: 'SOL-PERP', limit_price: '10' }), 201).order_uuid;
    await until(() => orders(bob), (os) => os.find((o) => o.order_uuid === id)?.status === 'OPEN');
    const receipt = ok(await call('POST', '/api/v1/trading/orders/cancel-all', bob, { market: null, venue: 'MTF' }), 200);
    expect(receipt).toMatchObject({ requested_count: 1 });
    await until(() => orders(bob), (os) => os.find((o) => o.order_uuid === id)?.status === 'CANCELLED');
  });

  it('single cancel refuses a null venue and takes a null reason', async () => {
    const id = ok(await call('POST', '/api/v1/trading/orders', alice, { ...canonical, limit_price: '900' }), 201).order_uuid;
    refused(await call('POST', `/api/v1/trading/orders/${id}/cancel`, alice, { venue: null }), 'venue');
    ok(await call('POST', `/api/v1/trading/orders/${id}/cancel`, alice, { reason: null, venue: 'MTF' }), 200);
  });

  it('closing a position refuses a null venue; a null quantity closes the whole position (it was a 500)', async () => {
    const seller = await registerTrader(t);
    const buyer = await registerTrader(t);
    ok(await call('POST', '/api/v1/trading/orders', seller, { ...canonical, side: 'SELL', limit_price: '2500', quantity: '2' }), 201);
    ok(await call('POST', '/api/v1/trading/orders', buyer, { ...canonical, limit_price: '2500', quantity: '2', time_in_force: 'IOC' }), 201);
    await until(() => positions(buyer), (ps) => ps[0]?.side === 'LONG');
    refused(await call('POST', '/api/v1/trading/positions/close', buyer, { external_reference: 'Y2xvc2U=', venue: null }), 'venue');
    ok(await call('POST', '/api/v1/trading/orders', seller, { ...canonical, limit_price: '2400', quantity: '5' }), 201); // liquidity to sell into
    const close = ok(await call('POST', '/api/v1/trading/positions/close', buyer, { external_reference: 'Y2xvc2U=', quantity: null, reporting_identifier: null }), 201);
    expect(close).toMatchObject({ side: 'SELL', order_type: 'MARKET', reduce_only: true, quantity: '2.000000000000000000', reporting_identifier: null });
  });

  it('market flags refuse null (booleans)', async () => {
    const admin = await adminHeaders(t);
    const market = Object.values((await call('GET', '/api/v1/api/v1/mtf/markets', admin)).json.response)[0] as { market_uuid: string };
    refused(await call('POST', `/api/v1/api/v1/mtf/markets/${market.market_uuid}/flags`, admin, { is_suspended: null }), 'is_suspended');
  });
});

describe('AI-agent wallets', () => {
  let owner: Headers;
  let workspace: string;
  const api = walletApi(() => ({ t, owner, workspace }));

  beforeAll(async () => {
    ({ owner, workspace } = await workspaceOwner(t));
  });

  it('refuses a null approval reason and a null token scope', async () => {
    const { binding, agent, secret } = await api.newBinding();
    const intent = ok(await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, { ...agent, 'idempotency-key': 'nulls-1' }, intentBody('0.2')), 201);
    expect(intent.state).toBe('PENDING_APPROVAL');
    const [approval] = ok(await call('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/approvals?state=PENDING`, owner), 200).items;
    refused(await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, { reason: null }), 'reason');
    expect(ok(await call('POST', `/api/v1/ai-wallets/approvals/${approval.approval_uuid}/approve`, owner, { reason: 'Invoice checked' }), 200).state).toBe('APPROVED');
    const token = { grant_type: 'client_credentials', client_id: binding.workload_client_id, client_secret: secret };
    refused(await call('POST', '/api/v1/auth/token', {}, { ...token, scope: null }), 'scope');
    ok(await call('POST', '/api/v1/auth/token', {}, token), 200);
  });

  it('takes null operational_wallet_uuid and policy (a PENDING binding), and null purpose and rationale (a preview)', async () => {
    const created = ok(
      await call('POST', '/api/v1/ai-wallets/bindings', owner, {
        workspace_uuid: workspace, agent_label: 'nulls-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: '0x52908400098527886E0F7030069857D2E4169EE7',
        operational_wallet_uuid: null, policy: null,
      }),
      201,
    );
    expect(created).toMatchObject({ state: 'PENDING', policy: null, operational_wallet_uuid: null });
    const { binding, agent } = await api.newBinding();
    const preview = ok(await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents/evaluate`, agent, intentBody('0.2', { purpose: null, rationale: null })), 200);
    expect(preview).toMatchObject({ dry_run: true, state: 'PREVIEW' });
    // A live intent still needs its rationale: null is no rationale.
    refused(await call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, { ...agent, 'idempotency-key': 'nulls-2' }, intentBody('0.2', { rationale: null })), 'rationale');
  });
});

describe('agentic memory', () => {
  let owner: Person;
  let agent: Person;
  let collection: string;
  let objectId: string;
  const memory = memoryApi(() => t);

  beforeAll(async () => {
    owner = await memory.person(undefined, 'Publisher');
    agent = await memory.person(undefined, 'Agent');
    collection = (await memory.createCollection(owner, { slug: null })).collection_uuid;
    objectId = (await memory.publishObjects(owner, collection, [contextObject()])).memories[0].object_uuid;
  });

  it('refuses null for optional fields that are not nullable: a query’s priority, a publication’s human approval, an object’s content', async () => {
    refused(await call('POST', `${M}/collections/${collection}/requests`, agent.headers, { request_type: 'QUERY', question: 'When does the batch close?', priority: null }), 'priority');
    refused(
      await call('POST', `${M}/collections/${collection}/publications`, agent.headers, { agent_action_rationale_commitment: RATIONALE, human_approval_commitment: null, objects: [contextObject()] }),
      'human_approval_commitment',
    );
    refused(await call('POST', `${M}/collections/${collection}/items`, owner.headers, contextObject({ content: null })), 'content');
    refused(await call('PATCH', `${M}/collections/${collection}`, owner.headers, { title: null }), 'title');
  });

  it('takes null where the seeds allow it: a clarification’s priority (NORMAL), an object’s confidence and source commitment', async () => {
    const clarification = ok(
      await call('POST', `${M}/collections/${collection}/clarifications`, agent.headers, { object_uuid: objectId, question: 'Since when?', agent_action_rationale_commitment: RATIONALE, priority: null }),
      202,
    );
    expect(clarification.response).toMatchObject({ request_type: 'CLARIFY', state: 'OPEN' });
    const inbox = ok(await call('GET', `${M}/collections/${collection}/inbox?limit=200`, owner.headers), 200).response.items;
    expect(inbox.find((i: { request: { request_uuid: string } }) => i.request.request_uuid === clarification.response.request_uuid)).toMatchObject({ priority: 'NORMAL' });
    const item = ok(await call('POST', `${M}/collections/${collection}/items`, owner.headers, contextObject({ confidence: null, source_memory_commitment: null })), 201);
    expect(item.response).toMatchObject({ confidence: null, source_memory_commitment: null });
    const withSource = ok(await call('POST', `${M}/collections/${collection}/items`, owner.headers, contextObject({ source_memory_commitment: sha256('v1') })), 201);
    expect(withSource.response.source_memory_commitment).toBe(sha256('v1'));
  });

  it('a collection created with a null slug has none (a null slug claims nothing)', async () => {
    const first = ok(await call('GET', `${M}/collections/${collection}`, owner.headers), 200).response;
    expect(first.slug).toBeNull();
    const second = ok(await call('POST', `${M}/collections`, owner.headers, collectionBody(owner.workspace, { title: 'Another', slug: null })), 201).response;
    expect(second.slug).toBeNull();
  });
});

describe('audit', () => {
  it('refuses a null reason when granting or revoking the AUDITOR role', async () => {
    const admin = await adminHeaders(t);
    const profile = ok(await call('GET', '/api/v1/identity/contact', bob), 200).profile_uuid;
    refused(await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: profile, reason: null }), 'reason');
    ok(await call('POST', '/api/v1/audit/auditors', admin, { profile_uuid: profile, reason: 'External audit 2026' }), 201);
    refused(await call('POST', `/api/v1/audit/auditors/${profile}/revoke`, admin, { reason: null }), 'reason');
    ok(await call('POST', `/api/v1/audit/auditors/${profile}/revoke`, admin, {}), 200);
  });
});
