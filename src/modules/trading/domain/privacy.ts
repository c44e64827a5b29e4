/**
 * The privacy class of every field of trading's events (src/platform/privacy/field-classes.ts, docs/privacy.md).
 * Market definitions and flags are public; orders, trades and the engine's decisions are the platform's own facts;
 * the one field a person writes in words (a cancellation's note) is personal.
 */
import type { JsonObject } from '../../../platform/commitments/json';
import { declareEventClasses } from '../../../platform/privacy/field-classes';
import type { EngineEvent } from './engine-events';
import type { MarketEvent, MarketRegistryEvent } from './market';
import type { OrderEvent } from './order';
import type { PriceFeedEvent, PriceProviderEvent } from './price-feed';

const ENGINE_BASE = { market_uuid: 'internal', input_position: 'internal' } as const;

export const MARKET_EVENT_CLASSES = declareEventClasses<MarketEvent | MarketRegistryEvent>('trading', {
  MarketCreated: {
    market_uuid: 'public', market_id: 'public', market_symbol: 'public', instrument_isin: 'public', market_type: 'public', contract_size: 'public', mininum_quantity: 'public',
    minimum_execution_quantity: 'public', operating_mic: 'public', segment_mic: 'public', price_currency: 'public', quote_currency: 'public', base_currency: 'public',
    tick_size: 'public', maximum_quantity: 'public', is_suspended: 'public', is_cancel_only: 'public', is_maker_only: 'public',
  },
  MarketFlagsChanged: { is_suspended: 'public', is_cancel_only: 'public', is_maker_only: 'public' },
  MarketPriceFeedBound: { market_uuid: 'public', feed_id: 'public', stop_trigger_source: 'public', mark_basis_window_ms: 'public' },
  MarketListed: { market_id: 'public', market_uuid: 'public', market_symbol: 'public' },
});

export const ORDER_EVENT_CLASSES = declareEventClasses<OrderEvent>('trading', {
  OrderAccepted: {
    order_uuid: 'internal', profile_uuid: 'internal', tenant_uuid: 'internal', market_uuid: 'internal', market_id: 'internal', market_symbol: 'internal', base_currency: 'internal',
    direction: 'internal', order_type: 'internal', time_in_force: 'internal', post_only: 'internal', reduce_only: 'internal', order_size: 'internal', limit_price: 'internal',
    trigger_price: 'internal', trigger_source: 'internal', external_ref: 'internal', order_group: 'internal', vault_uuid: 'internal', liquidity_pool: 'internal', channel: 'internal', leverage: 'internal',
    client_reference: 'internal', reporting_identifier: 'internal',
  },
  // note: the free text a person gave as the cancellation's reason.
  OrderCancelRequested: { order_uuid: 'internal', profile_uuid: 'internal', market_uuid: 'internal', reason: 'internal', note: 'personal' },
});

export const ENGINE_EVENT_CLASSES = declareEventClasses<EngineEvent | { type: 'EngineSnapshotTaken'; data: { engine_revision: string; snapshot: JsonObject } }>('trading', {
  OrderOpened: {
    ...ENGINE_BASE, order_uuid: 'internal', profile_uuid: 'internal', sequence: 'internal', engine_id: 'internal', order_sequence: 'internal', side: 'internal', order_type: 'internal',
    time_in_force: 'internal', post_only: 'internal', reduce_only: 'internal', price: 'internal', trigger_price: 'internal', size: 'internal', trigger_source: 'internal',
  },
  StopOrderTriggered: { ...ENGINE_BASE, order_uuid: 'internal', last_price: 'internal', sequence: 'internal', trigger_source: 'internal', reference_price: 'internal' },
  TradeExecuted: {
    ...ENGINE_BASE, trade_uuid: 'internal', maker_order_uuid: 'internal', taker_order_uuid: 'internal', maker_profile_uuid: 'internal', taker_profile_uuid: 'internal',
    taker_side: 'public', price: 'public', size: 'public', maker_remaining: 'internal', taker_remaining: 'internal',
  },
  OrderFilled: { ...ENGINE_BASE, order_uuid: 'internal', profile_uuid: 'internal' },
  OrderCancelled: { ...ENGINE_BASE, order_uuid: 'internal', profile_uuid: 'internal', reason: 'internal', cancel_reason: 'internal', remaining: 'internal' },
  OrderRested: { ...ENGINE_BASE, order_uuid: 'internal', profile_uuid: 'internal', side: 'internal', price: 'internal', remaining: 'internal', sequence: 'internal' },
  OrderCancelRejected: { ...ENGINE_BASE, order_uuid: 'internal', profile_uuid: 'internal', reason: 'internal' },
  // A market's reference prices are published market data, as trade prices are.
  PriceFeedAttached: { ...ENGINE_BASE, feed_id: 'public', stop_trigger_source: 'public', mark_basis_window_ms: 'public' },
  IndexPriceUpdated: { ...ENGINE_BASE, feed_id: 'public', feed_status: 'public', index_price: 'public', at: 'public', basis: 'public' },
  MarkPriceUpdated: { ...ENGINE_BASE, mark_price: 'public' },
  // The book as the engine held it (orders, no person's words): a cache of the engine's state.
  EngineSnapshotTaken: { engine_revision: 'internal', snapshot: 'internal' },
});

/** Price feeds: their definitions and computed values are the platform's facts; a provider's push key hash is a secret, sealed under the provider's own key. */
export const PRICE_FEED_EVENT_CLASSES = declareEventClasses<PriceFeedEvent>('trading', {
  PriceFeedCreated: { feed: 'internal', by_profile_uuid: 'internal' },
  PriceFeedValueComputed: { feed_id: 'internal', quote: 'internal', received_at: 'internal', status: 'internal', value: 'internal', used: 'internal', excluded: 'internal' },
});

export const PRICE_PROVIDER_EVENT_CLASSES = declareEventClasses<PriceProviderEvent>(
  'trading',
  { PriceProviderRegistered: { provider_uuid: 'internal', name: 'internal', key_hash: 'secret', by_profile_uuid: 'internal', at: 'internal' } },
  { subject: (e) => String(e.data.provider_uuid) },
);
