/** Market commands, queries and the seeds' Market wire record. */
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { nextId } from '../../platform/context/request-context';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { marketWire, type MarketPriceColumns, type MarketRow } from '../../../projections/trading-markets/trading-markets.read-model';
import { parseDecimal } from '../../platform/decimal/fixed18';
import { decimalPlaces, MARKET_REGISTRY_STREAM, marketDecider, marketRegistryDecider, marketStream, type MarketDefinition, type MarketFlags, type MarketState } from './domain/market';
import type { BindMarketPriceFeedRequest, CreateMarketRequest } from './dto/market.dto';
import { DEFAULT_MARK_BASIS_WINDOW_MS, type TriggerSource } from './domain/mark-price';
import { feedStream, priceFeedDecider } from './domain/price-feed';

const NO_PRICES = { price_feed_status: null, index_price: null, index_at: null, mark_price: null } as const;

/**
 * A market as its stream knows it, in the read model's row shape (commands answer from it, not from the lagging read
 * side). The index and mark prices are the engine's, not the market stream's: `prices` as the read model last had them.
 */
export function marketRow(state: MarketState, prices: Pick<MarketPriceColumns, 'price_feed_id' | 'price_feed_status' | 'index_price' | 'index_at' | 'mark_price'> | null = null): MarketRow {
  const d = state.definition!;
  const feed = state.price_feed;
  const known = prices && feed && prices.price_feed_id === feed.feed_id ? prices : NO_PRICES;
  return {
    ...d,
    is_suspended: state.flags.is_suspended ? 1 : 0,
    is_cancel_only: state.flags.is_cancel_only ? 1 : 0,
    is_maker_only: state.flags.is_maker_only ? 1 : 0,
    version: 0,
    updated_at: '',
    price_feed_id: feed?.feed_id ?? null,
    stop_trigger_source: feed?.stop_trigger_source ?? null,
    mark_basis_window_ms: feed?.mark_basis_window_ms ?? null,
    price_feed_status: known.price_feed_status,
    index_price: known.index_price,
    index_at: known.index_at,
    mark_price: known.mark_price,
  };
}

async function marketPrices(db: ReadModelDatabase, market_uuid: string): Promise<MarketPriceColumns | null> {
  const rows: MarketPriceColumns[] = await db.reader.query(
    db.sql('SELECT price_feed_id, stop_trigger_source, mark_basis_window_ms, price_feed_status, index_price, index_at, mark_price FROM mtf_markets WHERE market_uuid = ?'),
    [market_uuid],
  );
  return rows[0] ?? null;
}

/** The API's Market record: the read model's, which the trading-markets topic publishes too. */
export { marketWire };

const requireAdmin = (principal: Principal | null): void => {
  if (principal && principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only a platform admin manages markets.');
};

export class CreateMarket {
  /** `principal` null: the platform itself (demo markets on first start). */
  constructor(readonly principal: Principal | null, readonly request: Omit<CreateMarketRequest, never>) {}
}

@CommandHandler(CreateMarket)
export class CreateMarketHandler implements ICommandHandler<CreateMarket, MarketRow> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ principal, request: r }: CreateMarket): Promise<MarketRow> {
    requireAdmin(principal);
    if (Number(r.minimum_execution_quantity) > Number(r.mininum_quantity)) {
      throw new ValidationFailed('The minimum execution quantity cannot exceed the minimum quantity.', [{ field: 'minimum_execution_quantity', issue: 'greater than mininum_quantity' }]);
    }
    if (r.maximum_quantity !== undefined && parseDecimal(r.maximum_quantity) < parseDecimal(r.mininum_quantity)) {
      throw new ValidationFailed('The maximum quantity cannot be below the minimum quantity.', [{ field: 'maximum_quantity', issue: 'less than mininum_quantity' }]);
    }
    const market_uuid = nextId();
    const listed = await this.commands.execute(MARKET_REGISTRY_STREAM, marketRegistryDecider, { market_uuid, market_symbol: r.market_symbol });
    const market_id = listed.state.count;
    const definition: MarketDefinition = {
      market_uuid,
      market_id,
      market_symbol: r.market_symbol,
      instrument_isin: r.instrument_isin,
      market_type: 'PERPETUAL',
      contract_size: r.contract_size,
      mininum_quantity: r.mininum_quantity,
      minimum_execution_quantity: r.minimum_execution_quantity,
      operating_mic: r.operating_mic,
      segment_mic: r.segment_mic,
      price_currency: r.price_currency,
      quote_currency: r.quote_currency,
      base_currency: r.base_currency,
      tick_size: r.tick_size,
      maximum_quantity: r.maximum_quantity ?? null,
    };
    const created = await this.commands.execute(marketStream(market_uuid), marketDecider, { kind: 'CreateMarket', definition });
    return marketRow(created.state);
  }
}

export class ChangeMarketFlags {
  constructor(readonly principal: Principal, readonly market_uuid: string, readonly flags: Partial<MarketFlags>) {}
}

@CommandHandler(ChangeMarketFlags)
export class ChangeMarketFlagsHandler implements ICommandHandler<ChangeMarketFlags, MarketRow> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal, market_uuid, flags }: ChangeMarketFlags): Promise<MarketRow> {
    requireAdmin(principal);
    const outcome = await this.commands.execute(marketStream(market_uuid), marketDecider, { kind: 'ChangeMarketFlags', flags });
    return marketRow(outcome.state, await marketPrices(this.db, market_uuid));
  }
}

export class BindMarketPriceFeed {
  constructor(readonly principal: Principal, readonly market_uuid: string, readonly request: BindMarketPriceFeedRequest) {}
}

/** Binds a market to a composite feed (or rebinds it, or changes its stop trigger source or basis window). */
@CommandHandler(BindMarketPriceFeed)
export class BindMarketPriceFeedHandler implements ICommandHandler<BindMarketPriceFeed, MarketRow> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase) {}

  async execute({ principal, market_uuid, request }: BindMarketPriceFeed): Promise<MarketRow> {
    requireAdmin(principal);
    const feed = await this.commands.load(feedStream(request.feed_id), priceFeedDecider);
    if (!feed.state.feed) throw new PlatformError('NOT_FOUND', 'No such price feed.', { details: [{ field: 'feed_id', issue: 'no such price feed' }] });
    const binding = {
      feed_id: request.feed_id,
      stop_trigger_source: (request.stop_trigger_source as TriggerSource | undefined) ?? 'LAST_PRICE',
      mark_basis_window_ms: request.mark_basis_window_ms ?? DEFAULT_MARK_BASIS_WINDOW_MS,
    };
    const outcome = await this.commands.execute(marketStream(market_uuid), marketDecider, { kind: 'BindPriceFeed', binding });
    return marketRow(outcome.state, await marketPrices(this.db, market_uuid));
  }
}

export class ListMarkets {
  constructor(readonly market_uuid?: string) {}
}

@QueryHandler(ListMarkets)
export class ListMarketsHandler implements IQueryHandler<ListMarkets, Record<string, Record<string, unknown>>> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ market_uuid }: ListMarkets): Promise<Record<string, Record<string, unknown>>> {
    const rows: MarketRow[] = market_uuid
      ? await this.db.reader.query(this.db.sql('SELECT * FROM mtf_markets WHERE market_uuid = ?'), [market_uuid])
      : await this.db.reader.query('SELECT * FROM mtf_markets ORDER BY market_id');
    if (market_uuid && rows.length === 0) throw new PlatformError('NOT_FOUND', 'No such market.');
    return Object.fromEntries(rows.map((r) => [r.market_symbol, marketWire(r)]));
  }
}

/** What a newcomer's exchange starts with (SEED_MARKETS=false switches it off). */
export const DEMO_MARKETS: CreateMarketRequest[] = [
  { market_symbol: 'BTC-PERP', instrument_isin: 'XF0000BTC001', contract_size: '0.001', mininum_quantity: '0.001', minimum_execution_quantity: '0.001', tick_size: '0.5', maximum_quantity: '1000', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'BTC' },
  { market_symbol: 'ETH-PERP', instrument_isin: 'XF0000ETH002', contract_size: '0.01', mininum_quantity: '0.01', minimum_execution_quantity: '0.01', tick_size: '0.05', maximum_quantity: '10000', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'ETH' },
  { market_symbol: 'SOL-PERP', instrument_isin: 'XF0000SOL003', contract_size: '0.1', mininum_quantity: '0.1', minimum_execution_quantity: '0.1', tick_size: '0.001', maximum_quantity: '100000', operating_mic: 'XMTF', segment_mic: 'XMTS', price_currency: 'USD', quote_currency: 'USD', base_currency: 'SOL' },
];
