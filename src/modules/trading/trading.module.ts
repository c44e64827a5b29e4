/** Order-book trading (MTF): markets now; orders, the matching engine and cancellation land next. */
import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { Logger } from 'nestjs-pino';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { MARKET_REGISTRY_STREAM, marketRegistryDecider } from './domain/market';
import { BindMarketPriceFeedHandler, ChangeMarketFlagsHandler, CreateMarket, CreateMarketHandler, DEMO_MARKETS, ListMarketsHandler } from './markets';
import { PriceFeedStalenessSweep } from './price-feed-staleness';
import { MtfController } from './trading.controller';
import { MatchingEngineHost } from './engine-host';
import { CancelOrdersHandler } from './cancels';
import { ClosePositionHandler, GetCanonicalOrderHandler } from './canonical';
import { CanonicalTradingController } from './canonical.controller';
import { TRADING_READ_PROVIDERS } from './reads';
import { MtfReadController, TradingPositionsController } from './trading-read.controller';
import { ListOrdersHandler, PlaceOrderHandler } from './orders';
import { CreatePriceFeedHandler, GetPriceFeedHandler, ListPriceFeedsHandler, PushQuotesHandler, RegisterPriceProviderHandler } from './price-feeds';
import { PriceFeedsController } from './price-feeds.controller';
// The privacy class of every field of this module's events (docs/privacy.md), registered when the module loads.
import './domain/privacy';
// The module's application in the capability registry (docs/capabilities.md), declared when the module loads.
import './capabilities';

@Module({
  controllers: [MtfController, MtfReadController, CanonicalTradingController, TradingPositionsController, PriceFeedsController],
  providers: [
    ...TRADING_READ_PROVIDERS, MatchingEngineHost, CancelOrdersHandler, ClosePositionHandler, GetCanonicalOrderHandler, CreateMarketHandler, ChangeMarketFlagsHandler, ListMarketsHandler, PlaceOrderHandler, ListOrdersHandler,
    RegisterPriceProviderHandler, CreatePriceFeedHandler, PushQuotesHandler, GetPriceFeedHandler, ListPriceFeedsHandler, BindMarketPriceFeedHandler, PriceFeedStalenessSweep,
  ],
})
export class TradingModule implements OnApplicationBootstrap {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly commands: CommandExecutor,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    private readonly logger: Logger,
    private readonly engines: MatchingEngineHost,
  ) {}

  /** On the first start of an empty store, a few demo perpetual markets, so a newcomer sees a working exchange. */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.seedMarkets) return;
    const { version } = await this.commands.load(MARKET_REGISTRY_STREAM, marketRegistryDecider);
    if (version !== null) return;
    for (const market of DEMO_MARKETS) await this.commandBus.execute(new CreateMarket(null, market));
    this.logger.log({ markets: DEMO_MARKETS.map((m) => m.market_symbol) }, 'demo markets seeded');
    if (this.config.matchingEngines) await this.engines.discover();
  }
}
