/**
 * The rater lets usage gather after it reaches the log's head (BILLING_RATER_COALESCE_MS), so orders placed one after
 * another are rated in one append instead of a durable commit each; whoever waits for the rater (the credits gate
 * near a tenant's last credits, the period close) ends the pause at once.
 */
import { BillingJobs } from '../../src/modules/billing/billing-jobs';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader, until, type Headers } from '../support/traders';

const place = (t: TestApp, who: Headers) =>
  t.app.inject({ method: 'POST', url: '/api/v1/api/v1/mtf/orders', headers: who, payload: { direction: 'BUY', market: 'BTC-PERP', order_size: '0.010', limit_price: '50000', external_ref: 'Y29hbGVzY2U' } });

async function usageAppends(t: TestApp): Promise<RecordedEvent[][]> {
  const rated = (await t.app.get<EventStore>(EVENT_STORE).readAll({ after: 0n, maxCount: 100_000 })).filter((e) => e.type === 'BillingUsageRated');
  // One append's events share its first source event as their cause (rater.ts).
  const appends = new Map<string, RecordedEvent[]>();
  for (const e of rated) appends.set(String(e.metadata.causation_id), [...(appends.get(String(e.metadata.causation_id)) ?? []), e]);
  return [...appends.values()];
}

describe.each([
  ['coalescing (400 ms)', '400'],
  ['rating each at once (0)', '0'],
])('the billing rater, %s', (_name, coalesceMs) => {
  let t: TestApp;
  beforeAll(async () => {
    // One thread (WORKER_THREADS=0): the suite drives this thread's job objects themselves (docs/operations.md 10.4).
    t = await startTestApp({ BILLING_RATER_COALESCE_MS: coalesceMs, WORKER_THREADS: '0' });
  });
  afterAll(async () => t.close());

  it('rates every order once; orders placed back to back share an append only when coalescing', async () => {
    const trader = await registerTrader(t);
    for (let i = 0; i < 5; i++) {
      expect((await place(t, trader)).statusCode).toBe(201);
      // Far apart enough that without the pause the rater rates each before the next arrives.
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const appends = await until(() => usageAppends(t), (a) => a.flat().length === 5, 10_000, 'five usages rated');
    expect(new Set(appends.flat().map((e) => e.data.source_event_id)).size).toBe(5);
    if (coalesceMs === '0') expect(appends).toHaveLength(5);
    else expect(appends.length).toBeLessThanOrEqual(2);
  });
});

it('ends its pause for whoever waits for it: a wait shorter than the pause is met', async () => {
  const t = await startTestApp({ BILLING_RATER_COALESCE_MS: '10000', WORKER_THREADS: '0' });
  try {
    const trader = await registerTrader(t);
    const jobs = t.app.get(BillingJobs);
    const store = t.app.get<EventStore>(EVENT_STORE);
    // The rater has reached the head (registration) and sits in its pause; an order arrives.
    await until(async () => jobs.raterReached(await store.headPosition(), 100), (reached) => reached, 10_000, 'rater at the head');
    expect((await place(t, trader)).statusCode).toBe(201);
    // Half the pause: only an ended pause lets the rater get there in time.
    expect(await jobs.raterReached(await store.headPosition(), 5000)).toBe(true);
    expect((await usageAppends(t)).flat()).toHaveLength(1);
  } finally {
    await t.close();
  }
});
