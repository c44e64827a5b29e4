/**
 * The analysts' walkthrough (docs/analytics.md) against a real broker: the platform makes trades in two markets,
 * billable usage of two products on a tenant's account and on a person's own, and invoices paid in full, partially,
 * late and after their expiry; then `node docs/analytics/analyze.mjs --json` reads the platform's topics into
 * DuckDB, and its three answers must equal what the platform's own API says:
 *   a. volume per market and hour  = the minute candles (market_history) summed per hour, and the fills of the
 *      orders (GET /trading/orders/{id}) for the notional;
 *   b. credits per tenant/product  = GET /billing/usage by_source per account (and GET /billing/account's total;
 *      the orders and intents the API lists, per product);
 *   c. late / partial invoices     = GET /commerce/invoices per merchant (exceptions, amount_settled, total) and
 *      GET /commerce/payments (settled_at against the invoice's expires_at).
 * The clock is the system's plus an offset the test moves (one thread, WORKER_THREADS=0), so an invoice can expire.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CommerceExpirySweep } from '../../src/modules/commerce/commands';
import { BillingJobs } from '../../src/modules/billing/billing-jobs';
import { readMailbox } from '../../src/modules/identity/delivery';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { KafkaPublisherService } from '../../src/platform/kafka/kafka-publisher.service';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp, type TestApp } from '../support/app';
import { intentBody, policy, walletApi, type WalletSetup } from '../support/ai-wallets';
import { hex32 } from '../support/events';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, until, type Headers } from '../support/traders';
import { testBrokers, topicPrefix } from './kafka-support';

const run = promisify(execFile);
const SCRIPT = join(__dirname, '../../docs/analytics/analyze.mjs');
const MTF = '/api/v1/api/v1/mtf';
const PASSWORD = 'Trader-Password-2026';

/** Exact decimal strings as 18-digit fixed point (what the platform computes with), for comparing sums. */
function fixed(text: string | null | undefined): bigint {
  if (text === null || text === undefined) throw new Error('no decimal');
  const [whole, fraction = ''] = text.split('.');
  const sign = whole.startsWith('-') ? -1n : 1n;
  return sign * (BigInt(whole.replace('-', '')) * 10n ** 18n + BigInt((fraction + '0'.repeat(18)).slice(0, 18)));
}
const product = (a: string, b: string): bigint => (fixed(a) * fixed(b)) / 10n ** 18n;
const decimalText = (v: bigint): string => `${v / 10n ** 18n}.${(v % 10n ** 18n).toString().padStart(18, '0')}`.replace(/0+$/, '').replace(/\.$/, '');
const hourOf = (iso: string): string => `${iso.slice(0, 13)}:00:00.000Z`;

interface Analysis {
  month: string;
  traded_volume_per_market_hour: Array<{ market: string | null; market_uuid: string | null; hour: string; trades: number; base_volume: string; notional: string }>;
  credits_per_tenant_product: Array<{ tenant_uuid: string; profile_uuid: string | null; account_key: string; product: string; usage_events: number; credits: string; account_period_usage_credits: string | null }>;
  invoices_late_or_partial_by_merchant: Array<{
    merchant_uuid: string; asset: string; paid_invoices: number; late_invoices: number; partial_invoices: number; settled_after_expiry_invoices: number; shortfall: string;
    late_invoice_uuids: string[]; partial_invoice_uuids: string[]; settled_after_expiry_invoice_uuids: string[];
  }>;
}

describe('analytics walkthrough: docs/analytics/analyze.mjs answers what the API says (real broker, DuckDB)', () => {
  let brokers: string[] = [];
  let prefix: string;
  let t: TestApp;
  let offsetMs = 0;
  let admin: Headers;

  beforeAll(async () => {
    brokers = testBrokers();
    prefix = topicPrefix();
    t = await startTestApp(
      {
        WORKER_THREADS: '0',
        KAFKA_BROKERS: brokers.join(','),
        KAFKA_TOPIC_PREFIX: prefix,
        KAFKA_OUTBOX_POLL_MS: '20',
        ADMIN_EMAIL: TEST_ADMIN.email,
        ADMIN_PASSWORD: TEST_ADMIN.password,
        COMMERCE_EXPIRY_SWEEP_MS: '3600000', // the test runs the sweep itself, after moving the clock
      },
      { clock: () => new Date(Date.now() + offsetMs) },
    );
    admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined', 10_000);
  });

  afterAll(async () => {
    await t?.close();
  });

  async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<{ status: number; json: any }> {
    const r = await t.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    return { status: r.statusCode, json: r.body ? r.json() : undefined };
  }
  async function ok(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown): Promise<any> {
    const r = await call(method, url, headers, payload);
    if (r.status >= 300) throw new Error(`${method} ${url} answered ${r.status}: ${JSON.stringify(r.json)}`);
    return r.json;
  }
  /** A person registered into a tenant (the global one without it), signed in. */
  async function member(tenant_uuid: string): Promise<Headers> {
    const email = `analyst-${hex32().slice(0, 10)}@example.com`;
    await ok('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'A', last_name: 'N', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid });
    const [d] = await readMailbox(t.config.dataDir, email);
    await ok('POST', '/api/v1/identity/activations', {}, { token: d.token });
    return { authorization: `Bearer ${(await ok('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).access_token}` };
  }
  async function stepUp(headers: Headers, purpose: string, password: string): Promise<string> {
    return (await ok('POST', '/api/v1/auth/step-up', headers, { purpose, password })).step_up_token;
  }

  /** The rater has rated the log, every projector has passed its head, both publishers have sent it all. */
  async function settled(): Promise<void> {
    const store = t.app.get<EventStore>(EVENT_STORE);
    expect(await t.app.get(BillingJobs).raterReached(await store.headPosition(), 15_000)).toBe(true);
    const head = await store.headPosition();
    expect(await t.app.get(ProjectionRunner).waitFor(head, undefined, 15_000)).toBe(true);
    const kafka = t.app.get(KafkaPublisherService);
    expect(await kafka.events!.waitFor(head, 15_000)).toBe(true);
    await until(() => kafka.relay!.pending(), (n) => n === 0, 15_000, 'the projection outboxes sent');
  }

  it('volume per market and hour, credits per tenant and product, late and partial invoices per merchant', async () => {
    // ---- Activity. A tenant with a trader in it (its shared account), and a person of the global tenant (their own).
    const founder = await registerTrader(t);
    const tenant_uuid = (await ok('POST', '/api/v1/tenants', founder, { name: 'Analytics Desk' })).tenant_uuid as string;
    await openTenant(t, founder, tenant_uuid);
    const alice = await member(tenant_uuid);
    const bob = await registerTrader(t);

    // Trades in two markets: Alice rests, Bob takes (the bodies of docs/trading.md).
    const place = (who: Headers, body: Record<string, unknown>) =>
      ok('POST', `${MTF}/orders`, who, { book_or_cancel: 0, fill_or_kill: 0, immediate_or_cancel: 0, external_ref: 'YW5hbHl0aWNz', ...body });
    const orders: Array<{ who: Headers; order_uuid: string }> = [];
    const trade = async (maker: Headers, taker: Headers, market: string, price: string, sizes: string[]) => {
      const total = sizes.reduce((s, x) => s + fixed(x), 0n);
      const made = (await place(maker, { direction: 'SELL', market, order_size: decimalText(total), limit_price: price })).response;
      orders.push({ who: maker, order_uuid: made.order_uuid });
      for (const size of sizes) {
        const taken = (await place(taker, { direction: 'BUY', market, order_size: size, limit_price: price })).response;
        orders.push({ who: taker, order_uuid: taken.order_uuid });
      }
    };
    await trade(alice, bob, 'BTC-PERP', '1000.5', ['0.010', '0.003']);
    await trade(bob, alice, 'ETH-PERP', '2000.05', ['0.20', '0.30', '0.05']);
    // A resting order that never trades: billed, no volume.
    orders.push({ who: alice, order_uuid: (await place(alice, { direction: 'BUY', market: 'ETH-PERP', order_size: '0.01', limit_price: '1000' })).response.order_uuid });
    const fills = async () => {
      const all = new Map<string, { market: string; price: string; size: string; executed_at: string }>();
      for (const o of orders) for (const f of (await ok('GET', `/api/v1/trading/orders/${o.order_uuid}`, o.who)).fills ?? []) all.set(f.trade_uuid, f);
      return all;
    };
    await until(fills, (f) => f.size === 5, 15_000, 'five trades');

    // Bob's agent: AI-wallet intents under the autonomous threshold, each billed to Bob (its binding's owner).
    const workspace = (await ok('POST', '/api/v1/workspaces', bob, { name: 'Bob Treasury' })).workspace_id as string;
    const setup: WalletSetup = { t, owner: bob, workspace };
    const wallets = walletApi(() => setup);
    const { binding, agent } = await wallets.newBinding(policy());
    for (const n of [1, 2]) {
      const r = await wallets.call('POST', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, { ...agent, 'idempotency-key': `analytics-${n}` }, intentBody('0.05'));
      expect(r.status).toBe(201);
    }

    // Commerce: Bob's workspace sells (two merchants), the platform admin reviews and reports the rail.
    await ok('POST', '/api/v1/workspaces/active', bob, { workspace_id: workspace });
    const merchant = async (display_name: string) => {
      const m = await ok('POST', '/api/v1/commerce/merchants', bob, { display_name, category_code: 'RETAIL' });
      const step_up_token = await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password);
      await ok('POST', `/api/v1/commerce/merchants/${m.merchant_uuid}/activate`, admin, { expected_version: 0, review_reference: 'KYC-1042', step_up_token });
      return m.merchant_uuid as string;
    };
    const teaHouse = await merchant('Tea House');
    const bakery = await merchant('Bakery');
    let ref = 0;
    const invoice = async (merchant_uuid: string, over: Record<string, unknown> = {}) =>
      (await ok('POST', '/api/v1/commerce/invoices', bob, {
        merchant_uuid, external_order_reference: `ORDER-${++ref}`, asset: 'USD',
        line_items: [{ description: 'Sencha', quantity: '2', unit_price: '12.50' }, { description: 'Shipping', quantity: '1', unit_price: '4.99' }], ...over,
      })).invoice_uuid as string;
    const pay = async (invoice_uuid: string, amount?: string) => (await ok('POST', '/api/v1/commerce/payments', bob, { invoice_uuid, ...(amount ? { amount } : {}) })).payment_uuid as string;
    const rail = async (payment: string, steps: string[]) => {
      for (const transition of steps) await ok('POST', `/api/v1/commerce/admin/payments/${payment}/rail`, admin, { transition, rail_reference: `psp-${transition}` });
    };
    const inSixMinutes = () => new Date(Date.now() + offsetMs + 6 * 60_000).toISOString();
    await rail(await pay(await invoice(teaHouse)), ['authorize', 'submit', 'settle']); // paid in full, on time
    await rail(await pay(await invoice(teaHouse), '10.00'), ['authorize', 'submit', 'settle']); // partial
    await rail(await pay(await invoice(teaHouse), '40.00'), ['authorize', 'submit', 'settle']); // over: neither
    await rail(await pay(await invoice(bakery), '29.98'), ['authorize', 'submit', 'settle']); // partial, by a cent
    await invoice(bakery); // open, never paid
    const lateInvoice = await invoice(teaHouse, { expires_at: inSixMinutes() });
    const waiting = await pay(lateInvoice); // waits for authorization while the invoice expires: PAID_LATE
    const slowInvoice = await invoice(bakery, { expires_at: inSixMinutes() });
    const slow = await pay(slowInvoice, '20.00');
    await rail(slow, ['authorize']); // PROCESSING: does not expire; settles after expires_at, not PAID_LATE
    offsetMs += 7 * 60_000;
    expect(await t.app.get(CommerceExpirySweep).tick()).toBe(1);
    await until(async () => (await ok('GET', `/api/v1/commerce/invoices/${lateInvoice}`, bob)).status, (s) => s === 'EXPIRED', 10_000, 'the invoice expired');
    await rail(waiting, ['authorize', 'submit', 'settle']);
    await rail(slow, ['submit', 'settle']);

    // ---- Everything on the topics, then the analysis.
    await settled();
    const tenantAccount = await ok('GET', `/api/v1/billing/account?tenant_uuid=${tenant_uuid}`, founder);
    const bobAccount = await ok('GET', '/api/v1/billing/account', bob);
    const month = (tenantAccount.period.started_at as string).slice(0, 7);
    const started = Date.now();
    const { stdout, stderr } = await run(process.execPath, [SCRIPT, '--json', '--month', month], {
      env: { ...process.env, KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix },
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const analysis = JSON.parse(stdout) as Analysis;
    // eslint-disable-next-line no-console
    console.log(`analyze.mjs answered in ${Date.now() - started} ms${stderr ? `; stderr: ${stderr}` : ''}`);

    // ---- a. Volume per market and hour: the API's minute candles summed per hour; notional from the orders' fills.
    const markets = (await ok('GET', `${MTF}/markets`, bob)).response as Record<string, { market_uuid: string }>;
    const allFills = [...(await fills()).values()];
    const expectedVolume: Analysis['traded_volume_per_market_hour'] = [];
    for (const market of ['BTC-PERP', 'ETH-PERP']) {
      const candles = (await ok('GET', `${MTF}/market_history?market=${market}&minutes=1440`, bob)).response as Array<{ start: string; volume: string; trades: number }>;
      const hours = new Map<string, { trades: number; volume: bigint; notional: bigint }>();
      for (const c of candles) {
        const h = hours.get(hourOf(c.start)) ?? { trades: 0, volume: 0n, notional: 0n };
        hours.set(hourOf(c.start), { ...h, trades: h.trades + c.trades, volume: h.volume + fixed(c.volume) });
      }
      for (const f of allFills.filter((x) => x.market === market)) hours.get(hourOf(f.executed_at))!.notional += product(f.price, f.size);
      for (const [hour, h] of hours) expectedVolume.push({ market, market_uuid: markets[market].market_uuid, hour, trades: h.trades, base_volume: String(h.volume), notional: String(h.notional) });
    }
    expect(expectedVolume.reduce((n, r) => n + r.trades, 0)).toBe(5);
    const gotVolume = analysis.traded_volume_per_market_hour.map((r) => ({
      market: r.market, market_uuid: r.market_uuid, hour: r.hour, trades: r.trades, base_volume: String(fixed(r.base_volume)), notional: String(fixed(r.notional)),
    }));
    const byMarketHour = (a: { market?: string | null; hour: string }, b: { market?: string | null; hour: string }) => `${a.market}${a.hour}`.localeCompare(`${b.market}${b.hour}`);
    expect(gotVolume.sort(byMarketHour)).toEqual(expectedVolume.sort(byMarketHour));

    // ---- b. Credits per account and product: GET /billing/usage's by_source for the month, per account; its total
    // as GET /billing/account shows it; the counts per product as the order and intent lists show them.
    const orderCount = async (who: Headers) => ((await ok('GET', `${MTF}/orders?limit=1000`, who)).response as unknown[]).length;
    const intents = (await ok('GET', `/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, bob)).items as unknown[];
    const perAccount = [
      { account: tenantAccount, usage: await ok('GET', `/api/v1/billing/usage?tenant_uuid=${tenant_uuid}&period=${month}`, founder), counts: { OrderAccepted: await orderCount(alice) } },
      { account: bobAccount, usage: await ok('GET', `/api/v1/billing/usage?period=${month}`, bob), counts: { OrderAccepted: await orderCount(bob), AiWalletIntentReserved: intents.length } },
    ];
    for (const { account, usage, counts } of perAccount) {
      const rows = analysis.credits_per_tenant_product.filter((r) => r.account_key === account.account_key);
      const bySource = usage.by_source as Array<{ source_type: string; credits: string; usage_events: number }>;
      expect(rows.map((r) => ({ product: r.product, credits: fixed(r.credits), usage_events: r.usage_events }))).toEqual(
        bySource.map((b) => ({ product: b.source_type, credits: fixed(b.credits), usage_events: b.usage_events })),
      );
      expect(Object.fromEntries(bySource.map((b) => [b.source_type, b.usage_events]))).toEqual(counts);
      for (const r of rows) expect([r.tenant_uuid, r.profile_uuid, fixed(r.account_period_usage_credits)]).toEqual([account.tenant_uuid, account.profile_uuid, fixed(account.rated_usage_credits)]);
      expect(rows.reduce((s, r) => s + fixed(r.credits), 0n)).toBe(fixed(account.rated_usage_credits));
      expect(rows.reduce((n, r) => n + r.usage_events, 0)).toBe(account.usage_events);
      expect(fixed(account.rated_usage_credits)).toBeGreaterThan(0n);
    }
    expect(tenantAccount).toMatchObject({ tenant_uuid, profile_uuid: null });
    expect(analysis.credits_per_tenant_product).toHaveLength(3);

    // ---- c. Late and partial invoices per merchant: the invoice list and the payments, as the API shows them.
    const expectedInvoices: Analysis['invoices_late_or_partial_by_merchant'] = [];
    for (const merchant_uuid of [teaHouse, bakery]) {
      const invoices = (await ok('GET', `/api/v1/commerce/invoices?merchant_uuid=${merchant_uuid}&limit=200`, bob)).items as any[];
      const payments = (await ok('GET', `/api/v1/commerce/payments?merchant_uuid=${merchant_uuid}&limit=200`, bob)).items as any[];
      const late = invoices.filter((i) => i.exceptions.includes('PAID_LATE'));
      const partial = invoices.filter((i) => fixed(i.amount_settled) > 0n && fixed(i.amount_settled) < fixed(i.total));
      expect(partial.map((i) => i.invoice_uuid).sort()).toEqual(invoices.filter((i) => i.exceptions.includes('PAID_PARTIAL')).map((i) => i.invoice_uuid).sort());
      const afterExpiry = invoices.filter((i) => payments.some((p) => p.invoice_uuid === i.invoice_uuid && p.state === 'SETTLED' && Date.parse(p.settled_at) > Date.parse(i.expires_at)));
      const ids = (list: any[]) => list.map((i) => i.invoice_uuid).sort();
      expectedInvoices.push({
        merchant_uuid, asset: 'USD',
        paid_invoices: invoices.filter((i) => fixed(i.amount_settled) > 0n).length,
        late_invoices: late.length, partial_invoices: partial.length, settled_after_expiry_invoices: afterExpiry.length,
        shortfall: String(partial.reduce((s, i) => s + fixed(i.total) - fixed(i.amount_settled), 0n)),
        late_invoice_uuids: ids(late), partial_invoice_uuids: ids(partial), settled_after_expiry_invoice_uuids: ids(afterExpiry),
      });
    }
    // What the activity above made, as the API sees it: the test covers each case.
    expect(expectedInvoices.map((m) => [m.late_invoice_uuids, m.settled_after_expiry_invoice_uuids])).toEqual([[[lateInvoice], [lateInvoice]], [[], [slowInvoice]]]);
    expect(expectedInvoices.map((m) => m.partial_invoices)).toEqual([1, 2]);
    const gotInvoices = analysis.invoices_late_or_partial_by_merchant.map((r) => ({ ...r, shortfall: String(fixed(r.shortfall)) }));
    expect(gotInvoices.sort((a, b) => a.merchant_uuid.localeCompare(b.merchant_uuid))).toEqual(expectedInvoices.sort((a, b) => a.merchant_uuid.localeCompare(b.merchant_uuid)));
  }, 240_000);
});
