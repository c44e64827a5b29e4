/**
 * The account notification inbox over HTTP on the real app: every source flow (identity's security alerts, trading's
 * fills and platform cancellations, AI-agent wallet approvals, denials and expiries, agentic memory requests) driven
 * through its own routes, and the notification it leaves (type, source, href, reference); unread counts across read,
 * read-all and archive; status filters; cursor pages that stay stable while new notifications arrive; isolation
 * between accounts; bad input; and, last, that no secret handed out during the suite appears in any notification.
 */
import { hashToken } from '../../src/platform/security/tokens';
import { totpCode } from '../../src/modules/identity/security/totp';
import { readMailbox } from '../../src/modules/identity/delivery';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { IntentExpirySweep } from '../../src/modules/ai-wallets/commands';
import { ListNotifications } from '../../src/modules/notifications/queries';
import { isRelativeHref } from '../../src/modules/notifications/domain/notification';
import { looksSecretFree } from '../../src/modules/notifications/domain/text';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import type { Principal } from '../../src/platform/auth/principal';
import { QueryBus } from '@nestjs/cqrs';
import { startTestApp, type TestApp } from '../support/app';
import { DEST, intentBody, policy, walletApi } from '../support/ai-wallets';
import { collectionBody, M } from '../support/agentic-memory';
import { FIREFOX, N, notificationApi, SAFARI, type Account, type Notification } from '../support/notifications';
import { until, type Headers } from '../support/traders';

const HEX32 = /^[0-9a-f]{32}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const FIELDS = ['notificationUuid', 'title', 'message', 'type', 'source', 'status', 'createdAt', 'updatedAt'];

let t: TestApp;
/** The app's clock runs this far ahead of the wall clock (AI-wallet approvals expire by it). */
let offsetMs = 0;
const api = notificationApi(() => t);
const { call, account, all, waitFor, secrets } = api;

beforeAll(async () => {
  t = await startTestApp({}, { clock: () => new Date(Date.now() + offsetMs) });
});
afterAll(() => t.close());
afterEach(() => {
  offsetMs = 0;
});

const ofType = (type: string) => (n: Notification) => n.type === type;

function expectRecord(n: Notification): void {
  expect(Object.keys(n).filter((k) => !['href', 'reference'].includes(k))).toEqual(FIELDS);
  expect(n.notificationUuid).toMatch(HEX32);
  expect(n.createdAt).toMatch(ISO);
  expect(n.updatedAt).toMatch(ISO);
  expect(['UNREAD', 'READ', 'ARCHIVED']).toContain(n.status);
  if (n.href !== undefined) expect(isRelativeHref(n.href)).toBe(true);
}

function expectError(r: { status: number; json: any }, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.json).toMatchObject({ success: false, error: { code, message: expect.any(String), request_id: expect.any(String), retryable: false, details: expect.any(Array) } });
}

/** The caller's notifications as the read side has them once every projector has passed the log's head. */
async function settle(): Promise<void> {
  const store: EventStore = t.app.get(EVENT_STORE);
  expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 8000)).toBe(true);
}

// ---------------------------------------------------------------------------------------------------------------
describe('security alerts (identity)', () => {
  it('a sign-in from a device not seen before: not for the first device, nor again for a known one', async () => {
    const a = await account(FIREFOX);
    await api.login(a.email, a.password, a.ip, FIREFOX);
    expect((await all(a.headers)).filter(ofType('SECURITY_NEW_DEVICE_SIGN_IN'))).toEqual([]);

    const phone = await api.login(a.email, a.password, a.ip, SAFARI);
    const [n] = await waitFor(a.headers, ofType('SECURITY_NEW_DEVICE_SIGN_IN'));
    expectRecord(n);
    expect(n).toMatchObject({ source: 'identity', status: 'UNREAD', href: '/api/v1/auth/events', reference: phone.session_id });
    expect(n.message).toContain('iOS 17');
    expect((await call('GET', n.href!, a.headers)).status).toBe(200);

    await api.login(a.email, a.password, a.ip, SAFARI);
    await api.login(a.email, a.password, a.ip, FIREFOX);
    expect((await all(a.headers)).filter(ofType('SECURITY_NEW_DEVICE_SIGN_IN'))).toHaveLength(1);
  });

  it('a burst of failed sign-ins raises one alert', async () => {
    const a = await account();
    for (let i = 0; i < 4; i++) expect((await call('POST', '/api/v1/auth/sessions', {}, { email: a.email, password: `Wrong-${i}-Password-1` }, { ip: api.nextIp() })).status).toBe(401);
    expect((await all(a.headers)).filter(ofType('SECURITY_FAILED_SIGN_IN_BURST'))).toEqual([]);
    expect((await call('POST', '/api/v1/auth/sessions', {}, { email: a.email, password: 'Wrong-4-Password-1' }, { ip: api.nextIp() })).status).toBe(401);
    const [n] = await waitFor(a.headers, ofType('SECURITY_FAILED_SIGN_IN_BURST'));
    expect(n).toMatchObject({ source: 'identity', href: '/api/v1/auth/events', reference: a.profile_uuid });
    expect(n.message).toContain('5 failed sign-in attempts');
    // More failures inside the same window do not repeat the alert.
    expect((await call('POST', '/api/v1/auth/sessions', {}, { email: a.email, password: 'Wrong-5-Password-1' }, { ip: api.nextIp() })).status).toBe(401);
    await settle();
    expect((await all(a.headers)).filter(ofType('SECURITY_FAILED_SIGN_IN_BURST'))).toHaveLength(1);
  });

  it('authenticator enrolled, step-up issued, authenticator disabled (its session revocation is not told twice)', async () => {
    const a = await account();
    const e = await call('POST', '/api/v1/identity/authenticator/enrollments', a.headers, {});
    expect(e.status).toBe(201);
    secrets.add(e.json.secret);
    const confirmed = await call('POST', `/api/v1/identity/authenticator/enrollments/${e.json.enrollment_id}/confirm`, a.headers, { code: totpCode(e.json.secret, Date.now()) });
    expect(confirmed.status).toBe(200);
    (confirmed.json.recovery_codes as string[]).forEach((c) => secrets.add(c));
    const [enrolled] = await waitFor(a.headers, ofType('SECURITY_AUTHENTICATOR_ENROLLED'));
    expect(enrolled).toMatchObject({ source: 'identity', reference: e.json.enrollment_id, href: '/api/v1/auth/events' });

    const code = totpCode(e.json.secret, Date.now() + 30_000);
    secrets.add(code);
    const su = await call('POST', '/api/v1/auth/step-up', a.headers, { purpose: 'AUTHENTICATOR_DISABLE', password: a.password, totp_code: code });
    expect(su.status).toBe(201);
    secrets.add(su.json.step_up_token);
    const [stepUp] = await waitFor(a.headers, ofType('SECURITY_STEP_UP_ISSUED'));
    expect(stepUp).toMatchObject({ source: 'identity', reference: a.session_id, href: '/api/v1/auth/events' });
    expect(stepUp.message).toContain('disabling the authenticator');

    const disabled = await call('POST', '/api/v1/identity/authenticator/disable', a.headers, { step_up_token: su.json.step_up_token });
    expect(disabled.status).toBe(200);
    expect((await call('GET', N, a.headers)).status).toBe(401);
    const again = await api.login(a.email, a.password, a.ip);
    const [off] = await waitFor(again.headers, ofType('SECURITY_AUTHENTICATOR_DISABLED'));
    expect(off).toMatchObject({ source: 'identity', reference: a.session_id, href: '/api/v1/auth/events' });
    expect(off.message).toContain('all sessions were signed out');
    expect((await all(again.headers)).filter(ofType('SECURITY_SESSION_REVOKED'))).toEqual([]);
  });

  it('a session revoked from another session is told; signing out of one\'s own session is not', async () => {
    const a = await account();
    const second = await api.login(a.email, a.password, a.ip);
    expect((await call('DELETE', `/api/v1/auth/sessions/${second.session_id}`, a.headers)).status).toBe(200);
    const [n] = await waitFor(a.headers, ofType('SECURITY_SESSION_REVOKED'));
    expect(n).toMatchObject({ source: 'identity', reference: second.session_id, href: '/api/v1/auth/events' });

    const third = await api.login(a.email, a.password, a.ip);
    expect((await call('DELETE', `/api/v1/auth/sessions/${third.session_id}`, third.headers)).status).toBe(200);
    await settle();
    expect((await all(a.headers)).filter(ofType('SECURITY_SESSION_REVOKED'))).toHaveLength(1);
  });

  it('a contact change requested and confirmed, without the new address itself', async () => {
    const a = await account();
    const newEmail = `moved-${a.email}`;
    const r = await call('POST', '/api/v1/identity/contact-changes', a.headers, { current_password: a.password, contact_type: 'email', value: newEmail });
    expect(r.status).toBe(201);
    const [requested] = await waitFor(a.headers, ofType('SECURITY_CONTACT_CHANGE_REQUESTED'));
    expect(requested).toMatchObject({ source: 'identity', reference: a.profile_uuid, href: '/api/v1/identity/contact' });
    expect(requested.message).toContain(r.json.target_hint);
    expect(requested.message).not.toContain(newEmail);

    const [delivery] = (await readMailbox(t.config.dataDir, newEmail)).filter((d) => d.kind === 'CONTACT_CHANGE');
    secrets.add(delivery.token);
    expect((await call('POST', '/api/v1/identity/contact-changes/confirm', {}, { token: delivery.token })).status).toBe(200);
    const moved = await api.login(newEmail, a.password, a.ip);
    const [changed] = await waitFor(moved.headers, ofType('SECURITY_CONTACT_CHANGED'));
    expect(changed).toMatchObject({ source: 'identity', reference: a.profile_uuid, href: '/api/v1/identity/contact' });
    expect(changed.message).not.toContain(newEmail);
    expect((await call('GET', changed.href!, moved.headers)).status).toBe(200);
    expect((await all(moved.headers)).filter(ofType('SECURITY_SESSION_REVOKED'))).toEqual([]);
  });

  it('account closure scheduled, cancelled, scheduled again and completed', async () => {
    const a = await account();
    const first = await call('POST', '/api/v1/identity/closure', a.headers, { current_password: a.password });
    expect(first.status).toBe(202);
    const [scheduled] = await waitFor(a.headers, ofType('SECURITY_ACCOUNT_CLOSURE_SCHEDULED'));
    expect(scheduled).toMatchObject({ source: 'identity', reference: first.json.request_uuid, href: '/api/v1/identity/closure' });
    expect(scheduled.message).toContain(first.json.scheduled_for);
    expect((await call('GET', scheduled.href!, a.headers)).status).toBe(200);

    expect((await call('POST', '/api/v1/identity/closure/cancel', a.headers, {})).status).toBe(200);
    const [cancelled] = await waitFor(a.headers, ofType('SECURITY_ACCOUNT_CLOSURE_CANCELLED'));
    expect(cancelled).toMatchObject({ source: 'identity', reference: first.json.request_uuid, href: '/api/v1/identity/closure' });

    const second = await call('POST', '/api/v1/identity/closure', a.headers, { current_password: a.password });
    expect(second.status).toBe(202);
    await waitFor(a.headers, ofType('SECURITY_ACCOUNT_CLOSURE_SCHEDULED'), 2);
    expect(await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 15 * 24 * 3600 * 1000))).toBe(1);
    await settle();
    // A closed account signs in no more: its inbox is read through the query the route uses.
    expect((await call('GET', N, a.headers)).status).toBe(401);
    const page = await t.app.get(QueryBus).execute(new ListNotifications({ profile_uuid: a.profile_uuid } as Principal, undefined, 50));
    const completed = page.items.filter(ofType('SECURITY_ACCOUNT_CLOSURE_COMPLETED'));
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ source: 'identity', reference: second.json.request_uuid, href: '/api/v1/identity/closure', status: 'UNREAD' });
    expect(page.items.map((n: Notification) => n.type).slice(0, 4)).toEqual([
      'SECURITY_ACCOUNT_CLOSURE_COMPLETED', 'SECURITY_ACCOUNT_CLOSURE_SCHEDULED', 'SECURITY_ACCOUNT_CLOSURE_CANCELLED', 'SECURITY_ACCOUNT_CLOSURE_SCHEDULED',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('trading', () => {
  const MTF = '/api/v1/api/v1/mtf';
  const place = async (who: Headers, over: Record<string, unknown>) => {
    const r = await call('POST', `${MTF}/orders`, who, { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'bm90aWZ5', ...over });
    expect(r.status).toBe(201);
    return r.json.response as { order_uuid: string; status: string };
  };
  const statusOf = async (who: Headers, id: string) => {
    const r = await call('GET', `${MTF}/order_meta?order_uuid=${id}`, who);
    return r.json?.response?.order as { status: string } | undefined;
  };
  const settled = (who: Headers, id: string, status: string) => until(() => statusOf(who, id), (o) => o?.status === status);

  it('a partial fill and fills, for each account whose order traded', async () => {
    const alice = await account();
    const bob = await account();
    const ask = await place(alice.headers, { direction: 'SELL', order_size: '0.020', limit_price: '61000' });
    await settled(alice.headers, ask.order_uuid, 'OPEN');
    const bid = await place(bob.headers, { direction: 'BUY', order_size: '0.010', limit_price: '61000' });

    const [partial] = await waitFor(alice.headers, ofType('ORDER_PARTIALLY_FILLED'));
    expectRecord(partial);
    expect(partial).toMatchObject({ source: 'trading', status: 'UNREAD', reference: ask.order_uuid, href: `${MTF}/order_meta?order_uuid=${ask.order_uuid}` });
    expect(partial.message).toContain('sell limit order for 0.02 BTC-PERP');
    expect(partial.message).toContain('0.01 filled, 0.01 remaining');
    const [bobFilled] = await waitFor(bob.headers, ofType('ORDER_FILLED'));
    expect(bobFilled).toMatchObject({ source: 'trading', reference: bid.order_uuid, href: `${MTF}/order_meta?order_uuid=${bid.order_uuid}` });
    expect(bobFilled.message).toContain('buy limit order for 0.01 BTC-PERP was filled');
    const meta = await call('GET', partial.href!, alice.headers);
    expect(meta.status).toBe(200);
    expect(meta.json.response.order.order_uuid).toBe(ask.order_uuid);
    // The href is an action for its owner only.
    expect((await call('GET', partial.href!, bob.headers)).status).toBe(404);

    await place(bob.headers, { direction: 'BUY', order_size: '0.010', limit_price: '61000' });
    const [aliceFilled] = await waitFor(alice.headers, ofType('ORDER_FILLED'));
    expect(aliceFilled).toMatchObject({ reference: ask.order_uuid, source: 'trading' });
    expect(aliceFilled.notificationUuid).not.toBe(partial.notificationUuid);
    expect((await all(alice.headers)).filter(ofType('ORDER_PARTIALLY_FILLED'))).toHaveLength(1);
  });

  it('one notification for an order filled by several trades of one round', async () => {
    const maker1 = await account();
    const maker2 = await account();
    const taker = await account();
    const a1 = await place(maker1.headers, { direction: 'SELL', order_size: '0.010', limit_price: '62000' });
    const a2 = await place(maker2.headers, { direction: 'SELL', order_size: '0.010', limit_price: '62001' });
    await settled(maker1.headers, a1.order_uuid, 'OPEN');
    await settled(maker2.headers, a2.order_uuid, 'OPEN');
    const bid = await place(taker.headers, { direction: 'BUY', order_size: '0.020', limit_price: '62001' });
    await settled(taker.headers, bid.order_uuid, 'FILLED');
    await settled(maker2.headers, a2.order_uuid, 'FILLED');
    await settle();
    const mine = (await all(taker.headers)).filter((n) => n.source === 'trading');
    expect(mine.map((n) => [n.type, n.reference])).toEqual([['ORDER_FILLED', bid.order_uuid]]);
    expect(mine[0].message).toContain('buy limit order for 0.02 BTC-PERP was filled');
  });

  it('a cancellation by the platform is told, one the account asked for is not', async () => {
    const carol = await account();
    const market = await place(carol.headers, { market: 'SOL-PERP', order_size: '1', limit_price: null });
    await settled(carol.headers, market.order_uuid, 'CANCELLED');
    const [n] = await waitFor(carol.headers, ofType('ORDER_CANCELLED_BY_PLATFORM'));
    expect(n).toMatchObject({ source: 'trading', reference: market.order_uuid, href: `${MTF}/order_meta?order_uuid=${market.order_uuid}` });
    expect(n.message).toContain('41_CancelReason_MarketOrderNoLiquidity');
    expect(n.message).toContain('buy market order for 1 SOL-PERP');

    const resting = await place(carol.headers, { limit_price: '1000' });
    await settled(carol.headers, resting.order_uuid, 'OPEN');
    expect((await call('POST', `${MTF}/cancel`, carol.headers, { order_ids: [resting.order_uuid] })).status).toBe(200);
    await settled(carol.headers, resting.order_uuid, 'CANCELLED');
    await settle();
    const trading = (await all(carol.headers)).filter((x) => x.source === 'trading');
    expect(trading.map((x) => x.reference)).toEqual([market.order_uuid]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('AI-agent wallets', () => {
  let owner: Account;
  let workspace: string;
  const wallets = walletApi(() => ({ t, owner: owner.headers, workspace }));

  beforeAll(async () => {
    owner = await account();
    const ws = await call('POST', '/api/v1/workspaces', owner.headers, { name: 'Treasury' });
    expect(ws.status).toBe(201);
    workspace = ws.json.workspace_id;
  });

  it('an intent waiting for approval, a denied intent, an approval that expired', async () => {
    const { binding, agent, secret } = await wallets.newBinding(policy());
    secrets.add(secret);
    const b = binding.binding_uuid;
    const live = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 'notify-approval-1' }, intentBody('0.5'));
    expect(live.status).toBe(201);
    expect(live.json.state).toBe('PENDING_APPROVAL');
    const approvals = await call('GET', `/api/v1/ai-wallets/bindings/${b}/approvals`, owner.headers);
    const approval = approvals.json.items[0];
    const [asked] = await waitFor(owner.headers, ofType('AI_WALLET_APPROVAL_REQUESTED'));
    expectRecord(asked);
    expect(asked).toMatchObject({ source: 'ai-wallets', reference: approval.approval_uuid, href: `/api/v1/ai-wallets/bindings/${b}/approvals?state=PENDING` });
    expect(asked.message).toContain('payments-agent');
    expect(asked.message).toContain('0.5 ETH');
    const pending = await call('GET', asked.href!, owner.headers);
    expect(pending.status).toBe(200);
    expect(pending.json.items.map((x: { approval_uuid: string }) => x.approval_uuid)).toContain(approval.approval_uuid);

    const denied = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents`, { ...agent, 'idempotency-key': 'notify-denied-1' }, intentBody('0.2', { destination: { type: 'ADDRESS', id: '0x000000000000000000000000000000000000dEaD' } }));
    expect(denied.status).toBe(201);
    expect(denied.json.state).toBe('DENIED');
    const [no] = await waitFor(owner.headers, ofType('AI_WALLET_INTENT_DENIED'));
    expect(no).toMatchObject({ source: 'ai-wallets', reference: denied.json.intent_uuid, href: `/api/v1/ai-wallets/intents/${denied.json.intent_uuid}` });
    expect(no.message).toContain('DESTINATION_NOT_ALLOWLISTED');
    expect((await call('GET', no.href!, owner.headers)).json.intent_uuid).toBe(denied.json.intent_uuid);

    offsetMs = Date.parse(approval.expires_at) + 1000 - Date.now();
    expect(await t.app.get(IntentExpirySweep).sweep()).toBeGreaterThanOrEqual(1);
    const [expired] = await waitFor(owner.headers, ofType('AI_WALLET_APPROVAL_EXPIRED'));
    expect(expired).toMatchObject({ source: 'ai-wallets', reference: approval.approval_uuid, href: `/api/v1/ai-wallets/intents/${live.json.intent_uuid}` });
    expect((await call('GET', expired.href!, owner.headers)).json.state).toBe('EXPIRED');
    // The agent is no account: its workload token does not reach the inbox.
    offsetMs = 0;
    expect((await call('GET', N, agent)).status).toBe(403);
    expect(JSON.stringify(await all(owner.headers))).not.toContain(DEST);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('agentic memory', () => {
  it('a new request in the publisher\'s inbox, then the answer and the dismissal for the requester', async () => {
    const publisher = await account();
    const requester = await account();
    const ws = await call('POST', '/api/v1/workspaces', publisher.headers, { name: 'Research' });
    const created = await call('POST', `${M}/collections`, publisher.headers, collectionBody(ws.json.workspace_id));
    expect(created.status).toBe(201);
    const c = created.json.response.collection_uuid;

    const question = 'Does the EU batch close move in December too?';
    const filed = await call('POST', `${M}/collections/${c}/requests`, requester.headers, { request_type: 'QUERY', question, priority: 'HIGH' });
    expect(filed.status).toBe(202);
    const r1 = filed.json.response.request_uuid;
    const [received] = await waitFor(publisher.headers, ofType('MEMORY_REQUEST_RECEIVED'));
    expectRecord(received);
    expect(received).toMatchObject({ source: 'agentic-memory', reference: r1, href: `${M}/collections/${c}/inbox` });
    expect(received.message).toContain('Payments runbook');
    expect(received.message).not.toContain(question);
    expect((await call('GET', received.href!, publisher.headers)).status).toBe(200);

    const answer = 'Yes: from 2026-12-01 it closes at 16:00 UTC.';
    expect((await call('POST', `${M}/requests/${r1}/resolve`, publisher.headers, { state: 'ANSWERED', response: answer })).status).toBe(200);
    const [answered] = await waitFor(requester.headers, ofType('MEMORY_REQUEST_ANSWERED'));
    expect(answered).toMatchObject({ source: 'agentic-memory', reference: r1, href: `${M}/requests/${r1}` });
    expect(answered.message).not.toContain(answer);
    const status = await call('GET', answered.href!, requester.headers);
    expect(status.json.response).toMatchObject({ state: 'ANSWERED', response: answer });

    const second = await call('POST', `${M}/collections/${c}/requests`, requester.headers, { request_type: 'QUERY', question: 'And in January?' });
    const r2 = second.json.response.request_uuid;
    expect((await call('POST', `${M}/requests/${r2}/resolve`, publisher.headers, { state: 'DISMISSED', response: 'Out of scope.' })).status).toBe(200);
    const [dismissed] = await waitFor(requester.headers, ofType('MEMORY_REQUEST_DISMISSED'));
    expect(dismissed).toMatchObject({ source: 'agentic-memory', reference: r2, href: `${M}/requests/${r2}` });

    // The publisher's own request is no news to the publisher.
    const own = await call('POST', `${M}/collections/${c}/requests`, publisher.headers, { request_type: 'PROPOSE', question: 'Add the December calendar.' });
    expect(own.status).toBe(202);
    await settle();
    expect((await all(publisher.headers)).filter(ofType('MEMORY_REQUEST_RECEIVED')).map((n) => n.reference)).toEqual([r2, r1]);
    expect((await all(requester.headers)).filter((n) => n.source === 'agentic-memory')).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('the inbox', () => {
  /** A step-up is the cheapest notification an account can cause for itself. */
  async function stepUps(a: Account, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const r = await call('POST', '/api/v1/auth/step-up', a.headers, { purpose: 'ACCOUNT_CLOSURE', password: a.password });
      expect(r.status).toBe(201);
      secrets.add(r.json.step_up_token);
    }
  }

  it('unread counts across read, read-all and archive; status filters; repeated commands change nothing', async () => {
    const a = await account();
    await stepUps(a, 4);
    const start = await call('GET', N, a.headers);
    expect(start.status).toBe(200);
    expect(Object.keys(start.json)).toEqual(['items', 'unreadCount', 'limit']);
    expect(start.json).toMatchObject({ unreadCount: 4, limit: 50 });
    const [n4, n3, n2, n1] = start.json.items as Notification[];
    expect(start.json.items.map((n: Notification) => n.status)).toEqual(['UNREAD', 'UNREAD', 'UNREAD', 'UNREAD']);

    const read = await call('POST', `${N}/${n1.notificationUuid}/read`, a.headers);
    expect(read.status).toBe(200);
    expect(read.headers['x-position']).toBeDefined();
    expect(read.json).toMatchObject({ notificationUuid: n1.notificationUuid, status: 'READ', createdAt: n1.createdAt });
    expect(Date.parse(read.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(n1.createdAt));
    expect((await call('GET', N, a.headers)).json.unreadCount).toBe(3);
    const twice = await call('POST', `${N}/${n1.notificationUuid}/read`, a.headers);
    expect(twice.json).toEqual(read.json);
    expect((await call('GET', N, a.headers)).json.unreadCount).toBe(3);

    const archived = await call('POST', `${N}/${n2.notificationUuid}/archive`, a.headers);
    expect(archived.status).toBe(200);
    expect(archived.json.status).toBe('ARCHIVED');
    const inbox = (await call('GET', N, a.headers)).json;
    expect(inbox.unreadCount).toBe(2);
    expect(inbox.items.map((n: Notification) => n.notificationUuid)).toEqual([n4.notificationUuid, n3.notificationUuid, n1.notificationUuid]);
    const ids = async (status: string) => (await call('GET', `${N}?status=${status}`, a.headers)).json.items.map((n: Notification) => n.notificationUuid);
    expect(await ids('ARCHIVED')).toEqual([n2.notificationUuid]);
    expect(await ids('READ')).toEqual([n1.notificationUuid]);
    expect(await ids('UNREAD')).toEqual([n4.notificationUuid, n3.notificationUuid]);
    // Reading an archived notification leaves it archived.
    expect((await call('POST', `${N}/${n2.notificationUuid}/read`, a.headers)).json.status).toBe('ARCHIVED');
    expect((await call('GET', `${N}/${n2.notificationUuid}`, a.headers)).json).toMatchObject({ status: 'ARCHIVED', notificationUuid: n2.notificationUuid });

    const all1 = await call('POST', `${N}/read-all`, a.headers);
    expect(all1.status).toBe(200);
    expect(all1.json).toEqual({ unreadCount: 0 });
    expect(await ids('UNREAD')).toEqual([]);
    expect(await ids('READ')).toEqual([n4.notificationUuid, n3.notificationUuid, n1.notificationUuid]);
    expect(await ids('ARCHIVED')).toEqual([n2.notificationUuid]);
    expect((await call('POST', `${N}/read-all`, a.headers)).json).toEqual({ unreadCount: 0 });

    await stepUps(a, 1);
    const after = (await call('GET', N, a.headers)).json;
    expect(after.unreadCount).toBe(1);
    expect(after.items[0].status).toBe('UNREAD');
    // Archiving a read one takes it out of the inbox; the unread count stays.
    expect((await call('POST', `${N}/${n1.notificationUuid}/archive`, a.headers)).json.status).toBe('ARCHIVED');
    expect((await call('GET', N, a.headers)).json.unreadCount).toBe(1);
    expect(await ids('ARCHIVED')).toEqual([n2.notificationUuid, n1.notificationUuid]);

    // Idempotency-Key replays the first answer.
    const key = { 'idempotency-key': `inbox-${a.profile_uuid}` };
    const first = await call('POST', `${N}/${after.items[0].notificationUuid}/read`, { ...a.headers, ...key });
    const replay = await call('POST', `${N}/${after.items[0].notificationUuid}/read`, { ...a.headers, ...key });
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.json).toEqual(first.json);
  });

  it("a caller sees only its own notifications: another account's id is 404; bad input is 400, never 500", async () => {
    const a = await account();
    const b = await account();
    await stepUps(a, 1);
    const [mine] = await all(a.headers);
    expect((await all(b.headers)).map((n) => n.notificationUuid)).not.toContain(mine.notificationUuid);
    for (const [method, url] of [['GET', ''], ['POST', '/read'], ['POST', '/archive']] as const) {
      expectError(await call(method, `${N}/${mine.notificationUuid}${url}`, b.headers), 404, 'NOT_FOUND');
      expectError(await call(method, `${N}/${'0'.repeat(32)}${url}`, a.headers), 404, 'NOT_FOUND');
      expectError(await call(method, `${N}/not-an-id${url}`, a.headers), 400, 'VALIDATION_FAILED');
    }
    expect((await call('GET', `${N}/${mine.notificationUuid}`, a.headers)).json.status).toBe('UNREAD');

    const bad = ['?status=NEW', '?status=unread', '?limit=0', '?limit=201', '?limit=abc', '?limit=-1', '?cursor=bm90LWEtY3Vyc29y', '?cursor=%%%', `?cursor=${'A'.repeat(600)}`, '?status=READ&status=UNREAD'];
    for (const q of bad) {
      const r = await call('GET', `${N}${q}`, a.headers);
      expect([q, r.status]).toEqual([q, 400]);
      expectError(r, 400, 'VALIDATION_FAILED');
    }
    expect((await call('GET', N)).status).toBe(401);
    expect((await call('POST', `${N}/read-all`)).status).toBe(401);
    const spec = await call('GET', '/api/v1/openapi.json');
    for (const path of [N, `${N}/read-all`, `${N}/{notification_uuid}`, `${N}/{notification_uuid}/read`, `${N}/{notification_uuid}/archive`]) expect(Object.keys(spec.json.paths)).toContain(path);
  });

  it('cursor pages stay stable while new notifications arrive; nextCursor is omitted when complete', async () => {
    const a = await account();
    await stepUps(a, 5);
    const everything = (await all(a.headers)).map((n) => n.notificationUuid);
    expect(everything).toHaveLength(5);

    const p1 = (await call('GET', `${N}?limit=2`, a.headers)).json;
    expect(p1.limit).toBe(2);
    expect(p1.items.map((n: Notification) => n.notificationUuid)).toEqual(everything.slice(0, 2));
    expect(p1.nextCursor).toEqual(expect.any(String));
    await stepUps(a, 2);
    const p2 = (await call('GET', `${N}?limit=2&cursor=${encodeURIComponent(p1.nextCursor)}`, a.headers)).json;
    expect(p2.items.map((n: Notification) => n.notificationUuid)).toEqual(everything.slice(2, 4));
    expect(p2.unreadCount).toBe(7);
    await stepUps(a, 1);
    const p3 = (await call('GET', `${N}?limit=2&cursor=${encodeURIComponent(p2.nextCursor)}`, a.headers)).json;
    expect(p3.items.map((n: Notification) => n.notificationUuid)).toEqual(everything.slice(4));
    expect('nextCursor' in p3).toBe(false);

    // The three that arrived meanwhile lead a fresh first page.
    const fresh = (await call('GET', `${N}?limit=4`, a.headers)).json;
    expect(fresh.items.slice(0, 3).map((n: Notification) => n.notificationUuid)).not.toContain(everything[0]);
    expect(fresh.items[3].notificationUuid).toBe(everything[0]);
    // A cursor belongs to its filter.
    expectError(await call('GET', `${N}?limit=2&status=UNREAD&cursor=${encodeURIComponent(p1.nextCursor)}`, a.headers), 400, 'VALIDATION_FAILED');
    const unread = (await call('GET', `${N}?limit=7&status=UNREAD`, a.headers)).json;
    expect(unread.items).toHaveLength(7);
    expect(unread.nextCursor).toEqual(expect.any(String));
    const rest = (await call('GET', `${N}?limit=7&status=UNREAD&cursor=${encodeURIComponent(unread.nextCursor)}`, a.headers)).json;
    expect(rest.items).toHaveLength(1);
    expect('nextCursor' in rest).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------------
describe('no secrets', () => {
  it('no secret, token, token hash or code handed out in this suite appears in any notification; every href is relative', async () => {
    await settle();
    const { notifications } = await api.rows();
    expect(notifications.length).toBeGreaterThan(30);
    const dump = JSON.stringify(notifications);
    expect(secrets.size).toBeGreaterThan(20);
    for (const s of secrets) {
      expect(dump).not.toContain(s);
      expect(dump).not.toContain(hashToken(s));
    }
    expect(dump).not.toMatch(/[0-9a-f]{64}/);
    expect(dump).not.toMatch(/hc(?:s|su|at|ct|wt|ws)_/);
    for (const n of notifications as Array<{ title: string; message: string; href: string | null }>) {
      expect([n.message, looksSecretFree(`${n.title} ${n.message}`)]).toEqual([n.message, true]);
      if (n.href !== null) expect(isRelativeHref(n.href)).toBe(true);
    }
  });
});
