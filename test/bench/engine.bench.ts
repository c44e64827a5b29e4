/**
 * Matching-engine benchmark: the platform's engine core (src/modules/trading/engine) against the npm package
 * nodejs-order-book on the same generated order flow in the same run — 10% cancels, 15% market orders, 60% limit
 * orders that rest, 15% limit orders that cross. Prints both rates and the ratio (target ≥ 1.0×). And the whole decider
 * on a market bound to a price feed (an index tick every 20 inputs, the mark recomputed after every decision) against
 * the same decider unbound: what mark prices cost the engine.
 */
import { OrderBook as ReferenceBook } from 'nodejs-order-book';
import { cancel, match, OrderBook, type IncomingOrder } from '../../src/modules/trading/engine';
import { MarketEngine, type EngineInput } from '../../src/modules/trading/engine/market-engine';
import { prng } from '../support/prng';
import { SCALE as BENCH_SCALE } from './report';

type Op = { kind: 'cancel'; id: string } | { kind: 'market'; id: string; side: 'buy' | 'sell'; size: number } | { kind: 'limit'; id: string; side: 'buy' | 'sell'; size: number; price: number };


function generate(n: number, seed: number): Op[] {
  const rnd = prng(seed);
  const ops: Op[] = [];
  const live: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = rnd();
    if (r < 0.1 && live.length > 0) {
      const j = Math.floor(rnd() * live.length);
      ops.push({ kind: 'cancel', id: live[j] });
      live[j] = live[live.length - 1];
      live.pop();
      continue;
    }
    const side = rnd() < 0.5 ? 'buy' : 'sell';
    const size = 1 + Math.floor(rnd() * 100);
    if (r < 0.25) {
      ops.push({ kind: 'market', id: `o${i}`, side, size });
      continue;
    }
    const resting = r < 0.85;
    const offset = 1 + Math.floor(rnd() * 50);
    const price = resting ? (side === 'buy' ? 1000 - offset : 1000 + offset) : side === 'buy' ? 1000 + offset : 1000 - offset;
    ops.push({ kind: 'limit', id: `o${i}`, side, size, price });
    live.push(`o${i}`);
  }
  return ops;
}

const SCALE = 10n ** 18n;

function runEngine(ops: Op[], incoming: Array<IncomingOrder | null>): { ms: number; trades: number } {
  const book = new OrderBook();
  let ids = 0;
  const options = { nextTradeId: () => `t${++ids}` };
  let trades = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op.kind === 'cancel') cancel(book, op.id);
    else trades += match(book, incoming[i]!, options).trades.length;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, trades };
}

/** The whole engine decider as the runtime uses it: decimal-string inputs in, engine events (decimal strings) out. */
function runMarketEngine(inputs: EngineInput[]): { ms: number; trades: number } {
  const engine = new MarketEngine({ market_uuid: '0'.repeat(32), market_id: 1 });
  engine.lastInputPosition = inputs[0].input_position - 1n;
  let trades = 0;
  const started = process.hrtime.bigint();
  for (const input of inputs) for (const e of engine.decide(input)) if (e.type === 'TradeExecuted') trades++;
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, trades };
}

/** nodejs-order-book reports fully filled orders (`done`), not trades: its count is a different measure. */
function runReference(ops: Op[]): { ms: number; trades: number } {
  const book = new ReferenceBook();
  let trades = 0;
  const started = process.hrtime.bigint();
  for (const op of ops) {
    if (op.kind === 'cancel') book.cancel(op.id);
    else if (op.kind === 'market') trades += book.market({ side: op.side as never, size: op.size }).done.length;
    else trades += book.limit({ id: op.id, side: op.side as never, size: op.size, price: op.price }).done.length;
  }
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, trades };
}

function main(): void {
  const n = Math.round(300_000 * BENCH_SCALE);
  const ops = generate(n, 7);
  // Orders as the engine takes them (fixed-point sizes and prices), built before the clock starts, as the reference's are.
  const incoming = ops.map((op): IncomingOrder | null =>
    op.kind === 'cancel'
      ? null
      : {
          order_id: op.id,
          // One owner per order: self-trade prevention never fires, so both books do the same matching.
          owner: op.id,
          side: op.side === 'buy' ? 'BUY' : 'SELL',
          type: op.kind === 'market' ? 'MARKET' : 'LIMIT',
          price: op.kind === 'market' ? null : BigInt(op.price) * SCALE,
          size: BigInt(op.size) * SCALE,
          time_in_force: 'GTC',
          post_only: false,
        },
  );
  const inputs = ops.map((op, i): EngineInput => {
    const input_position = BigInt(i + 1);
    if (op.kind === 'cancel') return { kind: 'CANCEL', input_position, order_uuid: op.id, profile_uuid: op.id, reason: 'USER_REQUEST' };
    return {
      kind: 'PLACE',
      input_position,
      order: {
        order_uuid: op.id,
        profile_uuid: op.id,
        direction: op.side === 'buy' ? 'BUY' : 'SELL',
        order_type: op.kind === 'market' ? 'MARKET' : 'LIMIT',
        time_in_force: 'GTC',
        post_only: false,
        reduce_only: false,
        order_size: String(op.size),
        limit_price: op.kind === 'market' ? null : String(op.price),
        trigger_price: null,
      },
    };
  });
  // The same inputs on a feed-bound market: bound first, then an index tick (wandering around 1000) every 20 inputs.
  const feed_id = 'f'.repeat(32);
  const bound: EngineInput[] = [{ kind: 'BIND_FEED', input_position: 1n, feed_id, stop_trigger_source: 'MARK_PRICE', mark_basis_window_ms: 150_000 }];
  const rnd = prng(11);
  inputs.forEach((input, i) => {
    if (i % 20 === 0) {
      const value = String(990 + Math.floor(rnd() * 21));
      bound.push({ kind: 'INDEX_TICK', input_position: BigInt(bound.length + 1), feed_id, status: 'LIVE', value, at: new Date(Date.UTC(2026, 10, 25) + i * 50).toISOString() });
    }
    bound.push({ ...input, input_position: BigInt(bound.length + 1) });
  });
  console.log(`Matching-engine benchmark: ${n} operations (10% cancels, 15% market, 60% resting limit, 15% crossing limit)`);
  let best = { engine: Infinity, reference: Infinity, decider: Infinity, bound: Infinity };
  for (let round = 0; round < 3; round++) {
    const e = runEngine(ops, incoming);
    const r = runReference(ops);
    const m = runMarketEngine(inputs);
    const b = runMarketEngine(bound);
    best = { engine: Math.min(best.engine, e.ms), reference: Math.min(best.reference, r.ms), decider: Math.min(best.decider, m.ms), bound: Math.min(best.bound, b.ms) };
    console.log(
      `  round ${round + 1}: engine ${e.ms.toFixed(1)} ms (${e.trades} trades), nodejs-order-book ${r.ms.toFixed(1)} ms (${r.trades} orders reported done), MarketEngine.decide ${m.ms.toFixed(1)} ms (${m.trades} trades), feed-bound ${b.ms.toFixed(1)} ms (${b.trades} trades)`,
    );
  }
  const engineRate = (n / best.engine) * 1000;
  const referenceRate = (n / best.reference) * 1000;
  const ratio = engineRate / referenceRate;
  const deciderRate = (n / best.decider) * 1000;
  console.log(`MarketEngine.decide (events with decimal strings, as the runtime appends them) ${Math.round(deciderRate).toLocaleString('en-US')} ops/s | ratio to nodejs-order-book ${(deciderRate / referenceRate).toFixed(2)}x`);
  const boundRate = (n / best.bound) * 1000;
  console.log(`MarketEngine.decide on a feed-bound market (same orders, plus an index tick every 20; mark after each decision) ${Math.round(boundRate).toLocaleString('en-US')} order ops/s | ratio to unbound ${(boundRate / deciderRate).toFixed(2)}x`);
  console.log(`engine ${Math.round(engineRate).toLocaleString('en-US')} ops/s | nodejs-order-book ${Math.round(referenceRate).toLocaleString('en-US')} ops/s | ratio ${ratio.toFixed(2)}x (target >= 1.0x) ${ratio >= 1 ? 'PASS' : 'BELOW'}`);
}

main();
