/**
 * Price feeds (`/api/v1/trading/price-feeds`, PLATFORM.md section 6): composite feeds and their providers (platform
 * admins), the feeds with their values as of now (any signed-in caller), and the providers' push route (authenticated
 * by the provider's own key, not a session).
 */
import { Capability } from '../../platform/capabilities/capability';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, PlatformAdminOnly, type Principal } from '../../platform/auth/principal';
import { ApiErrors, PROVIDER_KEY_SCHEME } from '../../platform/http/openapi';
import { PageQuery } from '../../platform/http/pagination';
import { Public, SecretResponse } from '../../platform/http/public.decorator';
import {
  CompositePriceFeedReceipt, CreatePriceFeedRequest, FeedParam, PriceFeedPage, PriceFeedView, PriceProviderCreated, ProviderParam, PushQuotesReceipt, PushQuotesRequest, RegisterPriceProviderRequest,
} from './dto/price-feed.dto';
import { CreatePriceFeed, GetPriceFeed, ListPriceFeeds, PushQuotes, RegisterPriceProvider } from './price-feeds';

@ApiTags('trading')
@Controller('api/v1/trading/price-feeds')
export class PriceFeedsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Capability('price-feeds', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post()
  @ApiOperation({ summary: 'Create a composite price feed (platform admins): 1-16 sources, a mode, its bounds.' })
  @ApiErrors(404)
  @ApiCreatedResponse({ type: CompositePriceFeedReceipt })
  createPriceFeed(@Body() body: CreatePriceFeedRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new CreatePriceFeed(principal, body));
  }

  @Capability('price-feeds')
  @Get()
  @ApiOperation({ summary: 'The price feeds, each with its value as of now (LIVE or STALE), the sources used and excluded.' })
  @ApiOkResponse({ type: PriceFeedPage })
  listPriceFeeds(@Query() query: PageQuery): Promise<object> {
    return this.queryBus.execute(new ListPriceFeeds(query));
  }

  @Capability('price-feeds')
  @Get(':feed_id')
  @ApiOperation({ summary: 'One price feed with its value as of now.' })
  @ApiOkResponse({ type: PriceFeedView })
  getPriceFeed(@Param() p: FeedParam): Promise<object> {
    return this.queryBus.execute(new GetPriceFeed(p.feed_id));
  }

  @Capability('price-feeds', { exposure: 'restricted' })
  @PlatformAdminOnly()
  @Post('providers')
  @SecretResponse()
  @ApiOperation({ summary: 'Register a price provider (platform admins): its push key is shown once.' })
  @ApiCreatedResponse({ type: PriceProviderCreated })
  registerPriceProvider(@Body() body: RegisterPriceProviderRequest, @CurrentPrincipal() principal: Principal): Promise<object> {
    return this.commandBus.execute(new RegisterPriceProvider(principal, body.name));
  }

  @Capability('price-feeds', { authentication: 'provider-key: X-Provider-Key (the push key shown once when the provider was registered)' })
  @Post('providers/:provider_uuid/quotes')
  @Public()
  @ApiSecurity(PROVIDER_KEY_SCHEME)
  @HttpCode(200)
  @ApiErrors(401)
  @ApiOperation({ summary: 'A provider pushes quotes (its own key, not a session); each updates every feed that lists its source.' })
  @ApiOkResponse({ type: PushQuotesReceipt })
  pushPriceQuotes(@Param() p: ProviderParam, @Body() body: PushQuotesRequest, @Headers('x-provider-key') key: string | undefined): Promise<object> {
    return this.commandBus.execute(new PushQuotes(p.provider_uuid, key, body));
  }
}
