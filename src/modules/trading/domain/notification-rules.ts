/**
 * Trading's notification rules (registered with the notification inbox, src/modules/notifications/domain/rule-port.ts):
 * an order filled, partially filled (one notification per order and matching round), or cancelled by the platform
 * (never the account's own cancellations). The rules remember each open order's side, type and size and each
 * market's symbol, to say which order it was.
 */
import { fact, getFact, id32, notifier, plainDecimal, streamId, untrusted, words, type DataOf, type FactKey, type Facts, type InboxChange, type NotificationRules, type SourceEvent } from '../../notifications/domain/rule-port';
import type { MarketEvent } from './market';
import type { EngineCancelCode, OrderCancelledData, OrderFilledData, OrderOpenedData, TradeExecutedData } from './engine-events';

/** Cancellations the account asked for: not notified. Every other engine reason is the platform's doing. */
const USER_CANCELS = new Set<string>(['USER_REQUEST', 'CANCEL_ALL']);
/** After these an order gets no more engine events (a reduce-only cut leaves the rest of the order live). */
const FINAL_CANCELS_EXCEPT = new Set<string>(['REDUCE_ONLY_EXCEEDS_POSITION']);

export const CANCEL_EXPLANATIONS: Record<Exclude<EngineCancelCode, 'USER_REQUEST' | 'CANCEL_ALL'>, string> = {
  IOC_REMAINDER: 'the unfilled rest of an immediate-or-cancel order does not wait in the book',
  FOK_UNFILLABLE: 'a fill-or-kill order could not be filled completely at once',
  BOOK_OR_CANCEL_WOULD_TRADE: 'a book-or-cancel order would have traded on entry',
  SELF_TRADE_PREVENTION: 'it would have traded with another order of yours (self-trade prevention)',
  MARKET_ORDER_NO_LIQUIDITY: 'the market had no liquidity for a market order',
  REDUCE_ONLY_NO_POSITION: 'a reduce-only order found no position to reduce',
  REDUCE_ONLY_EXCEEDS_POSITION: 'a reduce-only order was larger than your position; the excess was cancelled',
  ENGINE_REJECTED: 'the matching engine could not take it',
};

const HREF = { order: (order_uuid: string) => `/api/v1/api/v1/mtf/order_meta?order_uuid=${order_uuid}` };
const STREAM = { market: 'mtf-market-', engine: 'mtf-engine-' };
const TYPES = ['ORDER_FILLED', 'ORDER_PARTIALLY_FILLED', 'ORDER_CANCELLED_BY_PLATFORM'] as const;
const notify = notifier('trading', TYPES);

function factsNeeded(e: SourceEvent): FactKey[] {
  const d = e.data as Record<string, unknown>;
  switch (e.type) {
    case 'TradeExecuted': {
      const t = d as unknown as TradeExecutedData;
      return [{ scope: 'order', key: t.maker_order_uuid }, { scope: 'order', key: t.taker_order_uuid }, { scope: 'market', key: t.market_uuid }];
    }
    case 'OrderFilled':
    case 'OrderCancelled':
      return [{ scope: 'order', key: String(d.order_uuid) }, { scope: 'market', key: String(d.market_uuid) }];
    default:
      return [];
  }
}

// Trading: fills, partial fills, the platform's cancellations

interface OrderFact {
  profile: string;
  side: string;
  order_type: string;
  size: string;
  market: string;
}

/** "your buy limit order for 0.02 BTC-PERP", or "your order" when the engine's opening was never seen. */
function describeOrder(order: OrderFact | undefined, symbol: string | undefined): string {
  if (!order) return 'your order';
  return `your ${words(order.side)} ${words(order.order_type, '-')} order for ${plainDecimal(order.size)} ${symbol ?? 'contracts'}`;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function plan(e: SourceEvent, facts: Facts): InboxChange[] {
  if (e.type === 'MarketCreated') {
    if (!streamId(e, STREAM.market)) return [];
    const d = e.data as unknown as DataOf<MarketEvent, 'MarketCreated'>;
    return id32(d.market_uuid) ? [fact('market', d.market_uuid, { symbol: untrusted(d.market_symbol, 64) })] : [];
  }
  if (!streamId(e, STREAM.engine)) return [];
  const symbolOf = (market: unknown): string | undefined => getFact(facts, 'market', market)?.symbol as string | undefined;
  const orderOf = (order_uuid: unknown): OrderFact | undefined => getFact(facts, 'order', order_uuid) as OrderFact | undefined;
  switch (e.type) {
    case 'OrderOpened': {
      const d = e.data as unknown as OrderOpenedData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      return [fact('order', d.order_uuid, { profile: d.profile_uuid, side: d.side, order_type: d.order_type, size: d.size, market: d.market_uuid } satisfies OrderFact)];
    }
    case 'TradeExecuted': {
      const d = e.data as unknown as TradeExecutedData;
      const symbol = symbolOf(d.market_uuid);
      const changes: InboxChange[] = [];
      for (const side of [
        { order_uuid: d.maker_order_uuid, profile: d.maker_profile_uuid, remaining: d.maker_remaining },
        { order_uuid: d.taker_order_uuid, profile: d.taker_profile_uuid, remaining: d.taker_remaining },
      ]) {
        // Filled completely: OrderFilled follows in the same append and says so.
        if (!id32(side.order_uuid) || !id32(side.profile) || !/[1-9]/.test(side.remaining)) continue;
        const order = orderOf(side.order_uuid);
        const remaining = plainDecimal(side.remaining);
        const filled = order ? ` ${plainDecimal(subtract(order.size, side.remaining))} filled,` : '';
        // One notification per order and matching round (one engine input): later trades of the round refine it.
        changes.push(
          notify(
            e,
            side.profile,
            {
              type: 'ORDER_PARTIALLY_FILLED',
              title: 'Order partially filled',
              message: `${capital(describeOrder(order, symbol))} was partially filled:${filled} ${remaining} remaining.`,
              href: HREF.order(side.order_uuid),
              reference: side.order_uuid,
            },
            ['order-round', side.order_uuid, String(d.input_position)],
          ),
        );
      }
      return changes;
    }
    case 'OrderFilled': {
      const d = e.data as unknown as OrderFilledData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      const order = orderOf(d.order_uuid);
      return [
        fact('order', d.order_uuid, null),
        notify(
          e,
          d.profile_uuid,
          { type: 'ORDER_FILLED', title: 'Order filled', message: `${capital(describeOrder(order, symbolOf(d.market_uuid)))} was filled.`, href: HREF.order(d.order_uuid), reference: d.order_uuid },
          // The round's partial-fill notification (if this round had one) becomes the fill.
          ['order-round', d.order_uuid, String(d.input_position)],
        ),
      ];
    }
    case 'OrderCancelled': {
      const d = e.data as unknown as OrderCancelledData;
      if (!id32(d.order_uuid) || !id32(d.profile_uuid)) return [];
      const order = orderOf(d.order_uuid);
      const changes: InboxChange[] = FINAL_CANCELS_EXCEPT.has(d.reason) ? [] : [fact('order', d.order_uuid, null)];
      if (USER_CANCELS.has(d.reason)) return changes;
      const why = CANCEL_EXPLANATIONS[d.reason as keyof typeof CANCEL_EXPLANATIONS] ?? 'the platform cancelled it';
      const code = /^\d{2}_CancelReason_[A-Za-z]+$/.test(d.cancel_reason) ? ` (${d.cancel_reason})` : '';
      changes.push(
        notify(e, d.profile_uuid, {
          type: 'ORDER_CANCELLED_BY_PLATFORM',
          title: 'Order cancelled by the platform',
          message: `${capital(describeOrder(order, symbolOf(d.market_uuid)))} was cancelled by the platform, ${plainDecimal(d.remaining)} unfilled: ${why}${code}.`,
          href: HREF.order(d.order_uuid),
          reference: d.order_uuid,
        }),
      );
      return changes;
    }
    default:
      return [];
  }
}

/** a − b for decimal strings, exactly (18 fractional digits at most, as the engine writes them). */
function subtract(a: string, b: string): string {
  const scale = (v: string): bigint => {
    const [i, f = ''] = v.split('.');
    return BigInt(i) * 10n ** 18n + BigInt((f + '0'.repeat(18)).slice(0, 18));
  };
  try {
    const v = scale(a) - scale(b);
    const sign = v < 0n ? '-' : '';
    const abs = v < 0n ? -v : v;
    return `${sign}${abs / 10n ** 18n}.${(abs % 10n ** 18n).toString().padStart(18, '0')}`;
  } catch {
    return '?';
  }
}

export const tradingNotificationRules: NotificationRules = {
  source: 'trading',
  types: TYPES,
  handles: ['MarketCreated', 'OrderOpened', 'TradeExecuted', 'OrderFilled', 'OrderCancelled'],
  factScopes: ['market', 'order'],
  factsNeeded,
  plan,
};
