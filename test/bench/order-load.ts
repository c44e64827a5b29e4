/**
 * The load of the process benchmarks (scale-out.bench.ts, threads.bench.ts): clients in worker threads
 * (latency-client.ts), each its own trader on one keep-alive connection sending one request at a time, placing
 * resting BUY orders on market i % 3, every order at a price and with an `external_ref` of its own.
 */
import type { ClientRequest, RunAnswer, TimedAnswer } from './latency-client';
import { ClientWorker } from './client-worker';
import { clock, seconds as since } from './report';
import { cleanup, guard, ORDERS_PATH, random, registerTrader, sleep, type ServerNode } from './server-process';

export const ms = (us: number): string => (us / 1000).toFixed(2);
export const fmtMicros = (us: number | null): string => (us === null || !Number.isFinite(us) ? '—' : Math.round(us).toLocaleString('en-US'));

export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

// ---------------------------------------------------------------------------------------------------------------
// Markets and prices: every order rests far below the market, each at a price of its own.

export interface Market {
  symbol: string;
  size: string;
  /** price(j) = (base + j * step) / 10^decimals, for j < count: the range on the market's tick. */
  base: number;
  step: number;
  decimals: number;
  count: number;
}

/** The demo markets every node seeds at boot (src/modules/trading/markets.ts DEMO_MARKETS). */
export const MARKETS: Market[] = [
  { symbol: 'BTC-PERP', size: '0.010', base: 10_000, step: 5, decimals: 1, count: 20_000 }, // 1000.0 – 10999.5 step 0.5
  { symbol: 'ETH-PERP', size: '0.10', base: 10_000, step: 5, decimals: 2, count: 18_000 }, // 100.00 – 999.95 step 0.05
  { symbol: 'SOL-PERP', size: '1.0', base: 10_000, step: 1, decimals: 3, count: 90_000 }, // 10.000 – 99.999 step 0.001
];
export const price = (m: Market, j: number): string => ((m.base + j * m.step) / 10 ** m.decimals).toFixed(m.decimals);

/**
 * Client i's prices on market i % 3: the clients of one market take turns through its range (client k of n takes
 * every n-th price from offset k), so no two requests share a price until a client runs out of its share (then the
 * worker goes round again and says how often: `reused`). The first `reservedBtc` BTC-PERP prices are left to the
 * one-client runs.
 */
function loadPrices(client: number, clients: number, reservedBtc: number): string[] {
  const market = MARKETS[client % MARKETS.length];
  const sharing = Math.ceil(clients / MARKETS.length);
  const k = Math.floor(client / MARKETS.length);
  const first = market.symbol === 'BTC-PERP' ? reservedBtc : 0;
  const prices: string[] = [];
  for (let j = first + k; j < market.count; j += sharing) prices.push(price(market, j));
  return prices;
}

export const orderBody = (market: Market, limitPrice: string, ref: string): string =>
  `{"direction":"BUY","market":"${market.symbol}","order_size":"${market.size}","limit_price":"${limitPrice}","external_ref":"${ref}"}`;
export const orderHeaders = (token: string): Record<string, string> => ({ 'content-type': 'application/json', authorization: `Bearer ${token}` });
export const acknowledged = (code: number): boolean => code === 201 || code === 202;

// ---------------------------------------------------------------------------------------------------------------
// Clients and traders.

/** A latency-client.ts worker on one keep-alive connection to `node`, ended by `killAll` at the latest. */
export class LoadClient {
  private constructor(
    private readonly w: ClientWorker,
    readonly node: ServerNode,
  ) {}

  static async open(node: ServerNode): Promise<LoadClient> {
    const w = await ClientWorker.open(node.url, guard);
    cleanup.workers.push(w.worker);
    return new LoadClient(w, node);
  }

  /** The requests one at a time, each timed. */
  run(requests: ClientRequest[], keepBodies = false): Promise<RunAnswer> {
    return this.w.ask<RunAnswer>({ kind: 'run', requests, keepBodies });
  }

  /** Repeats the request (with `{i}` and `{v}` filled in) until `stop`. */
  timed(request: ClientRequest, values: string[]): { stop(): Promise<TimedAnswer> } {
    return this.w.repeat<TimedAnswer>({ kind: 'timed', request, values });
  }

  close(): Promise<number> {
    return this.w.close();
  }
}

export interface Trader {
  token: string;
  client: LoadClient;
  market: Market;
  prices: string[];
  /** A prefix of this trader's external references, unique in the run. */
  ref: string;
}

/** `clients` load clients: client i registered on and talking to nodes[i % nodes], ordering on market i % 3. */
export async function openTraders(nodes: ServerNode[], clients: number, reservedBtc: number): Promise<Trader[]> {
  return Promise.all(
    Array.from({ length: clients }, async (_, i) => {
      const node = nodes[i % nodes.length];
      const token = await registerTrader(node, `load${i}`);
      return { token, client: await LoadClient.open(node), market: MARKETS[i % MARKETS.length], prices: loadPrices(i, clients, reservedBtc), ref: `b-${random(4)}-${i}` };
    }),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Timed load.

/** One client repeating one request, `{v}` taking `values` in turn. */
export interface Flow {
  client: LoadClient;
  request: ClientRequest;
  values: string[];
}

/** The trader's placements, on its own client unless `client` and `path` send the same bytes elsewhere. */
export const placementFlow = (t: Trader, client: LoadClient = t.client, path = ORDERS_PATH): Flow => ({
  client,
  request: { method: 'POST', path, headers: orderHeaders(t.token), body: orderBody(t.market, '{v}', `${t.ref}-{i}`) },
  values: t.prices,
});

/** Every flow repeats its request back to back until the time is up; answers what they got. */
export async function loadFor(flows: Flow[], seconds: number): Promise<{ answers: TimedAnswer[]; elapsed: number }> {
  const started = clock();
  const running = flows.map((f) => f.client.timed(f.request, f.values));
  await guard(sleep(seconds * 1000));
  const answers = await Promise.all(running.map((f) => f.stop()));
  return { answers, elapsed: since(started) };
}

/** The latencies of the answers `ok` accepts, and the others counted by status (0: the connection failed). */
export function tally(answers: TimedAnswer[], ok: (code: number) => boolean = acknowledged): { latencies: number[]; refused: Record<string, number> } {
  const latencies: number[] = [];
  const refused: Record<string, number> = {};
  for (const a of answers)
    a.codes.forEach((code, i) => {
      if (ok(code)) latencies.push(a.latencies[i]);
      else refused[code] = (refused[code] ?? 0) + 1;
    });
  return { latencies, refused };
}

export const refusedText = (refused: Record<string, number>): string => {
  const entries = Object.entries(refused);
  return entries.length === 0 ? '0' : entries.map(([code, n]) => `${code === '0' ? 'connection error' : code}×${n}`).join(' ');
};
export const refusedCount = (refused: Record<string, number>): number => Object.values(refused).reduce((a, b) => a + b, 0);
