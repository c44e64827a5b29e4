/**
 * What the trading routes answer (response DTOs): the OpenAPI schemas of the markets, placement, read-back and cancel
 * answers, named as the seeds name the records where they do (Market); every e2e answer is checked against them.
 */
import { ApiProperty, ApiPropertyOptional, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { HEX32_ID } from '../../../platform/http/api-properties';
import { CanonicalOrder } from './canonical.dto';

const DECIMAL = { type: String, pattern: '^-?[0-9]+(\\.[0-9]+)?$', example: '64000.500000000000000000' } as const;

/** The seeds' Market (one entry per market symbol), with the trading rules an order must meet. */
@ApiSchema({ name: 'Market' })
export class MarketResponse {
  @ApiProperty() contract_size!: number;
  @ApiProperty({ type: String, nullable: true, description: 'null for perpetual markets' }) expiration_date!: string | null;
  @ApiPropertyOptional({ ...DECIMAL, nullable: true, description: 'Where a price feed is bound: its value, the index price (null while STALE).' }) index_price?: string | null;
  @ApiProperty() instrument_isin!: string;
  @ApiProperty() is_cancel_only!: boolean;
  @ApiProperty() is_maker_only!: boolean;
  @ApiProperty() is_suspended!: boolean;
  @ApiProperty({ description: 'Quantities are multiples of it.' }) lot_size!: number;
  @ApiPropertyOptional({ type: 'integer', description: "Where a price feed is bound: the window of the mark price's basis average (ms)." }) mark_basis_window_ms?: number;
  @ApiPropertyOptional({ ...DECIMAL, nullable: true, description: 'Where a price feed is bound: median(index, index + basis average, median(best bid, best ask, last)); null while STALE.' }) mark_price?: string | null;
  @ApiProperty({ type: 'integer' }) market_id!: number;
  @ApiProperty({ description: 'Equals the map key.' }) market_symbol!: string;
  @ApiProperty({ example: 'PERPETUAL' }) market_type!: string;
  @ApiProperty(HEX32_ID) market_uuid!: string;
  @ApiProperty({ type: Number, nullable: true, description: 'Largest quantity of one order; null: no maximum.' }) maximum_quantity!: number | null;
  @ApiProperty() minimum_execution_quantity!: number;
  @ApiProperty({ description: 'Spelled exactly so (seeds).' }) mininum_quantity!: number;
  @ApiProperty() operating_mic!: string;
  @ApiProperty() price_currency!: string;
  @ApiPropertyOptional({ pattern: '^[0-9a-f]{32}$', description: 'The composite price feed bound to the market (absent: none; stops trigger on the last price).' }) price_feed_id?: string;
  @ApiPropertyOptional({ enum: ['LIVE', 'STALE'], description: 'Where a price feed is bound. STALE (also before its first value): no index and no mark; mark- and index-triggered stops hold.' }) price_feed_status?: string;
  @ApiProperty({ type: 'integer', description: 'Decimal places of a price.' }) price_precision!: number;
  @ApiProperty({ type: 'integer', description: 'Decimal places of a quantity.' }) quantity_precision!: number;
  @ApiProperty() quote_currency!: string;
  @ApiProperty() segment_mic!: string;
  @ApiPropertyOptional({ enum: ['LAST_PRICE', 'MARK_PRICE', 'INDEX_PRICE'], description: 'Where a price feed is bound: what stop orders trigger on unless an order names its own.' }) stop_trigger_source?: string;
  @ApiProperty({ description: 'Prices are multiples of it.' }) tick_size!: number;
}

/** `{ response: { <market_symbol>: Market }, success }` (seeds 000, list markets). */
@ApiSchema({ name: 'MarketList' })
export class MarketListResponse {
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(MarketResponse) }, description: 'Keyed by market symbol.' })
  response!: Record<string, MarketResponse>;

  @ApiProperty() success!: boolean;
}

/** An order as placed through the canonical route: the CanonicalOrder fields with its id, status and engine id. */
@ApiSchema({ name: 'PlacedCanonicalOrder' })
export class PlacedCanonicalOrderResponse {
  @ApiProperty(HEX32_ID) order_uuid!: string;
  @ApiProperty({ enum: ['NEW', 'OPEN', 'FILLED', 'CANCELLED'] }) status!: string;
  @ApiProperty({ enum: ['MTF'] }) venue!: string;
  @ApiProperty({ example: 'BTC-PERP' }) market!: string;
  @ApiProperty({ enum: ['BUY', 'SELL'] }) side!: string;
  @ApiProperty({ example: 'LIMIT' }) order_type!: string;
  @ApiProperty({ example: 'GTC' }) time_in_force!: string;
  @ApiProperty() external_reference!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) leverage!: number;
  @ApiProperty() reduce_only!: boolean;
  @ApiProperty({ type: 'array', items: { $ref: getSchemaPath(CanonicalOrder) }, description: 'Canonical orders (seeds 001, CanonicalOrder.combos); always empty: combos are not supported.', maxItems: 0 }) combos!: CanonicalOrder[];
  @ApiProperty({ ...DECIMAL, nullable: true }) limit_price!: string | null;
  @ApiProperty({ ...DECIMAL, nullable: true }) quantity!: string | null;
  @ApiProperty({ ...DECIMAL, nullable: true }) trigger_price!: string | null;
  @ApiProperty({ type: String, nullable: true, enum: ['LAST_PRICE', 'MARK_PRICE', 'INDEX_PRICE', null], description: "The order's own trigger source; null: the market's stop_trigger_source." }) trigger_source!: string | null;
  @ApiProperty({ type: String, nullable: true }) client_reference!: string | null;
  @ApiProperty({ type: String, nullable: true }) reporting_identifier!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null until the engine accepted the order.' }) engine_id!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

/** One fill of an order, from the order's side. */
@ApiSchema({ name: 'OrderFill' })
export class OrderFillResponse {
  @ApiProperty(HEX32_ID) trade_uuid!: string;
  @ApiProperty() market!: string;
  @ApiProperty(DECIMAL) price!: string;
  @ApiProperty(DECIMAL) size!: string;
  @ApiProperty({ enum: ['BUY', 'SELL'] }) taker_side!: string;
  @ApiProperty({ enum: ['BUY', 'SELL'] }) side!: string;
  @ApiProperty({ enum: ['MAKER', 'TAKER'] }) role!: string;
  @ApiProperty(HEX32_ID) order_uuid!: string;
  @ApiProperty({ format: 'date-time' }) executed_at!: string;
}

/** An order read back: as placed, with its status, fills and version (the order stream's revision). */
@ApiSchema({ name: 'CanonicalOrderState' })
export class CanonicalOrderStateResponse extends PlacedCanonicalOrderResponse {
  @ApiProperty(DECIMAL) filled!: string;
  @ApiProperty(DECIMAL) remaining!: string;
  @ApiProperty({ ...DECIMAL, nullable: true, description: 'Volume-weighted price of the fills; null before the first.' }) average_price!: string | null;
  @ApiProperty() in_book!: boolean;
  @ApiProperty() cancel_requested!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) triggered_at!: string | null;
  @ApiProperty({ type: [OrderFillResponse] }) fills!: OrderFillResponse[];
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) version!: number;
}

/** The answer to cancelling one order. */
@ApiSchema({ name: 'OrderCancellationReceipt' })
export class OrderCancellationReceiptResponse {
  @ApiProperty(HEX32_ID) order_uuid!: string;
  @ApiProperty({ enum: ['MTF'] }) venue!: string;
  @ApiProperty({ description: 'The order status after the request.' }) status!: string;
  @ApiProperty({ description: 'The engine was asked to cancel (or already had).' }) cancellation_attempted!: boolean;
  @ApiProperty({ description: 'The order is cancelled now.' }) cancelled!: boolean;
  @ApiProperty({ format: 'date-time' }) requested_at!: string;
  @ApiProperty() message!: string;
}

/** The seeds' CancelAllOrdersReceipt. */
@ApiSchema({ name: 'CancelAllOrdersReceipt' })
export class CancelAllOrdersReceiptResponse {
  @ApiProperty({ enum: ['COMPLETED', 'PENDING'] }) status!: string;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) requested_count!: number;
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 }) cancelled_count!: number;
  @ApiProperty({ type: [String] }) order_ids!: string[];
}


const DECIMAL18 = { type: String, pattern: '^-?[0-9]+\\.[0-9]{18}$', example: '64000.500000000000000000' } as const;

/** The seeds' Order (element of the orders list), field for field as the seeds observe it. */
@ApiSchema({ name: 'Order' })
export class OrderResponse {
  @ApiProperty() base_currency!: string;
  @ApiProperty({ type: 'integer', enum: [0, 1], description: 'Flag: post-only (book or cancel).' }) book_or_cancel!: number;
  @ApiProperty({ type: String, nullable: true, description: '`<number>_<CamelCase description>`; null when none.', example: '1_UserRequested' }) cancel_reason!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Always null (its other type is not shown in the seeds).' }) canceled!: null;
  @ApiProperty({ description: 'HTTP-date, e.g. Wed, 25 Nov 2026 14:23:06 GMT.' }) created!: string;
  @ApiProperty({ enum: ['BUY', 'SELL'] }) direction!: string;
  @ApiProperty({ type: String, nullable: true, description: 'null while NEW; `<prefix>-<market_id>-<digit>-<sequence>` after.' }) engine_id!: string | null;
  @ApiProperty({ description: 'Decimal string; exponent notation for zero.', example: '0E-18' }) estim_market_value!: string;
  @ApiProperty() external_ref!: string;
  @ApiProperty({ type: 'integer', enum: [0, 1] }) fill_or_kill!: number;
  @ApiProperty({ type: 'integer', enum: [0, 1] }) immediate_or_cancel!: number;
  @ApiProperty({ ...DECIMAL18, nullable: true, description: 'null for market orders.' }) limit_price!: string | null;
  @ApiProperty(HEX32_ID) liquidity_pool!: string;
  @ApiProperty({ example: 'PERPETUAL' }) market!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Always null (its other type is not shown in the seeds).' }) on_stop_loss!: null;
  @ApiProperty({ description: 'Hyphenated UUID.', format: 'uuid' }) order_group!: string;
  @ApiProperty({ type: String, nullable: true, description: '`<number>_<number>`; null while NEW.' }) order_sequence!: string | null;
  @ApiProperty(DECIMAL18) order_size!: string;
  @ApiProperty(HEX32_ID) order_uuid!: string;
  @ApiProperty({ description: 'The numeric market_id, as a string.' }) quote_currency!: string;
  @ApiProperty({ enum: ['NEW', 'OPEN', 'CANCELLED', 'FILLED'] }) status!: string;
  @ApiProperty({ type: [String], description: '32-hex trade ids; empty when none.' }) trades!: string[];
  @ApiProperty({ description: 'HTTP-date.' }) updated!: string;
  @ApiProperty(HEX32_ID) vault_uuid!: string;
}

/** `{ response: [Order, ...], success }` (seeds 000, list orders); the next page's cursor is in X-Next-Cursor. */
@ApiSchema({ name: 'OrderList' })
export class OrderListResponse {
  @ApiProperty({ type: [OrderResponse] }) response!: OrderResponse[];
  @ApiProperty() success!: boolean;
}

/** The answer to placing an order on the seeds' MTF route: the Order as recorded. */
@ApiSchema({ name: 'PlacedOrder' })
export class PlacedOrderResponse {
  @ApiProperty({ type: OrderResponse }) response!: OrderResponse;
  @ApiProperty() success!: boolean;
}

/** payload.record of a Cancellation result entry. */
@ApiSchema({ name: 'CancellationRecord' })
export class CancellationRecordResponse {
  @ApiProperty() cancellation_attempted!: boolean;
  @ApiProperty({ type: 'integer' }) market_id!: number;
  @ApiProperty({ type: 'integer' }) matching_engine_client_id!: number;
  @ApiProperty(HEX32_ID) order_uuid!: string;
  @ApiProperty({ description: 'The engine id; empty before the engine accepted the order.' }) pmx_id!: string;
}

@ApiSchema({ name: 'CancellationPayload' })
export class CancellationPayloadResponse {
  @ApiProperty() environment_tag!: string;
  @ApiProperty({ example: 'mtf.order' }) model!: string;
  @ApiProperty({ enum: ['write', 'create'] }) operation!: string;
  @ApiProperty({ type: CancellationRecordResponse }) record!: CancellationRecordResponse;
}

/** `update` of variant A. */
@ApiSchema({ name: 'CancellationUpdate' })
export class CancellationUpdateResponse {
  @ApiProperty({ enum: [true] }) cancellation_attempted!: boolean;
  @ApiProperty({ type: 'integer' }) market_id!: number;
  @ApiProperty({ type: 'integer' }) matching_engine_client_id!: number;
  @ApiProperty() pmx_id!: string;
}

/**
 * The seeds' Cancellation result entry. Variant A (an order the engine held) carries `update`; variant B (a new
 * cancel instance of an order still NEW) carries `event_manager_id` and `event_manager_timestamp`; an entry for an
 * unknown, foreign or final order carries neither and has `success: false`.
 */
@ApiSchema({ name: 'CancellationResultEntry' })
export class CancellationResultEntryResponse {
  @ApiProperty({ description: 'Milliseconds.' }) exec_time_ms!: number;
  @ApiProperty() message!: string;
  @ApiProperty({ type: CancellationPayloadResponse }) payload!: CancellationPayloadResponse;
  @ApiProperty() success!: boolean;
  @ApiPropertyOptional({ type: CancellationUpdateResponse, description: 'Variant A only.' }) update?: CancellationUpdateResponse;
  @ApiPropertyOptional({ format: 'uuid', description: 'Variant B only: hyphenated UUID.' }) event_manager_id?: string;
  @ApiPropertyOptional({ description: 'Variant B only: `YYYY-MM-DD HH:MM:SS.ffffff`.', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{6}$' }) event_manager_timestamp?: string;
}

/** `{ response: { <order_id>: Cancellation result entry }, success }`: success is false when any entry failed. */
@ApiSchema({ name: 'CancellationResult' })
export class CancellationResultResponse {
  @ApiProperty({ type: 'object', additionalProperties: { $ref: getSchemaPath(CancellationResultEntryResponse) }, description: 'Keyed by order id.' })
  response!: Record<string, CancellationResultEntryResponse>;
  @ApiProperty() success!: boolean;
}

/** An order with what happened to it: the seeds' Order record plus fills, book state and trades (order_meta). */
@ApiSchema({ name: 'OrderMeta' })
export class OrderMetaResponse {
  @ApiProperty({ type: OrderResponse }) order!: OrderResponse;
  @ApiProperty() market_symbol!: string;
  @ApiProperty() order_type!: string;
  @ApiProperty() time_in_force!: string;
  @ApiProperty() reduce_only!: boolean;
  @ApiProperty({ ...DECIMAL, nullable: true }) trigger_price!: string | null;
  @ApiProperty({ description: 'The route the order came in through.' }) channel!: string;
  @ApiProperty(DECIMAL) filled!: string;
  @ApiProperty(DECIMAL) remaining!: string;
  @ApiProperty({ ...DECIMAL, nullable: true, description: 'Volume-weighted price of the fills; null before the first.' }) average_price!: string | null;
  @ApiProperty() in_book!: boolean;
  @ApiProperty({ ...DECIMAL, nullable: true }) book_price!: string | null;
  @ApiProperty() cancel_requested!: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) triggered_at!: string | null;
  @ApiProperty({ type: [OrderFillResponse] }) trades!: OrderFillResponse[];
}

@ApiSchema({ name: 'OrderMetaResult' })
export class OrderMetaResultResponse {
  @ApiProperty({ type: OrderMetaResponse }) response!: OrderMetaResponse;
  @ApiProperty() success!: boolean;
}

@ApiSchema({ name: 'TradeMetaResult' })
export class TradeMetaResultResponse {
  @ApiProperty({ type: OrderFillResponse, description: 'The trade from your side.' }) response!: OrderFillResponse;
  @ApiProperty() success!: boolean;
}

@ApiSchema({ name: 'DepthLevel' })
export class DepthLevelResponse {
  @ApiProperty(DECIMAL) price!: string;
  @ApiProperty(DECIMAL) size!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) orders!: number;
}

@ApiSchema({ name: 'OrderBookDepth' })
export class OrderBookDepthResponse {
  @ApiProperty() market!: string;
  @ApiProperty({ type: [DepthLevelResponse], description: 'Best (highest) first.' }) bids!: DepthLevelResponse[];
  @ApiProperty({ type: [DepthLevelResponse], description: 'Best (lowest) first.' }) asks!: DepthLevelResponse[];
  @ApiPropertyOptional({ ...DECIMAL, nullable: true, description: 'Present where a price feed is bound: its index price (null while STALE).' }) index_price?: string | null;
  @ApiPropertyOptional({ ...DECIMAL, nullable: true, description: 'Present where a price feed is bound: the mark price (null while STALE).' }) mark_price?: string | null;
  @ApiPropertyOptional({ enum: ['LIVE', 'STALE'], description: 'Present where a price feed is bound: its status.' }) price_feed_status?: string;
}

@ApiSchema({ name: 'OrderBookResult' })
export class OrderBookResultResponse {
  @ApiProperty({ type: OrderBookDepthResponse }) response!: OrderBookDepthResponse;
  @ApiProperty() success!: boolean;
}

/** One minute of trades. */
@ApiSchema({ name: 'Candle' })
export class CandleResponse {
  @ApiProperty({ format: 'date-time', description: 'Start of the minute (UTC).' }) start!: string;
  @ApiProperty(DECIMAL) open!: string;
  @ApiProperty(DECIMAL) high!: string;
  @ApiProperty(DECIMAL) low!: string;
  @ApiProperty(DECIMAL) close!: string;
  @ApiProperty({ ...DECIMAL, description: 'Sum of trade sizes.' }) volume!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) trades!: number;
}

@ApiSchema({ name: 'MarketHistoryResult' })
export class MarketHistoryResultResponse {
  @ApiProperty({ type: [CandleResponse], description: 'Oldest first; minutes with trades only.' }) response!: CandleResponse[];
  @ApiProperty() success!: boolean;
}

/** A net position in one market (flat ones too: they carry realized PnL). */
@ApiSchema({ name: 'Position' })
export class PositionResponse {
  @ApiProperty() market!: string;
  @ApiProperty(HEX32_ID) market_uuid!: string;
  @ApiProperty({ enum: ['LONG', 'SHORT', 'FLAT'] }) side!: string;
  @ApiProperty({ ...DECIMAL, description: 'Absolute size.' }) quantity!: string;
  @ApiProperty({ ...DECIMAL, description: '> 0 long, < 0 short.' }) signed_quantity!: string;
  @ApiProperty({ ...DECIMAL, nullable: true, description: 'Average entry of the open quantity; null when flat.' }) entry_price!: string | null;
  @ApiProperty(DECIMAL) realized_pnl!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

@ApiSchema({ name: 'PositionList' })
export class PositionListResponse {
  @ApiProperty({ type: [PositionResponse] }) items!: PositionResponse[];
}
