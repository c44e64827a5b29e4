/** Trading in the capability registry (docs/capabilities.md), and the price providers' way to authenticate. */
import { declareApplication, declareAuthenticationProfile } from '../../platform/capabilities/capability';

declareApplication({
  name: 'trading',
  group: 'Markets',
  order: 2,
  owners: ['trading'],
  description: 'Order-book trading of perpetual markets: the seeds\' MTF routes and the canonical order model, one matching engine per market, cancellation, market data, positions and composite price feeds with a mark price.',
  purpose: 'Let people and their agents trade on a fair order book whose every decision is auditable and replayable.',
  audiences: ['traders', 'trading agents', 'market operators (platform admins)', 'price providers'],
  businessCases: ['place, follow and cancel orders', 'protect a position with a stop on the mark price', 'read depth and candles', 'list markets and bind them to index prices'],
  workflow: ['list markets and their rules', 'place an order (MTF or canonical)', 'follow it to OPEN, FILLED or CANCELLED', 'cancel what is open', 'close a position'],
  prerequisites: ['a signed-in account', 'billing credits (orders are billable usage; reduce-only orders never need them)'],
  agentGuidance: ['Prices and quantities are decimal strings on the market\'s tick and lot; read the Market record first.', 'Orders are decided by the engine after the answer: read them back (X-Min-Position) instead of assuming a fill.'],
  relatedApplications: ['billing', 'arena', 'notifications'],
  capabilities: {
    markets: { whenToUse: 'To learn what can be traded and each market\'s rules (tick, lot, limits, flags, reference prices); admins create markets, halt them and bind price feeds.' },
    orders: { whenToUse: 'To place an order or read your orders back with their fills.', sideEffects: 'Accepts the order (OrderAccepted); the market\'s engine then opens, matches, rests or cancels it.' },
    cancellation: { whenToUse: 'To cancel one, several or all of your open orders.', sideEffects: 'Requests cancellation (OrderCancelRequested); the engine cancels what is still open.' },
    trades: { whenToUse: 'To read one trade you were a party to.' },
    'market-data': { whenToUse: 'To read aggregated depth (with index and mark where a feed is bound) or one-minute candles.' },
    positions: { whenToUse: 'To read your net positions, or close one with a reduce-only market order.', sideEffects: 'Closing places a reduce-only IOC market order.' },
    'price-feeds': { whenToUse: 'To read composite index prices; admins register providers and create feeds; providers push quotes.', sideEffects: 'Registers providers or feeds, or computes a feed value (PriceFeedValueComputed) that bound markets take as an index tick.' },
  },
});

declareAuthenticationProfile({
  id: 'price-provider-key',
  principal: 'a price provider registered by a platform admin',
  credential: 'the push key (hcpk_…) shown once at POST /api/v1/trading/price-feeds/providers, sent as X-Provider-Key to that provider\'s quotes route only; kept as its SHA-256, a sealed secret',
  requestSigning: 'none: the key travels in the X-Provider-Key header over TLS',
});
