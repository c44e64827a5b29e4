/** Billing over HTTP on SQLite read models: the shared suite (test/support/billing-suite.ts), and a deployment that does not bill. */
import { BillingJobs } from '../../src/modules/billing/billing-jobs';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { startTestApp, type TestApp } from '../support/app';
import { billingSuite } from '../support/billing-suite';
import { registerTrader } from '../support/traders';

billingSuite('billing (sqlite read models)', () => ({}));

describe('billing with BILLING_ENFORCEMENT=false', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ BILLING_ENFORCEMENT: 'false', BILLING_FREE_ALLOWANCE_CREDITS: '0.1' });
  });
  afterAll(() => t?.close());

  it('refuses nothing, and still rates every order: the account shows what is owed', async () => {
    const trader = await registerTrader(t);
    for (let i = 0; i < 3; i++) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: trader, payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'b2Zm' } });
      expect(r.statusCode).toBe(201);
    }
    const store: EventStore = t.app.get(EVENT_STORE);
    expect(await t.app.get(BillingJobs).raterReached(await store.headPosition(), 8000)).toBe(true);
    expect(await t.app.get(ProjectionRunner).waitFor(await store.headPosition(), undefined, 8000)).toBe(true);
    const account = (await t.app.inject({ method: 'GET', url: '/api/v1/billing/account', headers: trader })).json();
    expect(account).toMatchObject({ status: 'CREDITS_REQUIRED', available_credits: '0', rated_usage_credits: '0.3', usage_events: 3, uncovered_credits: '0.2' });
  });
});
