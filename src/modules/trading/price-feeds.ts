/**
 * Price feeds (docs/trading.md, "Price feeds"): providers (platform admins register them; each gets a push key shown
 * once), composite feeds (platform admins), quotes pushed by providers and applied to every feed listing their
 * source, and the reads. A pull adapter implements PriceQuoteSource and hands what it polls to ApplyQuotes, exactly as
 * the push route does.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, QueryHandler, type ICommandHandler, type IQueryHandler } from '@nestjs/cqrs';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../platform/auth/principal';
import { CLOCK, type Clock } from '../../platform/clock';
import { CommandExecutor } from '../../platform/command/command-executor';
import { sha256Hex } from '../../platform/commitments/commitment';
import { nextId } from '../../platform/context/request-context';
import { formatPlain, parseDecimal } from '../../platform/decimal/fixed18';
import { PlatformError, ValidationFailed } from '../../platform/errors';
import type { PageQuery } from '../../platform/http/pagination';
import { readRecord, recordPage } from '../../platform/read-model/json-records';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { FEEDS, PROVIDERS, type FeedRow } from '../../../projections/trading-price-feeds/trading-price-feeds.read-model';
import {
  computeComposite, feedStream, MAX_FUTURE_SKEW_MS, priceFeedDecider, PriceFeedNotFound, priceProviderDecider, providerStream, sourceKey, type FeedDefinition, type FeedMode, type Quote,
} from './domain/price-feed';
import type { CompositePriceFeedReceipt, CreatePriceFeedRequest, PriceFeedView, PushQuotesReceipt, PushQuotesRequest } from './dto/price-feed.dto';

/** Where a pull adapter gets quotes from (none is connected here; a deployment adds one beside the push route). */
export interface PriceQuoteSource {
  readonly provider_uuid: string;
  poll(): Promise<Quote[]>;
}

function requirePlatformAdmin(principal: Principal): void {
  if (principal.platform_role !== 'ADMIN') throw new PlatformError('FORBIDDEN', 'Only platform admins manage price feeds.');
}

export class RegisterPriceProvider {
  constructor(readonly principal: Principal, readonly name: string) {}
}

@CommandHandler(RegisterPriceProvider)
export class RegisterPriceProviderHandler implements ICommandHandler<RegisterPriceProvider, { provider_uuid: string; name: string; push_key: string }> {
  constructor(private readonly commands: CommandExecutor) {}

  async execute({ principal, name }: RegisterPriceProvider): Promise<{ provider_uuid: string; name: string; push_key: string }> {
    requirePlatformAdmin(principal);
    const provider_uuid = nextId();
    const push_key = `hcpk_${randomBytes(32).toString('base64url')}`;
    await this.commands.execute(providerStream(provider_uuid), priceProviderDecider, { kind: 'RegisterProvider', provider_uuid, name, key_hash: sha256Hex(push_key), by_profile_uuid: principal.profile_uuid }, { newStream: true });
    return { provider_uuid, name, push_key };
  }
}

export class CreatePriceFeed {
  constructor(readonly principal: Principal, readonly body: CreatePriceFeedRequest) {}
}

@CommandHandler(CreatePriceFeed)
export class CreatePriceFeedHandler implements ICommandHandler<CreatePriceFeed, CompositePriceFeedReceipt> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: CreatePriceFeed): Promise<CompositePriceFeedReceipt> {
    requirePlatformAdmin(principal);
    const seen = new Set<string>();
    for (const [i, s] of body.sources.entries()) {
      if (seen.has(sourceKey(s))) throw new ValidationFailed('A source appears twice.', [{ field: `sources[${i}]`, issue: 'repeated provider and symbol' }]);
      seen.add(sourceKey(s));
      if (!(await readRecord(this.db.reader.manager, PROVIDERS, s.provider_uuid))) throw new PlatformError('NOT_FOUND', `No price provider ${s.provider_uuid}.`, { details: [{ field: `sources[${i}].provider_uuid`, issue: 'no such provider' }] });
    }
    const min_sources = body.min_sources ?? 1;
    if (min_sources > body.sources.length) throw new ValidationFailed('More live sources required than the feed has.', [{ field: 'min_sources', issue: `at most ${body.sources.length}` }]);
    const max_deviation = body.max_deviation ?? '0.05';
    if (parseDecimal(max_deviation) < parseDecimal('0.0001') || parseDecimal(max_deviation) > parseDecimal('0.5')) throw new ValidationFailed('Deviation out of range.', [{ field: 'max_deviation', issue: 'from 0.0001 to 0.5' }]);
    const feed: FeedDefinition = {
      feed_id: nextId(), name: body.name, instrument: body.instrument, mode: (body.mode as FeedMode | undefined) ?? 'WEIGHTED_MEDIAN',
      // Weights are JSON numbers on the wire, decimal strings in events: the audit chain stays reproducible.
      sources: body.sources.map((s) => ({ provider_uuid: s.provider_uuid, provider_symbol: s.provider_symbol, weight: formatPlain(parseDecimal(String(s.weight ?? 1))) })),
      min_sources, max_staleness_ms: body.max_staleness_ms ?? 10_000, max_deviation: formatPlain(parseDecimal(max_deviation)), created_at: this.clock().toISOString(),
    };
    await this.commands.execute(feedStream(feed.feed_id), priceFeedDecider, { kind: 'CreateFeed', feed, by_profile_uuid: principal.profile_uuid }, { newStream: true });
    return { feed_id: feed.feed_id, name: feed.name, instrument: feed.instrument, mode: feed.mode, source_count: feed.sources.length };
  }
}

export class PushQuotes {
  constructor(readonly provider_uuid: string, readonly key: string | undefined, readonly body: PushQuotesRequest) {}
}

@CommandHandler(PushQuotes)
export class PushQuotesHandler implements ICommandHandler<PushQuotes, PushQuotesReceipt> {
  constructor(private readonly commands: CommandExecutor, private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ provider_uuid, key, body }: PushQuotes): Promise<PushQuotesReceipt> {
    // The provider's own key (X-Provider-Key), checked against the hash on its stream; unknown and wrong look the same.
    const { state } = await this.commands.load(providerStream(provider_uuid), priceProviderDecider);
    const expected = state.provider ? Buffer.from(state.provider.key_hash, 'hex') : null;
    const given = Buffer.from(sha256Hex(key ?? ''), 'hex');
    if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) throw new PlatformError('UNAUTHENTICATED', 'A valid X-Provider-Key is required.');
    const now = this.clock().getTime();
    const refused: Array<{ index: number; reason: string }> = [];
    let accepted = 0;
    let values_computed = 0;
    for (const [index, q] of body.quotes.entries()) {
      if (Date.parse(q.published_at) > now + MAX_FUTURE_SKEW_MS) {
        refused.push({ index, reason: 'FUTURE' });
        continue;
      }
      accepted++;
      const quote: Quote = { provider_uuid, provider_symbol: q.provider_symbol, price: formatPlain(parseDecimal(q.price)), published_at: new Date(q.published_at).toISOString() };
      const feeds: Array<{ feed_id: string }> = await this.db.reader.query(this.db.sql('SELECT feed_id FROM mtf_price_feed_sources WHERE provider_uuid = ? AND provider_symbol = ?'), [provider_uuid, q.provider_symbol]);
      for (const { feed_id } of feeds) values_computed += (await this.commands.execute(feedStream(feed_id), priceFeedDecider, { kind: 'ApplyQuote', quote })).events.length;
    }
    return { accepted, values_computed, refused };
  }
}

/** The feed as of `now`: the latest quotes judged at this instant (a feed whose providers went quiet shows STALE). */
function feedView(row: FeedRow, now: Date): PriceFeedView {
  const feed = row.state.feed!;
  const composite = computeComposite(feed, row.state.latest, now);
  return {
    feed_id: feed.feed_id, name: feed.name, instrument: feed.instrument, mode: feed.mode, sources: feed.sources, min_sources: feed.min_sources, max_staleness_ms: feed.max_staleness_ms,
    max_deviation: feed.max_deviation, ...composite, last_computed_at: row.state.last?.at ?? null, created_at: feed.created_at,
  };
}

export class GetPriceFeed {
  constructor(readonly feed_id: string) {}
}

@QueryHandler(GetPriceFeed)
export class GetPriceFeedHandler implements IQueryHandler<GetPriceFeed> {
  constructor(private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ feed_id }: GetPriceFeed): Promise<PriceFeedView> {
    const row = await readRecord(this.db.reader.manager, FEEDS, feed_id);
    if (!row) throw new PriceFeedNotFound();
    return feedView(row, this.clock());
  }
}

export class ListPriceFeeds {
  constructor(readonly query: PageQuery) {}
}

@QueryHandler(ListPriceFeeds)
export class ListPriceFeedsHandler implements IQueryHandler<ListPriceFeeds> {
  constructor(private readonly db: ReadModelDatabase, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ query }: ListPriceFeeds): Promise<object> {
    const { records, ...page } = await recordPage<FeedRow>(this.db, FEEDS.table, [], query, { default: 50, max: 200 }, 'price-feeds');
    const now = this.clock();
    return { items: records.map((r) => feedView(r, now)), ...page };
  }
}
