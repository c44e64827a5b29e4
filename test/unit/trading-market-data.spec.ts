/** Order-book depth and one-minute candles (pure), and the read endpoints' query validation. */
import { ValidationFailed } from '../../src/platform/errors';
import { validateDto } from '../../src/platform/http/validation';
import { MarketHistoryQuery, OrderBookQuery, OrderMetaQuery, TradeMetaQuery } from '../../src/modules/trading/dto/read.dto';
import { aggregateDepth, historyWindowStart, minuteCandles } from '../../src/modules/trading/market-data';

describe('aggregateDepth', () => {
  const resting = [
    { direction: 'BUY', book_price: '9.500000000000000000', remaining: '0.100000000000000000' },
    { direction: 'BUY', book_price: '100.000000000000000000', remaining: '0.100000000000000000' },
    { direction: 'BUY', book_price: '99.000000000000000000', remaining: '0.400000000000000000' },
    { direction: 'BUY', book_price: '100.000000000000000000', remaining: '0.200000000000000000' },
    { direction: 'SELL', book_price: '1000.000000000000000000', remaining: '5.000000000000000000' },
    { direction: 'SELL', book_price: '101.000000000000000000', remaining: '0.000000000000000001' },
    { direction: 'SELL', book_price: '101.000000000000000000', remaining: '2.000000000000000000' },
    { direction: 'SELL', book_price: '200.000000000000000000', remaining: '0.000000000000000000' },
  ];

  it('sums exactly per price and orders numerically, best first', () => {
    expect(aggregateDepth(resting, 50)).toEqual({
      bids: [
        { price: '100.000000000000000000', size: '0.300000000000000000', orders: 2 },
        { price: '99.000000000000000000', size: '0.400000000000000000', orders: 1 },
        { price: '9.500000000000000000', size: '0.100000000000000000', orders: 1 },
      ],
      asks: [
        { price: '101.000000000000000000', size: '2.000000000000000001', orders: 2 },
        { price: '1000.000000000000000000', size: '5.000000000000000000', orders: 1 },
      ],
    });
  });

  it('keeps the best `depth` levels of each side', () => {
    const top = aggregateDepth(resting, 1);
    expect(top.bids.map((l) => l.price)).toEqual(['100.000000000000000000']);
    expect(top.asks.map((l) => l.price)).toEqual(['101.000000000000000000']);
  });

  it('answers empty sides for an empty book', () => {
    expect(aggregateDepth([], 10)).toEqual({ bids: [], asks: [] });
  });
});

describe('minuteCandles', () => {
  const now = new Date('2026-03-01T10:05:30.250Z');
  const print = (executed_at: string, price: string, size: string) => ({ executed_at, price, size });
  const trades = [
    print('2026-03-01T10:00:59.999Z', '1', '1'),
    print('2026-03-01T10:01:00.000Z', '100.5', '0.1'),
    print('2026-03-01T10:01:30Z', '101.25', '0.2'),
    print('2026-03-01T10:01:45.5Z', '99.75', '0.3'),
    print('2026-03-01T10:01:59.999Z', '100', '0.000000000000000001'),
    print('2026-03-01T10:03:10.000Z', '98', '2'),
    print('2026-03-01T10:05:29.999Z', '97.5', '1.5'),
    print('2026-03-01T10:06:00.000Z', '1', '1'),
  ];

  it('given trades around a 5-minute window, when bucketed, then OHLCV per minute with trades, oldest first', () => {
    expect(historyWindowStart(now, 5)).toBe(Date.parse('2026-03-01T10:01:00Z'));
    expect(minuteCandles(trades, now, 5)).toEqual([
      { start: '2026-03-01T10:01:00Z', open: '100.500000000000000000', high: '101.250000000000000000', low: '99.750000000000000000', close: '100.000000000000000000', volume: '0.600000000000000001', trades: 4 },
      { start: '2026-03-01T10:03:00Z', open: '98.000000000000000000', high: '98.000000000000000000', low: '98.000000000000000000', close: '98.000000000000000000', volume: '2.000000000000000000', trades: 1 },
      { start: '2026-03-01T10:05:00Z', open: '97.500000000000000000', high: '97.500000000000000000', low: '97.500000000000000000', close: '97.500000000000000000', volume: '1.500000000000000000', trades: 1 },
    ]);
  });

  it('given a 1-minute window, then only the current minute', () => {
    expect(minuteCandles(trades, now, 1).map((c) => c.start)).toEqual(['2026-03-01T10:05:00Z']);
  });

  it('given no trades in the window, then no candles', () => {
    expect(minuteCandles(trades, new Date('2026-03-02T00:00:00Z'), 60)).toEqual([]);
  });

  it('takes open and close by execution order, not by price or timestamp spelling', () => {
    const same = [print('2026-03-01T10:05:01Z', '3', '1'), print('2026-03-01T10:05:01.000Z', '1', '1'), print('2026-03-01T10:05:01.000000Z', '2', '1')];
    expect(minuteCandles(same, now, 1)[0]).toMatchObject({ open: '3.000000000000000000', close: '2.000000000000000000', high: '3.000000000000000000', low: '1.000000000000000000', trades: 3 });
  });
});

describe('read query validation', () => {
  const rejects = async (cls: new () => object, value: object, field: string) => {
    const error = await validateDto(cls, value, 'query').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).details.map((x) => x.field)).toContain(field);
  };

  it('takes depth 1-500 and minutes 1-1440 as digit strings', async () => {
    await expect(validateDto(OrderBookQuery, { market: 'BTC-PERP', depth: '500', other: 'ignored' }, 'query')).resolves.toMatchObject({ market: 'BTC-PERP', depth: '500' });
    await expect(validateDto(OrderBookQuery, { market: 'BTC-PERP' }, 'query')).resolves.toMatchObject({ market: 'BTC-PERP' });
    for (const depth of ['0', '501', '-1', '1e2', '2.5', 'ten', '']) await rejects(OrderBookQuery, { market: 'BTC-PERP', depth }, 'depth');
    await rejects(OrderBookQuery, {}, 'market');
    await expect(validateDto(MarketHistoryQuery, { market: 'BTC-PERP', minutes: '1440' }, 'query')).resolves.toMatchObject({ minutes: '1440' });
    for (const minutes of ['0', '1441', '99999999999']) await rejects(MarketHistoryQuery, { market: 'BTC-PERP', minutes }, 'minutes');
  });

  it('takes order and trade ids as 32 lowercase hex characters', async () => {
    await expect(validateDto(OrderMetaQuery, { order_uuid: 'a'.repeat(32) }, 'query')).resolves.toBeDefined();
    await rejects(OrderMetaQuery, { order_uuid: 'A'.repeat(32) }, 'order_uuid');
    await rejects(OrderMetaQuery, {}, 'order_uuid');
    await rejects(TradeMetaQuery, { trade_uuid: 'a'.repeat(31) }, 'trade_uuid');
    await rejects(TradeMetaQuery, { trade_uuid: ['a'.repeat(32), 'b'.repeat(32)] }, 'trade_uuid');
  });
});
