/**
 * The commerce projection topics against a real Kafka broker, through the whole application (SQLite and PostgreSQL
 * read models): invoices (`commerce-invoices`) and their payments (`commerce-payments`, a second publication of the
 * same projector), settlement intents (`commerce-settlements`) and transfers (`commerce-transfers`). Driven through
 * the API (invoices paid in full, partly, late, cancelled, a payment failed; intents confirmed, cancelled; transfers
 * confirmed, with a travel-rule envelope, cancelled by compliance), then for each topic: the newest value per key is
 * the API's answer less the members the topic leaves out, every message fits the topic's schema, the headers carry
 * the owner ids, the topic is compacted, and a consumer reading it from the beginning ends with exactly the read
 * model's rows. No personal text (an invoice's cancellation detail, a compliance officer's evidence) reaches a topic.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { CommerceExpirySweep } from '../../src/modules/commerce/commands';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { startTestApp, type TestApp } from '../support/app';
import { suiteSchema } from '../support/databases';
import { hex32 } from '../support/events';
import { adminHeaders, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { byKey, readTopicUntil, schemaCheck, testBrokers, topicAndReadModel, topicConfig, topicPrefix, type Consumed, settledOnKafka } from './kafka-support';

// A run without a broker fails every test here with the reason (never a silent skip).
let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

const PASSWORD = 'Trader-Password-2026';
const ADDR = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** Personal text the API is given: it must reach no topic. */
const CANCEL_DETAIL = 'Customer Grace Hopperwalker phoned to cancel';
const EVIDENCE = { list: 'OFAC SDN', match: { name: 'Ada Lovelacewright', score: 0.97 } };

/** The newest message per key (what a compacted topic keeps). */
const newest = (messages: Consumed[]): Map<string, Consumed> => new Map([...byKey(messages)].map(([k, list]) => [k, list[list.length - 1]]));
type Json = Record<string, any>;
/** An API record less its per-viewer `actions`: what every commerce topic leaves out. */
const withoutActions = ({ actions: _actions, ...rest }: Json): Json => rest;

describe.each(['sqlite', 'postgres'] as const)('Kafka commerce projection topics on %s read models (real broker)', (kind) => {
  let t: TestApp;
  let prefix: string;
  let schema: ReturnType<typeof suiteSchema> | undefined;
  let owner: Headers;
  let admin: Headers;
  let workspace: string;
  let merchant: Json;
  /** The platform clock runs this far ahead of the system's: an invoice can expire without waiting. */
  let ahead = 0;

  async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; json: any }> {
    const r = await t.app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: r.statusCode, json: r.body ? r.json() : undefined };
  }
  async function stepUp(headers: Headers, purpose: string, password = PASSWORD): Promise<string> {
    const r = await call('POST', '/api/v1/auth/step-up', headers, { purpose, password });
    if (r.status !== 201) throw new Error(`step-up refused: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json.step_up_token;
  }
  const ok = async (r: Promise<{ status: number; json: any }>, status = 200): Promise<any> => {
    const answer = await r;
    expect([answer.status, answer.json?.error]).toEqual([status, undefined]);
    return answer.json;
  };
  let refs = 0;
  const invoice = (over: Record<string, unknown> = {}) =>
    ok(call('POST', '/api/v1/commerce/invoices', owner, { merchant_uuid: merchant.merchant_uuid, external_order_reference: `K-${++refs}`, asset: 'USD', line_items: [{ description: 'Sencha', quantity: '2', unit_price: '12.50' }], ...over }), 201);
  const pay = (invoice_uuid: string, amount?: string) => ok(call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid, ...(amount ? { amount } : {}) }), 201);
  const rail = (payment_uuid: string, transition: string, extra: Record<string, unknown> = {}) => ok(call('POST', `/api/v1/commerce/admin/payments/${payment_uuid}/rail`, admin, { transition, ...extra }));
  const settle = async (payment_uuid: string) => {
    for (const step of ['authorize', 'submit', 'settle']) await rail(payment_uuid, step);
  };

  beforeAll(async () => {
    prefix = topicPrefix();
    schema = kind === 'postgres' ? suiteSchema() : undefined;
    t = await startTestApp(
      {
        // One thread (WORKER_THREADS=0): the suite waits on this thread's publisher object (docs/operations.md 10.4).
        WORKER_THREADS: '0',
        KAFKA_BROKERS: brokers.join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        KAFKA_OUTBOX_POLL_MS: '20',
        ADMIN_EMAIL: TEST_ADMIN.email,
        ADMIN_PASSWORD: TEST_ADMIN.password,
        COMMERCE_EXPIRY_SWEEP_MS: '3600000',
        TRANSFER_TRAVEL_RULE_THRESHOLDS: 'USDC=1000',
        ...(schema?.env() ?? {}),
      },
      { clock: () => new Date(Date.now() + ahead) },
    );
    owner = await registerTrader(t);
    workspace = (await ok(call('POST', '/api/v1/workspaces', owner, { name: 'Tea House' }), 201)).workspace_id;
    await ok(call('POST', '/api/v1/workspaces/active', owner, { workspace_id: workspace }));
    admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
    const created = await ok(call('POST', '/api/v1/commerce/merchants', owner, { display_name: 'Tea House', category_code: 'RETAIL' }), 201);
    const token = await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password);
    merchant = await ok(call('POST', `/api/v1/commerce/merchants/${created.merchant_uuid}/activate`, admin, { expected_version: 0, review_reference: 'REV-1', step_up_token: token }));
  });

  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  const settled = () => settledOnKafka(t.app);

  /**
   * The topic of `readModel` against the API's answers (less what the topic leaves out): the newest value per key is
   * the answer (as JSON text: members in the API's order), every message fits the topic's schema and no message is a
   * seed or a tombstone here, headers name the owner, per key positions never decrease, the topic is compacted, and
   * it ends with exactly the read model's rows. Returns every message of the topic.
   */
  async function topicIsTheApi(readModel: string, key: string, answers: Json[], owners: (answer: Json) => Record<string, string>): Promise<Consumed[]> {
    const expected = new Map(answers.map((a) => [a[key] as string, a]));
    const topic = `${prefix}.projections.${readModel}`;
    const messages = await readTopicUntil(brokers, topic, (m) => {
      const last = newest(m);
      return [...expected].every(([k, v]) => {
        const value = last.get(k)?.value;
        return typeof value === 'string' && isDeepStrictEqual(JSON.parse(value), v);
      });
    });
    const valid = schemaCheck(`projection-${readModel}.schema.json`);
    for (const m of messages) {
      expect(m.value).not.toBeNull();
      valid(JSON.parse(m.value!));
      expect(m.key).toBe(JSON.parse(m.value!)[key]);
    }
    const last = newest(messages);
    for (const [k, v] of expected) {
      expect(last.get(k)!.value).toBe(JSON.stringify(v));
      expect(last.get(k)!.headers).toEqual({ read_model: readModel, position: expect.stringMatching(/^[1-9]\d*$/), event_id: expect.stringMatching(/^[0-9a-f]{32}$/), ...owners(v) });
    }
    for (const [, list] of byKey(messages)) {
      const positions = list.map((m) => BigInt(m.headers.position));
      expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    expect((await topicConfig(brokers, topic)).config['cleanup.policy']).toBe('compact');
    const rebuilt = await topicAndReadModel(t.app, brokers, prefix, readModel);
    expect(rebuilt.rows.size).toBeGreaterThanOrEqual(expected.size);
    expect(rebuilt.topic).toEqual(rebuilt.rows);
    const text = JSON.stringify(messages);
    expect(text).not.toContain('Hopperwalker');
    expect(text).not.toContain('Lovelacewright');
    return messages;
  }

  it('publishes invoices and their payments: paid in full, partly, late; cancelled (without the canceller\'s words); a failed payment', async () => {
    const full = await invoice();
    const fullPayment = await pay(full.invoice_uuid);
    await settle(fullPayment.payment_uuid);
    const partial = await invoice();
    const partialPayment = await pay(partial.invoice_uuid, '10.00');
    await settle(partialPayment.payment_uuid);
    const cancelled = await invoice();
    const waiting = await pay(cancelled.invoice_uuid);
    const token = await stepUp(owner, 'COMMERCE_INVOICE_CANCELLATION');
    const cancel = await ok(call('POST', `/api/v1/commerce/invoices/${cancelled.invoice_uuid}/cancel`, owner, { expected_invoice_version: 0, expected_status: 'OPEN', reason_code: 'CUSTOMER_REQUEST', step_up_token: token, reason_detail: CANCEL_DETAIL }));
    expect(cancel.cancellation.reason_detail).toBe(CANCEL_DETAIL); // the API shows it to the workspace
    const failing = await invoice();
    const failedPayment = await pay(failing.invoice_uuid);
    await rail(failedPayment.payment_uuid, 'authorize');
    await rail(failedPayment.payment_uuid, 'fail', { failure_code: 'INSUFFICIENT_FUNDS' });
    // Late: the invoice expires (the sweep, with the clock past expires_at), its waiting payment settles after.
    const late = await invoice({ expires_at: new Date(Date.now() + ahead + 10 * 60_000).toISOString() });
    const latePayment = await pay(late.invoice_uuid);
    ahead += 11 * 60_000;
    expect(await t.app.get(CommerceExpirySweep).tick()).toBe(1);
    await until(async () => (await call('GET', `/api/v1/commerce/invoices/${late.invoice_uuid}`, owner)).json.status, (s) => s === 'EXPIRED', 10_000);
    await settle(latePayment.payment_uuid);
    await settled();

    const invoices = await Promise.all([full, partial, cancelled, failing, late].map(async (i) => (await call('GET', `/api/v1/commerce/invoices/${i.invoice_uuid}`, owner)).json as Json));
    expect(invoices.map((i) => [i.status, i.exceptions])).toEqual([['PAID', []], ['PAID', ['PAID_PARTIAL']], ['CANCELLED', []], ['OPEN', []], ['PAID', ['PAID_LATE']]]);
    const published = invoices.map((i) => {
      const value = withoutActions(i);
      if (value.cancellation) {
        const { reason_detail: _personal, ...cancellation } = value.cancellation;
        value.cancellation = cancellation;
      }
      return value;
    });
    const invoiceMessages = await topicIsTheApi('commerce-invoices', 'invoice_uuid', published, (i) => ({ merchant_uuid: i.merchant_uuid, workspace_uuid: workspace, tenant_uuid: i.tenant_uuid }));
    // What the analysis of late and partial payments reads, per merchant.
    for (const v of newest(invoiceMessages).values()) expect(Object.keys(JSON.parse(v.value!))).toEqual(expect.arrayContaining(['total', 'amount_settled', 'status', 'expires_at', 'merchant_uuid']));
    expect(JSON.parse(newest(invoiceMessages).get(cancelled.invoice_uuid)!.value!).cancellation).toEqual({ reason_code: 'CUSTOMER_REQUEST', by_profile_uuid: cancel.cancellation.by_profile_uuid, at: cancel.cancellation.at });
    // Every change on its way: OPEN, then PROCESSING (authorized), then PAID.
    expect(byKey(invoiceMessages).get(full.invoice_uuid)!.map((m) => JSON.parse(m.value!).status)).toEqual(['OPEN', 'PROCESSING', 'PAID']);
    expect(byKey(invoiceMessages).get(late.invoice_uuid)!.map((m) => JSON.parse(m.value!).status)).toEqual(['OPEN', 'EXPIRED', 'PAID']);

    const payments = await Promise.all([fullPayment, partialPayment, waiting, failedPayment, latePayment].map(async (p) => withoutActions((await call('GET', `/api/v1/commerce/payments/${p.payment_uuid}`, owner)).json)));
    expect(payments.map((p) => p.state)).toEqual(['SETTLED', 'SETTLED', 'CANCELLED', 'FAILED', 'SETTLED']);
    const paymentMessages = await topicIsTheApi('commerce-payments', 'payment_uuid', payments, (p) => ({ merchant_uuid: p.merchant_uuid, workspace_uuid: workspace }));
    for (const v of newest(paymentMessages).values()) expect(Object.keys(JSON.parse(v.value!))).toEqual(expect.arrayContaining(['amount', 'state', 'settled_at', 'invoice_uuid']));
    expect(byKey(paymentMessages).get(fullPayment.payment_uuid)!.map((m) => JSON.parse(m.value!).state)).toEqual(['AUTHORIZATION_REQUIRED', 'AUTHORIZED', 'SUBMITTED', 'SETTLED']);
  });

  it('publishes settlement intents: confirmed, cancelled on its latest commitment, still requested', async () => {
    const usdc = await invoice({ asset: 'USDC', line_items: [{ description: 'Bulk', quantity: '1', unit_price: '10000' }] });
    await settle((await pay(usdc.invoice_uuid)).payment_uuid);
    const body = { merchant_uuid: merchant.merchant_uuid, network_id: 'ethereum-mainnet', asset: 'USDC', amount: '10.00', destination: ADDR(1) };
    const request = () => ok(call('POST', '/api/v1/commerce/settlement-intents', owner, body), 201);
    const treasury = (id: string, transition: string) => ok(call('POST', `/api/v1/commerce/admin/settlement-intents/${id}/treasury`, admin, { transition, transaction_reference: '0xabc' }));
    const confirmed = await request();
    for (const step of ['approve', 'submit', 'confirm']) await treasury(confirmed.settlement_intent_uuid, step);
    const cancelled = await request();
    const approved = await treasury(cancelled.settlement_intent_uuid, 'approve');
    await ok(call('POST', `/api/v1/commerce/settlement-intents/${cancelled.settlement_intent_uuid}/cancel`, owner, { network_id: 'ethereum-mainnet', expected_request_commitment: approved.request_commitment, reason_code: 'OWNER_CANCELLED' }));
    const requested = await request();
    await settled();

    const intents = await Promise.all([confirmed, cancelled, requested].map(async (i) => withoutActions((await call('GET', `/api/v1/commerce/settlement-intents/${i.settlement_intent_uuid}`, owner)).json)));
    expect(intents.map((i) => [i.state, i.revision])).toEqual([['CONFIRMED', 3], ['CANCELLED', 2], ['REQUESTED', 0]]);
    const messages = await topicIsTheApi('commerce-settlements', 'settlement_intent_uuid', intents, (i) => ({ merchant_uuid: i.merchant_uuid, workspace_uuid: workspace, tenant_uuid: i.tenant_uuid }));
    expect(byKey(messages).get(confirmed.settlement_intent_uuid)!.map((m) => JSON.parse(m.value!).state)).toEqual(['REQUESTED', 'APPROVED', 'SUBMITTED', 'CONFIRMED']);
  });

  it('publishes transfers: confirmed, with its travel-rule envelope (commitments only), cancelled by compliance (no evidence)', async () => {
    const hot = (await ok(call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'OPERATIONAL', network_id: 'ethereum-mainnet', label: 'Hot', address: ADDR(5) }), 201)).wallet_uuid;
    const request = (amount: string) => ok(call('POST', '/api/v1/transfers', owner, { merchant_uuid: merchant.merchant_uuid, source_wallet_uuid: hot, network_id: 'ethereum-mainnet', asset: 'USDC', amount, destination: ADDR(77) }), 201);
    const move = (transfer: Json, route: string, body: Record<string, unknown>) => ok(call('POST', `/api/v1/transfers/admin/${transfer.transfer_uuid}/${route}`, admin, { expected_version: transfer.version, ...body }));

    let confirmed = await move(await request('50'), 'screening', { result: 'CLEAR', screening_reference: 'scr-1' });
    confirmed = await move(confirmed, 'rail', { transition: 'submit', transaction_reference: '0xfeed' });
    confirmed = await move(confirmed, 'rail', { transition: 'confirm' });

    // Over the threshold: an envelope. The platform sees only its manifest (commitments), never the payload.
    const key = await ok(call('POST', '/api/v1/travel-rule/recipient-keys', admin, { institution_name: 'Beneficiary Bank AG', institution_lei: '529900T8BM49AURSDO55', public_key: Buffer.alloc(32, 7).toString('base64url') }), 201);
    const enveloped = await move(await request('1500'), 'screening', { result: 'CLEAR' });
    expect(enveloped.state).toBe('AWAITING_ENVELOPE');
    const aad = canonicalJson({ transfer_uuid: enveloped.transfer_uuid, amount: enveloped.amount, asset: enveloped.asset, destination: enveloped.destination });
    const manifest = {
      manifest_uuid: hex32(), ciphertext_sha256: sha256('ciphertext'), payload_commitment: sha256('payload'), recipient_key_id: key.recipient_key_id, associated_data_commitment: sha256(aad),
      encryption_algorithm: 'HPKE-BASE-X25519-HKDF-SHA256-CHACHA20POLY1305', payload_schema: 'IVMS101.2023',
    };
    const { encryption_algorithm: _a, payload_schema: _s, ...required } = manifest;
    const withEnvelope = await ok(call('POST', `/api/v1/transfers/${enveloped.transfer_uuid}/envelope`, owner, { ...required, manifest_commitment: sha256(canonicalJson(manifest)) }, { 'if-match': String(enveloped.version) }));
    expect([withEnvelope.state, withEnvelope.envelope.recipient_key_id]).toEqual(['READY', key.recipient_key_id]);

    const held = await move(await request('60'), 'screening', { result: 'FLAGGED', screening_reference: 'sanctions-hit' });
    const officer = await stepUp(admin, 'TRANSFER_COMPLIANCE_CANCELLATION', TEST_ADMIN.password);
    const cancelled = await ok(call('POST', `/api/v1/transfers/${held.transfer_uuid}/compliance-cancel`, admin, { evidence: EVIDENCE, reason_code: 'SANCTIONS_MATCH' }, { 'if-match': String(held.version), 'x-step-up-token': officer }));
    expect(cancelled.cancellation.evidence_commitment).toBe(sha256(canonicalJson(EVIDENCE as never)));
    await settled();

    const transfers = await Promise.all([confirmed, withEnvelope, cancelled].map(async (x) => withoutActions((await call('GET', `/api/v1/transfers/${x.transfer_uuid}`, owner)).json)));
    expect(transfers.map((x) => x.state)).toEqual(['CONFIRMED', 'READY', 'CANCELLED']);
    const messages = await topicIsTheApi('commerce-transfers', 'transfer_uuid', transfers, (x) => ({ merchant_uuid: x.merchant_uuid, workspace_uuid: workspace, tenant_uuid: x.tenant_uuid }));
    expect(byKey(messages).get(confirmed.transfer_uuid)!.map((m) => JSON.parse(m.value!).state)).toEqual(['REQUESTED', 'SCREENING', 'READY', 'SUBMITTED', 'CONFIRMED']);
    expect(JSON.parse(newest(messages).get(withEnvelope.transfer_uuid)!.value!).envelope).toEqual({ ...required, manifest_commitment: sha256(canonicalJson(manifest)), encryption_algorithm: manifest.encryption_algorithm, payload_schema: manifest.payload_schema });
  });
});
