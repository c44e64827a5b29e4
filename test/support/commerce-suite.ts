/**
 * The commerce suite over HTTP on a running app, run on SQLite read models (test/e2e/commerce.spec.ts) and on
 * PostgreSQL (test/integration/commerce-postgres.spec.ts): merchants and their review with step-up, products,
 * invoices with their totals and unique references, payments through the simulated rail, cancellations with their
 * version and state checks, the races (settlement reservations, concurrent cancels, cancel against settlement),
 * expiry by the leased sweep, rotational wallets, tenancy, pagination and notifications — checked in the answers and
 * in the rows the projectors wrote.
 */
import { CommerceExpirySweep } from '../../src/modules/commerce/commands';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startTestApp, type TestApp } from './app';
import { readMailbox } from '../../src/modules/identity/delivery';
import { hex32 } from './events';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, until, type Headers } from './traders';

const PASSWORD = 'Trader-Password-2026';
const ADDR = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

export interface Reply {
  status: number;
  json: any;
}

export function commerceSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let now = new Date('2026-11-25T10:00:00.000Z');
    let t: TestApp;
    let owner: Headers;
    let admin: Headers;
    let workspace: string;
    let db: ReadModelDatabase;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown, extra: Record<string, string> = {}): Promise<Reply> {
      const r = await t.app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    const rows = (sql: string, params: unknown[] = []): Promise<Array<Record<string, any>>> => db.reader.query(db.sql(sql), params);
    async function stepUp(headers: Headers, purpose: string, password = PASSWORD): Promise<string> {
      const r = await call('POST', '/api/v1/auth/step-up', headers, { purpose, password });
      if (r.status !== 201) throw new Error(`step-up refused: ${r.status} ${JSON.stringify(r.json)}`);
      return r.json.step_up_token;
    }
    /** A person (of `tenant_uuid`, default the global tenant) with a workspace of their own, selected as active. */
    async function personWithWorkspace(label: string, tenant_uuid?: string): Promise<{ headers: Headers; workspace: string; profile_uuid: string }> {
      let headers: Headers;
      if (tenant_uuid) {
        const email = `shop-${hex32().slice(0, 10)}@example.com`;
        const reg = await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'S', last_name: 'P', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid });
        expect(reg.status).toBe(201);
        const [d] = await readMailbox(t.config.dataDir, email);
        expect((await call('POST', '/api/v1/identity/activations', {}, { token: d.token })).status).toBeLessThan(300);
        headers = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json.access_token}` };
      } else {
        headers = await registerTrader(t);
      }
      const w = await call('POST', '/api/v1/workspaces', headers, { name: label });
      expect(w.status).toBe(201);
      expect((await call('POST', '/api/v1/workspaces/active', headers, { workspace_id: w.json.workspace_id })).status).toBe(200);
      return { headers, workspace: w.json.workspace_id, profile_uuid: (await call('GET', '/api/v1/identity/contact', headers)).json.profile_uuid };
    }
    /** A merchant of the owner's workspace, activated by the platform admin. */
    async function activeMerchant(display_name = 'Tea House'): Promise<any> {
      const m = await call('POST', '/api/v1/commerce/merchants', owner, { display_name, category_code: 'RETAIL', description: 'Loose-leaf tea' });
      expect(m.status).toBe(201);
      const token = await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password);
      const a = await call('POST', `/api/v1/commerce/merchants/${m.json.merchant_uuid}/activate`, admin, { expected_version: 0, review_reference: 'REV-1', step_up_token: token });
      expect(a.status).toBe(200);
      return a.json;
    }
    let refs = 0;
    const invoiceBody = (merchant_uuid: string, over: Record<string, unknown> = {}) => ({
      merchant_uuid, external_order_reference: `ORDER-${++refs}`, asset: 'USD', line_items: [{ description: 'Sencha', quantity: '2', unit_price: '12.50' }, { description: 'Shipping', quantity: '1', unit_price: '4.99' }], ...over,
    });
    const rail = (payment: string, transition: string) => call('POST', `/api/v1/commerce/admin/payments/${payment}/rail`, admin, { transition, rail_reference: `r-${transition}` });
    async function paidInvoice(merchant: string, amount?: string, over: Record<string, unknown> = {}): Promise<{ invoice: any; payment: any }> {
      const invoice = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(merchant, over))).json;
      const payment = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid, ...(amount ? { amount } : {}) })).json;
      for (const step of ['authorize', 'submit', 'settle']) expect((await rail(payment.payment_uuid, step)).status).toBe(200);
      return { invoice: (await call('GET', `/api/v1/commerce/invoices/${invoice.invoice_uuid}`, owner)).json, payment };
    }

    beforeAll(async () => {
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, COMMERCE_EXPIRY_SWEEP_MS: '3600000' }, { clock: () => now });
      db = t.app.get(ReadModelDatabase);
      ({ headers: owner, workspace } = await personWithWorkspace('Shop'));
      // The platform admin is bootstrapped as the app starts: sign in once it exists.
      admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('merchants: created PENDING_REVIEW in the active workspace; the admin activates with a step-up; the creator may not', async () => {
      const bad = await call('POST', '/api/v1/commerce/merchants', owner, { display_name: '', category_code: 'retail' });
      expect(bad.status).toBe(400);
      expect(bad.json.error.details.map((d: any) => d.field).sort()).toEqual(['category_code', 'display_name']);
      const m = await call('POST', '/api/v1/commerce/merchants', owner, { display_name: 'Tea House', category_code: 'RETAIL' });
      expect(m.status).toBe(201);
      expect(m.json).toMatchObject({ workspace_uuid: workspace, status: 'PENDING_REVIEW', version: 0, last_review: null });
      expect(m.json.actions.find((a: any) => a.action === 'activate')).toEqual({
        action: 'activate', method: 'POST', href: `/api/v1/commerce/merchants/${m.json.merchant_uuid}/activate`, expected: { expected_version: 0 },
        step_up_purpose: 'MERCHANT_PROFILE_ACTIVATION', allowed_for: ['reviewer'],
      });
      const url = `/api/v1/commerce/merchants/${m.json.merchant_uuid}/activate`;
      // The owner is not a reviewer; the body allows no extra field; without a step-up the admin is refused.
      const ownToken = await stepUp(owner, 'MERCHANT_PROFILE_ACTIVATION');
      expect((await call('POST', url, owner, { expected_version: 0, review_reference: 'self', step_up_token: ownToken })).status).toBe(403);
      const token = await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password);
      const extra = await call('POST', url, admin, { expected_version: 0, review_reference: 'REV-9', step_up_token: token, note: 'x' });
      expect([extra.status, extra.json.error.details[0].field]).toEqual([400, 'note']);
      expect((await call('POST', url, admin, { expected_version: 0, review_reference: 'REV-9', step_up_token: 'hcsu_' + 'x'.repeat(43) })).json.error.code).toBe('STEP_UP_REQUIRED');
      // A stale version is 409 with the current one, and does not spend the token: it activates next.
      const stale = await call('POST', url, admin, { expected_version: 3, review_reference: 'REV-9', step_up_token: token });
      expect([stale.status, stale.json.error.code, stale.json.error.current_version]).toEqual([409, 'VERSION_CONFLICT', 0]);
      const ok = await call('POST', url, admin, { expected_version: 0, review_reference: 'REV-9', step_up_token: token });
      expect(ok.status).toBe(200);
      expect(ok.json).toMatchObject({ status: 'ACTIVE', version: 1, last_review: { transition: 'activate', review_reference: 'REV-9' } });
      expect(ok.json.actions.map((a: any) => a.action).sort()).toEqual(['close', 'suspend']);
      // The token is spent now; a second reviewer acting on version 0 gets the conflict.
      expect((await call('POST', url, admin, { expected_version: 0, review_reference: 'REV-9', step_up_token: token })).json.error.code).toBe('STEP_UP_REQUIRED');
      const events = await rows('SELECT record FROM commerce_merchants WHERE merchant_uuid = ?', [m.json.merchant_uuid]);
      expect(JSON.parse(events[0].record)).toMatchObject({ status: 'ACTIVE', version: 1 });
    });

    it("reviewers: a tenant's OWNER and TENANT_ADMIN review its merchants; a moderator, or another tenant's owner, does not see them", async () => {
      const founder = await personWithWorkspace('Founder');
      const tenant = (await call('POST', '/api/v1/tenants', founder.headers, { name: 'Market Co' })).json.tenant_uuid;
      await openTenant(t, founder.headers, tenant);
      const seller = await personWithWorkspace('Seller', tenant);
      const tenantAdmin = await personWithWorkspace('Desk', tenant);
      const moderator = await personWithWorkspace('Forum', tenant);
      const assign = (profile_uuid: string, role_code: string) => call('POST', `/api/v1/tenants/${tenant}/authorities`, founder.headers, { profile_uuid, role_code, reason: 'Reviews merchants of the market' });
      expect((await assign(tenantAdmin.profile_uuid, 'TENANT_ADMIN')).status).toBe(201);
      expect((await assign(moderator.profile_uuid, 'TENANT_MODERATOR')).status).toBe(201);
      const elsewhere = await personWithWorkspace('Elsewhere');
      expect((await call('POST', '/api/v1/tenants', elsewhere.headers, { name: 'Other Co' })).status).toBe(201);
      const m = (await call('POST', '/api/v1/commerce/merchants', seller.headers, { display_name: 'Market Stall', category_code: 'RETAIL' })).json;
      const url = `/api/v1/commerce/merchants/${m.merchant_uuid}`;
      for (const outsider of [moderator, elsewhere]) {
        expect((await call('GET', url, outsider.headers)).status).toBe(404);
        expect((await call('POST', `${url}/reject`, outsider.headers, { expected_version: 0, reason_code: 'OTHER' })).status).toBe(404);
      }
      expect((await call('GET', url, tenantAdmin.headers)).json).toMatchObject({ status: 'PENDING_REVIEW', tenant_uuid: tenant });
      const token = await stepUp(tenantAdmin.headers, 'MERCHANT_PROFILE_ACTIVATION');
      const active = await call('POST', `${url}/activate`, tenantAdmin.headers, { expected_version: 0, review_reference: 'DESK-7', step_up_token: token });
      expect([active.status, active.json.status, active.json.last_review.by_profile_uuid]).toEqual([200, 'ACTIVE', tenantAdmin.profile_uuid]);
      const suspended = await call('POST', `${url}/suspend`, founder.headers, { expected_version: 1, reason_code: 'POLICY_VIOLATION' });
      expect([suspended.status, suspended.json.status]).toEqual([200, 'SUSPENDED']);
      // The seller is told, in its own inbox.
      const inbox = (await call('GET', '/api/v1/notifications', seller.headers)).json.items.map((n: any) => n.type);
      expect(inbox).toEqual(expect.arrayContaining(['COMMERCE_MERCHANT_ACTIVATED', 'COMMERCE_MERCHANT_SUSPENDED']));
    });

    it('merchants: suspend, reinstate (step-up) and close; states refuse what they cannot do', async () => {
      const m = await activeMerchant('Suspendable');
      const base = `/api/v1/commerce/merchants/${m.merchant_uuid}`;
      expect((await call('POST', `${base}/suspend`, owner, { expected_version: 1, reason_code: 'RISK_REVIEW' })).status).toBe(403);
      const s = await call('POST', `${base}/suspend`, admin, { expected_version: 1, reason_code: 'RISK_REVIEW' });
      expect([s.status, s.json.status]).toEqual([200, 'SUSPENDED']);
      expect((await call('POST', `${base}/reject`, admin, { expected_version: 2, reason_code: 'OTHER' })).json.error.code).toBe('STATE_CONFLICT');
      const r = await call('POST', `${base}/reinstate`, admin, { expected_version: 2, review_reference: 'REV-2', step_up_token: await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password) });
      expect([r.status, r.json.status, r.json.version]).toEqual([200, 'ACTIVE', 3]);
      const c = await call('POST', `${base}/close`, owner, { expected_version: 3, reason_code: 'OWNER_REQUEST' });
      expect([c.status, c.json.status, c.json.actions]).toEqual([200, 'CLOSED', []]);
      expect((await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json.error.code).toBe('RULE_VIOLATION');
    });

    it('products: DRAFT, ACTIVE only under an ACTIVE merchant (422), catalogue search and paging', async () => {
      const pending = (await call('POST', '/api/v1/commerce/merchants', owner, { display_name: 'Pending Shop', category_code: 'RETAIL' })).json;
      const draft = await call('POST', `/api/v1/commerce/merchants/${pending.merchant_uuid}/products`, owner, { name: 'Kettle', price: '30.00', asset: 'USD' });
      expect([draft.status, draft.json.status, draft.json.price]).toEqual([201, 'DRAFT', '30.00']);
      const refused = await call('POST', `/api/v1/commerce/merchants/${pending.merchant_uuid}/products/${draft.json.product_uuid}/activate`, owner, { expected_version: 0 });
      expect([refused.status, refused.json.error.code]).toEqual([422, 'RULE_VIOLATION']);
      expect((await call('POST', `/api/v1/commerce/merchants/${pending.merchant_uuid}/products`, owner, { name: 'Cup', price: '1.001', asset: 'USD' })).json.error.details[0]).toEqual({ field: 'price', issue: 'more decimals than the asset has (USD)' });
      expect((await call('POST', `/api/v1/commerce/merchants/${pending.merchant_uuid}/products`, owner, { name: 'Cup', price: 1.5, asset: 'USD' })).status).toBe(400);
      const m = await activeMerchant('Catalogue Shop');
      const base = `/api/v1/commerce/merchants/${m.merchant_uuid}/products`;
      for (const name of ['Green tea', 'Black tea', 'Teapot', 'Cup']) expect((await call('POST', base, owner, { name, price: '5.00', asset: 'USD' })).status).toBe(201);
      const teas = await call('GET', `${base}?q=TEA&limit=2`, owner);
      expect(teas.json.items.map((p: any) => p.name)).toEqual(['Teapot', 'Black tea']);
      const next = await call('GET', `${base}?q=TEA&limit=2&cursor=${teas.json.next_cursor}`, owner);
      expect([next.json.items.map((p: any) => p.name), next.json.next_cursor]).toEqual([['Green tea'], undefined]);
      // A cursor belongs to its filters.
      expect((await call('GET', `${base}?q=cup&cursor=${teas.json.next_cursor}`, owner)).status).toBe(400);
      const active = await call('POST', `${base}/${teas.json.items[0].product_uuid}/activate`, owner, { expected_version: 0 });
      expect([active.json.status, active.json.version]).toEqual(['ACTIVE', 1]);
      expect((await call('GET', `${base}?status=ACTIVE`, owner)).json.items.map((p: any) => p.name)).toEqual(['Teapot']);
    });

    it('invoices: the total from the lines, exact; one invoice per order reference (409 naming it); Idempotency-Key replays', async () => {
      const m = await activeMerchant('Invoicing Shop');
      const body = invoiceBody(m.merchant_uuid, { line_items: [{ description: 'Tea', quantity: '0.5', unit_price: '2.01' }, { description: 'Box', quantity: '3', unit_price: '0.10' }] });
      const first = await call('POST', '/api/v1/commerce/invoices', owner, body, { 'idempotency-key': 'inv-key-1' });
      expect(first.status).toBe(201);
      expect(first.json).toMatchObject({ status: 'OPEN', version: 0, total: '1.30', amount_settled: '0.00', exceptions: [], line_items: [{ line_total: '1.00' }, { line_total: '0.30' }] });
      expect(first.json.actions.map((a: any) => a.action)).toEqual(['cancel', 'pay']);
      const replay = await call('POST', '/api/v1/commerce/invoices', owner, body, { 'idempotency-key': 'inv-key-1' });
      expect([replay.status, replay.json]).toEqual([201, first.json]);
      const other = await call('POST', '/api/v1/commerce/invoices', owner, { ...body, line_items: [{ description: 'Other', quantity: '1', unit_price: '9.00' }] });
      expect([other.status, other.json.error.code]).toEqual([409, 'STATE_CONFLICT']);
      expect(other.json.error.details[0]).toEqual({ field: 'external_order_reference', issue: `already used by invoice ${first.json.invoice_uuid}` });
      expect(Number((await rows('SELECT COUNT(*) AS n FROM commerce_invoices WHERE merchant_uuid = ?', [m.merchant_uuid]))[0].n)).toBe(1);
      const list = await call('GET', `/api/v1/commerce/invoices?merchant_uuid=${m.merchant_uuid}&external_order_reference=${body.external_order_reference}`, owner);
      expect(list.json.items.map((i: any) => i.invoice_uuid)).toEqual([first.json.invoice_uuid]);
      expect((await call('GET', `/api/v1/commerce/invoices?merchant_uuid=${m.merchant_uuid}&q=tea`, owner)).json.error.details[0].field).toBe('q');
      expect((await call('GET', '/api/v1/commerce/invoices', owner)).json.error.details[0]).toEqual({ field: 'merchant_uuid', issue: 'required for invoices' });
      expect((await call('GET', `/api/v1/commerce/invoices?merchant_uuid=${m.merchant_uuid}&limit=201`, owner)).status).toBe(400);
      expect((await call('GET', `/api/v1/commerce/invoices?merchant_uuid=${m.merchant_uuid}&colour=red`, owner)).status).toBe(400);
    });

    it('invoices: a zero unit_price is a 400 naming its line, like any zero amount; a total rounded to zero is a 400 naming line_items', async () => {
      const m = await activeMerchant('Free Lines Shop');
      for (const zero of ['0', '0.00', '0.0']) {
        const r = await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid, { line_items: [{ description: 'Tea', quantity: '1', unit_price: '3.00' }, { description: 'Free sample', quantity: '1', unit_price: zero }] }));
        expect([r.status, r.json.error?.code, r.json.error?.details]).toEqual([400, 'VALIDATION_FAILED', [{ field: 'line_items[1].unit_price', issue: expect.any(String) }]]);
      }
      // Positive inputs whose exact product rounds to zero at the asset's scale: the line is kept, the invoice is not.
      const tiny = await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid, { line_items: [{ description: 'Crumb', quantity: '0.1', unit_price: '0.01' }] }));
      expect([tiny.status, tiny.json.error?.details]).toEqual([400, [{ field: 'line_items', issue: 'total is zero' }]]);
      expect(Number((await rows('SELECT COUNT(*) AS n FROM commerce_invoices WHERE merchant_uuid = ?', [m.merchant_uuid]))[0].n)).toBe(0);
    });

    it('payments: through the simulated rail to SETTLED; the invoice PROCESSING then PAID; the owner is told', async () => {
      const m = await activeMerchant('Paid Shop');
      const invoice = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      expect(invoice.total).toBe('29.99');
      const p = await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid });
      expect(p.status).toBe(201);
      expect(p.json).toMatchObject({ state: 'AUTHORIZATION_REQUIRED', version: 0, amount: '29.99', funds_movement_available: false });
      expect((await rail(p.json.payment_uuid, 'settle')).json.error.code).toBe('STATE_CONFLICT');
      expect((await call('POST', `/api/v1/commerce/admin/payments/${p.json.payment_uuid}/rail`, owner, { transition: 'authorize' })).status).toBe(403);
      expect((await rail(p.json.payment_uuid, 'authorize')).json).toMatchObject({ state: 'AUTHORIZED', version: 1 });
      expect((await call('GET', `/api/v1/commerce/invoices/${invoice.invoice_uuid}`, owner)).json).toMatchObject({ status: 'PROCESSING', version: 1, actions: [] });
      for (const step of ['submit', 'settle']) expect((await rail(p.json.payment_uuid, step)).status).toBe(200);
      const paid = (await call('GET', `/api/v1/commerce/invoices/${invoice.invoice_uuid}`, owner)).json;
      expect(paid).toMatchObject({ status: 'PAID', exceptions: [], amount_settled: '29.99', version: 2 });
      const settled = (await rows('SELECT settled FROM commerce_settled_totals WHERE merchant_uuid = ? AND asset = ?', [m.merchant_uuid, 'USD']))[0];
      expect(settled.settled).toBe('29.99');
      const inbox = await call('GET', '/api/v1/notifications', owner);
      expect(inbox.json.items.find((n: any) => n.type === 'COMMERCE_INVOICE_PAID' && n.reference === invoice.invoice_uuid)).toMatchObject({ source: 'commerce', title: 'Invoice paid', href: `/api/v1/commerce/invoices/${invoice.invoice_uuid}` });
      expect(inbox.json.items.some((n: any) => n.type === 'COMMERCE_MERCHANT_ACTIVATED' && n.reference === m.merchant_uuid)).toBe(true);
      // A payment the rail fails reopens its invoice, and the owner hears of it.
      const second = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      const failing = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: second.invoice_uuid })).json;
      await rail(failing.payment_uuid, 'authorize');
      const failed = await call('POST', `/api/v1/commerce/admin/payments/${failing.payment_uuid}/rail`, admin, { transition: 'fail', failure_code: 'INSUFFICIENT_FUNDS' });
      expect(failed.json).toMatchObject({ state: 'FAILED', failure_code: 'INSUFFICIENT_FUNDS' });
      expect((await call('GET', `/api/v1/commerce/invoices/${second.invoice_uuid}`, owner)).json.status).toBe('OPEN');
      const told = (await call('GET', '/api/v1/notifications', owner)).json.items.find((n: any) => n.reference === failing.payment_uuid);
      expect(told).toMatchObject({ type: 'COMMERCE_PAYMENT_FAILED', href: `/api/v1/commerce/payments/${failing.payment_uuid}` });
      expect(told.message).toContain('INSUFFICIENT_FUNDS');
    });

    it('payment cancel: latest version and AUTHORIZATION_REQUIRED only (the seeds\' literals); later rail states are 409; concurrent cancels act once', async () => {
      const m = await activeMerchant('Cancel Shop');
      const invoice = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      const p = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid })).json;
      const url = `/api/v1/commerce/payments/${p.payment_uuid}/cancel`;
      const body = { expected_payment_version: 0, expected_state: 'AUTHORIZATION_REQUIRED', reason_code: 'OWNER_CANCELLED' };
      expect((await call('POST', url, owner, { ...body, expected_state: 'AUTHORIZED' })).status).toBe(400);
      expect((await call('POST', url, owner, { ...body, reason_code: 'CHANGED_MIND' })).status).toBe(400);
      const stale = await call('POST', url, owner, { ...body, expected_payment_version: 1 });
      expect([stale.status, stale.json.error.code, stale.json.error.current_version]).toEqual([409, 'VERSION_CONFLICT', 0]);
      const results = await Promise.all(Array.from({ length: 5 }, () => call('POST', url, owner, body)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(4);
      expect((await call('GET', `/api/v1/commerce/payments/${p.payment_uuid}`, owner)).json).toMatchObject({ state: 'CANCELLED', version: 1, reason_code: 'OWNER_CANCELLED', actions: [] });
      const q = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid })).json;
      await rail(q.payment_uuid, 'authorize');
      const late = await call('POST', `/api/v1/commerce/payments/${q.payment_uuid}/cancel`, owner, { ...body, expected_payment_version: 1 });
      expect([late.status, late.json.error.code]).toEqual([409, 'STATE_CONFLICT']);
    });

    it('invoice cancel: step-up COMMERCE_INVOICE_CANCELLATION spent only when it cancels; refused while a payment is in flight; cancel racing settlement has one outcome', async () => {
      const m = await activeMerchant('Cancelling Shop');
      const invoice = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      const url = `/api/v1/commerce/invoices/${invoice.invoice_uuid}/cancel`;
      const token = await stepUp(owner, 'COMMERCE_INVOICE_CANCELLATION');
      const body = { expected_invoice_version: 0, expected_status: 'OPEN', reason_code: 'CUSTOMER_REQUEST', step_up_token: token, reason_detail: 'Customer called' };
      expect((await call('POST', url, owner, { ...body, reason_code: 'BORED' })).status).toBe(400);
      expect((await call('POST', url, owner, { ...body, expected_invoice_version: 4 })).json.error).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 0 });
      expect((await call('POST', url, owner, { ...body, expected_status: 'PAID' })).json.error.code).toBe('STATE_CONFLICT');
      const waiting = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid })).json;
      const done = await call('POST', url, owner, body);
      expect(done.status).toBe(200);
      expect(done.json).toMatchObject({ status: 'CANCELLED', version: 1, cancellation: { reason_code: 'CUSTOMER_REQUEST', reason_detail: 'Customer called' } });
      expect((await call('GET', `/api/v1/commerce/payments/${waiting.payment_uuid}`, owner)).json).toMatchObject({ state: 'CANCELLED', reason_code: 'INVOICE_CANCELLED' });
      expect((await call('POST', url, owner, { ...body, expected_invoice_version: 1, expected_status: 'CANCELLED' })).json.error.code).toBe('STEP_UP_REQUIRED');

      // In flight: refused, and the token survives for later.
      const second = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      const pay = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: second.invoice_uuid })).json;
      await rail(pay.payment_uuid, 'authorize');
      await rail(pay.payment_uuid, 'submit');
      const kept = await stepUp(owner, 'COMMERCE_INVOICE_CANCELLATION');
      const refused = await call('POST', `/api/v1/commerce/invoices/${second.invoice_uuid}/cancel`, owner, { ...body, expected_invoice_version: 1, expected_status: 'PROCESSING', step_up_token: kept });
      expect([refused.status, refused.json.error.code]).toEqual([409, 'STATE_CONFLICT']);
      // Cancel racing settlement on a third invoice: exactly one of them happens.
      const third = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
      const p3 = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: third.invoice_uuid })).json;
      const [cancel, authorize] = await Promise.all([
        call('POST', `/api/v1/commerce/invoices/${third.invoice_uuid}/cancel`, owner, { ...body, step_up_token: kept }),
        rail(p3.payment_uuid, 'authorize'),
      ]);
      expect([cancel.status, authorize.status].sort()).toEqual([200, 409]);
      const final = (await call('GET', `/api/v1/commerce/invoices/${third.invoice_uuid}`, owner)).json;
      expect(final.status).toBe(cancel.status === 200 ? 'CANCELLED' : 'PROCESSING');
    });

    it('short, long and late settlements: PAID with PAID_PARTIAL, PAID_OVER, PAID_LATE; expiry by the leased sweep', async () => {
      const m = await activeMerchant('Exceptions Shop');
      expect((await paidInvoice(m.merchant_uuid, '10.00')).invoice).toMatchObject({ status: 'PAID', exceptions: ['PAID_PARTIAL'], amount_settled: '10.00' });
      expect((await paidInvoice(m.merchant_uuid, '40.00')).invoice).toMatchObject({ status: 'PAID', exceptions: ['PAID_OVER'] });
      const expiring = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid, { expires_at: new Date(now.getTime() + 10 * 60_000).toISOString() }))).json;
      const waiting = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: expiring.invoice_uuid })).json;
      const sweep = t.app.get(CommerceExpirySweep);
      expect(await sweep.tick()).toBe(0);
      const saved = now;
      now = new Date(now.getTime() + 11 * 60_000);
      try {
        expect(await sweep.tick()).toBe(1);
        expect(await sweep.tick()).toBe(0);
        // The sweep appends outside any request: read once the read model has folded it.
        const expired = await until(async () => (await call('GET', `/api/v1/commerce/invoices/${expiring.invoice_uuid}`, owner)).json, (j) => j.status === 'EXPIRED');
        expect(expired.actions).toEqual([]);
        expect((await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: expiring.invoice_uuid })).json.error.code).toBe('STATE_CONFLICT');
        for (const step of ['authorize', 'submit', 'settle']) expect((await rail(waiting.payment_uuid, step)).status).toBe(200);
        expect((await call('GET', `/api/v1/commerce/invoices/${expiring.invoice_uuid}`, owner)).json).toMatchObject({ status: 'PAID', exceptions: ['PAID_LATE'] });
        // A payment left waiting past its authorization window expires too.
        const fresh = (await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid))).json;
        const idle = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: fresh.invoice_uuid })).json;
        now = new Date(now.getTime() + 31 * 60_000);
        expect(await sweep.tick()).toBe(1);
        expect((await until(async () => (await call('GET', `/api/v1/commerce/payments/${idle.payment_uuid}`, owner)).json, (j) => j.state === 'EXPIRED')).state).toBe('EXPIRED');
      } finally {
        now = saved;
      }
    });

    it('settlement intents: reserve settled funds; 30 concurrent requests over a balance that fits 6 give exactly 6; cancel needs the latest commitment', async () => {
      const m = await activeMerchant('Settling Shop');
      for (let i = 0; i < 2; i++) await paidInvoice(m.merchant_uuid, '30.00');
      const body = { merchant_uuid: m.merchant_uuid, network_id: 'ethereum-mainnet', asset: 'USD', amount: '10.00', destination: ADDR(1) };
      // USD is not carried by a chain: refused; USDC would be, but nothing was settled in it.
      expect((await call('POST', '/api/v1/commerce/settlement-intents', owner, body)).json.error.code).toBe('RULE_VIOLATION');
      // Settle 60 USDC, then race.
      const usdc = await call('POST', '/api/v1/commerce/invoices', owner, invoiceBody(m.merchant_uuid, { asset: 'USDC', line_items: [{ description: 'Bulk', quantity: '1', unit_price: '60' }] }));
      const pay = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: usdc.json.invoice_uuid })).json;
      for (const step of ['authorize', 'submit', 'settle']) await rail(pay.payment_uuid, step);
      const usdcBody = { ...body, asset: 'USDC' };
      const results = await Promise.all(Array.from({ length: 30 }, () => call('POST', '/api/v1/commerce/settlement-intents', owner, usdcBody)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(6);
      expect(results.filter((r) => r.status === 422).every((r) => r.json.error.code === 'RULE_VIOLATION')).toBe(true);
      expect(results.filter((r) => r.status === 422)).toHaveLength(24);
      const intent = results.find((r) => r.status === 201)!.json;
      expect(intent).toMatchObject({ state: 'REQUESTED', revision: 0, version: 0, amount: '10.000000', funds_movement_available: false });
      expect(intent.request_commitment).toMatch(/^[0-9a-f]{64}$/);
      const url = `/api/v1/commerce/settlement-intents/${intent.settlement_intent_uuid}/cancel`;
      const approved = await call('POST', `/api/v1/commerce/admin/settlement-intents/${intent.settlement_intent_uuid}/treasury`, admin, { transition: 'approve' });
      expect(approved.json).toMatchObject({ state: 'APPROVED', revision: 1 });
      expect(approved.json.request_commitment).not.toBe(intent.request_commitment);
      const stale = await call('POST', url, owner, { network_id: 'ethereum-mainnet', expected_request_commitment: intent.request_commitment, reason_code: 'OWNER_CANCELLED' });
      expect([stale.status, stale.json.error.code]).toEqual([409, 'STATE_CONFLICT']);
      expect((await call('POST', url, owner, { network_id: 'polygon-mainnet', expected_request_commitment: approved.json.request_commitment, reason_code: 'OWNER_CANCELLED' })).json.error.code).toBe('STATE_CONFLICT');
      expect((await call('POST', url, owner, { network_id: 'ethereum-mainnet', expected_request_commitment: approved.json.request_commitment, reason_code: 'NO' })).status).toBe(400);
      const cancelled = await call('POST', url, owner, { network_id: 'ethereum-mainnet', expected_request_commitment: approved.json.request_commitment, reason_code: 'OWNER_CANCELLED' });
      expect([cancelled.status, cancelled.json.state, cancelled.json.revision]).toEqual([200, 'CANCELLED', 2]);
      // A cancel racing the rail's submit of an approved intent: exactly one of them happens.
      const raced = (await call('POST', '/api/v1/commerce/settlement-intents', owner, usdcBody)).json;
      const racedApproved = (await call('POST', `/api/v1/commerce/admin/settlement-intents/${raced.settlement_intent_uuid}/treasury`, admin, { transition: 'approve' })).json;
      const [cancelRace, submitRace] = await Promise.all([
        call('POST', `/api/v1/commerce/settlement-intents/${raced.settlement_intent_uuid}/cancel`, owner, { network_id: 'ethereum-mainnet', expected_request_commitment: racedApproved.request_commitment, reason_code: 'OWNER_CANCELLED' }),
        call('POST', `/api/v1/commerce/admin/settlement-intents/${raced.settlement_intent_uuid}/treasury`, admin, { transition: 'submit', transaction_reference: '0xraced' }),
      ]);
      expect([cancelRace.status, submitRace.status].sort()).toEqual([200, 409]);
      expect((await call('GET', `/api/v1/commerce/settlement-intents/${raced.settlement_intent_uuid}`, owner)).json.state).toBe(cancelRace.status === 200 ? 'CANCELLED' : 'SUBMITTED');
      if (submitRace.status === 200) await call('POST', `/api/v1/commerce/admin/settlement-intents/${raced.settlement_intent_uuid}/treasury`, admin, { transition: 'fail' });
      // The released 10 can be requested again; a confirmed payout tells the owner.
      const again = await call('POST', '/api/v1/commerce/settlement-intents', owner, usdcBody);
      expect(again.status).toBe(201);
      for (const step of ['approve', 'submit', 'confirm']) {
        expect((await call('POST', `/api/v1/commerce/admin/settlement-intents/${again.json.settlement_intent_uuid}/treasury`, admin, { transition: step, transaction_reference: '0xabc' })).status).toBe(200);
      }
      const inbox = await call('GET', '/api/v1/notifications', owner);
      expect(inbox.json.items.find((n: any) => n.reference === again.json.settlement_intent_uuid)).toMatchObject({ type: 'COMMERCE_SETTLEMENT_CONFIRMED', source: 'commerce' });
    });

    it('rotational wallets: each invoice on the network takes a fresh address; an empty pool is 422; operational wallets per workspace', async () => {
      const m = await activeMerchant('Crypto Shop');
      const w = await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'ROTATIONAL', merchant_uuid: m.merchant_uuid, network_id: 'ethereum-mainnet', label: 'Pool', addresses: [ADDR(11), ADDR(12)] });
      expect(w.status).toBe(201);
      expect(w.json).toMatchObject({ wallet_type: 'ROTATIONAL', status: 'ACTIVE', addresses_available: 2, addresses_allocated: 0, watch_only: true });
      expect((await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'ROTATIONAL', merchant_uuid: m.merchant_uuid, network_id: 'ethereum-mainnet', label: 'Bad', addresses: ['bc1qnotevm'] })).status).toBe(400);
      const crypto = (over: Record<string, unknown> = {}) => invoiceBody(m.merchant_uuid, { asset: 'USDC', network_id: 'ethereum-mainnet', line_items: [{ description: 'Tea', quantity: '1', unit_price: '5' }], ...over });
      const a = (await call('POST', '/api/v1/commerce/invoices', owner, crypto())).json;
      const b = (await call('POST', '/api/v1/commerce/invoices', owner, crypto())).json;
      expect([a.payment_address, b.payment_address]).toEqual([ADDR(11), ADDR(12)]);
      const empty = await call('POST', '/api/v1/commerce/invoices', owner, crypto());
      expect([empty.status, empty.json.error.details[0].issue]).toEqual([422, 'address pool exhausted']);
      expect((await call('POST', '/api/v1/commerce/invoices', owner, crypto({ asset: 'BTC' }))).json.error.code).toBe('RULE_VIOLATION');
      const grown = await call('POST', `/api/v1/commerce/wallets/${w.json.wallet_uuid}/addresses`, owner, { expected_version: 2, addresses: [ADDR(13)] });
      expect(grown.json).toMatchObject({ addresses_available: 1, addresses_allocated: 2, version: 3 });
      expect((await call('POST', `/api/v1/commerce/wallets/${w.json.wallet_uuid}/addresses`, owner, { expected_version: 3, addresses: [ADDR(11)] })).json.error.code).toBe('RULE_VIOLATION');
      const op = await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'OPERATIONAL', network_id: 'ethereum-mainnet', label: 'Treasury', address: ADDR(99) });
      expect([op.status, op.json.workspace_uuid, op.json.merchant_uuid]).toEqual([201, workspace, null]);
      expect((await call('GET', '/api/v1/commerce/wallets?wallet_type=OPERATIONAL&network_id=ethereum-mainnet', owner)).json.items.map((x: any) => x.wallet_uuid)).toEqual([op.json.wallet_uuid]);
      expect((await call('GET', `/api/v1/commerce/wallets?wallet_type=ROTATIONAL&network_id=ethereum-mainnet&merchant_uuid=${m.merchant_uuid}`, owner)).json.items).toHaveLength(1);
      expect((await call('GET', '/api/v1/commerce/wallets?wallet_type=ROTATIONAL&network_id=ethereum-mainnet', owner)).json.error.details[0].field).toBe('merchant_uuid');
      expect((await call('GET', '/api/v1/commerce/wallets?wallet_type=OPERATIONAL', owner)).json.error.details[0].field).toBe('network_id');
      const retired = await call('POST', `/api/v1/commerce/wallets/${op.json.wallet_uuid}/retire`, owner, { expected_version: 0 });
      expect([retired.json.status, retired.json.actions]).toEqual(['RETIRED', []]);
    });

    it("tenancy: another workspace's merchant, invoice, payment, wallet and intent are 404; lists show only the caller's workspace", async () => {
      const m = await activeMerchant('Private Shop');
      const { invoice, payment } = await paidInvoice(m.merchant_uuid, undefined, { asset: 'USDC' });
      const wallet = (await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'OPERATIONAL', network_id: 'solana-mainnet', label: 'S', address: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' })).json;
      const intent = await call('POST', '/api/v1/commerce/settlement-intents', owner, { merchant_uuid: m.merchant_uuid, network_id: 'solana-mainnet', asset: 'USDC', amount: '1', destination: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T' });
      expect(intent.status).toBe(201);
      const stranger = await personWithWorkspace('Elsewhere');
      for (const url of [
        `/api/v1/commerce/merchants/${m.merchant_uuid}`, `/api/v1/commerce/invoices/${invoice.invoice_uuid}`, `/api/v1/commerce/payments/${payment.payment_uuid}`,
        `/api/v1/commerce/wallets/${wallet.wallet_uuid}`, `/api/v1/commerce/merchants/${m.merchant_uuid}/products`, `/api/v1/commerce/settlement-intents/${intent.json.settlement_intent_uuid}`,
      ]) {
        const r = await call('GET', url, stranger.headers);
        expect([url, r.status, r.json.error.code]).toEqual([url, 404, 'NOT_FOUND']);
      }
      expect((await call('POST', `/api/v1/commerce/invoices/${invoice.invoice_uuid}/cancel`, stranger.headers, { expected_invoice_version: 0, expected_status: 'OPEN', reason_code: 'OTHER', step_up_token: await stepUp(stranger.headers, 'COMMERCE_INVOICE_CANCELLATION') })).status).toBe(404);
      expect((await call('POST', '/api/v1/commerce/payments', stranger.headers, { invoice_uuid: invoice.invoice_uuid })).status).toBe(404);
      expect((await call('POST', `/api/v1/commerce/settlement-intents/${intent.json.settlement_intent_uuid}/cancel`, stranger.headers, { network_id: 'solana-mainnet', expected_request_commitment: intent.json.request_commitment, reason_code: 'OWNER_CANCELLED' })).status).toBe(404);
      expect((await call('GET', '/api/v1/commerce/settlement-intents', stranger.headers)).json.items).toEqual([]);
      expect((await call('GET', '/api/v1/commerce/merchants', stranger.headers)).json.items).toEqual([]);
      expect((await call('GET', '/api/v1/commerce/payments', stranger.headers)).json.items).toEqual([]);
      // A cursor issued in one workspace is refused in another.
      const mine = await call('GET', '/api/v1/commerce/merchants?limit=1', owner);
      expect(mine.json.next_cursor).toBeDefined();
      expect((await call('GET', `/api/v1/commerce/merchants?limit=1&cursor=${mine.json.next_cursor}`, stranger.headers)).status).toBe(400);
    });
  });
}
