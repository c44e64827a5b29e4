-- The three questions of docs/analytics.md, over the tables docs/analytics/analyze.mjs loads (one per topic):
--
--   trading_trades     <prefix>.projections.trading-trades     newest value per trade_uuid
--   trading_markets    <prefix>.projections.trading-markets    newest value per market_uuid (each market's symbol)
--   billing_accounts   <prefix>.projections.billing-accounts   newest value per account
--   billing_usage      <prefix>.projections.billing-usage      newest value per account, period and source type
--   commerce_invoices  <prefix>.projections.commerce-invoices  newest value per invoice_uuid
--   commerce_payments  <prefix>.projections.commerce-payments  newest value per payment_uuid
--
-- Each row has its value's top-level fields as columns (nested objects and arrays as JSON; decimals DECIMAL(38,18),
-- instants TIMESTAMPTZ) and the Kafka metadata: _key, _position, _event_id, _snapshot, _partition, _offset, _headers.
-- Instants are UTC: run `SET TimeZone = 'UTC';` first in the DuckDB CLI (the script does).
--
-- In the DuckDB CLI, on a file the script kept (`node docs/analytics/analyze.mjs --db analytics.duckdb`):
--   duckdb analytics.duckdb
--   SET TimeZone = 'UTC'; SET VARIABLE month = '2026-11';
--   .read docs/analytics/queries.sql
-- Each query starts at a `-- name:` line (the script runs them by that name, in this order).

-- name: traded_volume_per_market_hour
-- a. Traded volume per market and UTC hour (the hour a trade executed in: executed_at, the TradeExecuted event's
--    time). base_volume = sum(size) in the market's base unit (the candles' `volume`); notional = sum(price * size)
--    in the quote currency; trades = how many trades. Each trade once (the topic is keyed by trade_uuid).
--    A trade carries its market's id (market_uuid); the symbol is the market_symbol of its market's row.
--    Price and size are multiplied at 9 decimals each (DECIMAL(38,18) * DECIMAL(38,18) would have 36 and no room
--    for the integer part): exact for every price and size with at most 9 decimals (the script warns otherwise).
SELECT
  m.market_symbol AS market,
  t.market_uuid,
  date_trunc('hour', t.executed_at) AS hour,
  count(*) AS trades,
  sum(t.size) AS base_volume,
  sum(CAST(t.price AS DECIMAL(38,9)) * CAST(t.size AS DECIMAL(38,9))) AS notional
FROM trading_trades t
LEFT JOIN trading_markets m ON m.market_uuid = t.market_uuid
GROUP BY ALL
ORDER BY hour, market, market_uuid;

-- name: credits_per_tenant_product
-- b. Credits consumed in a month (variable `month`, 'YYYY-MM'; default the current UTC month) per billing account
--    and product, from the billing-usage topic (one row per account, period and source type; GET /billing/usage's
--    `by_source`). "Product" is the billable platform action the credits paid for, the rate card's line: the
--    source_type of the rated usage (OrderAccepted: an order the engine accepted; AiWalletIntentReserved: a live
--    AI-wallet intent; AgenticMemoryRequestAccepted: an agentic-memory request). The billing catalogue's own
--    "products" (TOPUP and PLAN codes) grant credits; they consume none. Consumed = the rated usage's credits
--    (covered by lots or owed as uncovered); not consumption: credits expiring at a period close, DEBIT adjustments.
--    Billing periods are UTC calendar months: the month is the period that starts on its first day.
--    Per tenant: a tenant's account is shared (profile_uuid empty); in the global tenant (000…0) each person has an
--    account of their own (profile_uuid = the person, from the billing-accounts topic). Sum the rows of a
--    tenant_uuid for one figure per tenant.
--    account_period_usage_credits: the account record's rated_usage_credits (billing-accounts) when its current
--    period is this month; the account's rows add up to it.
WITH month AS (
  SELECT CAST(coalesce(getvariable('month'), strftime(now(), '%Y-%m')) || '-01 00:00:00+00' AS TIMESTAMPTZ) AS starts_at
)
SELECT
  u.tenant_uuid,
  a.profile_uuid,
  u.account_key,
  u.source_type AS product,
  u.usage_events,
  u.credits,
  CASE WHEN CAST(a.period ->> 'started_at' AS TIMESTAMPTZ) = m.starts_at THEN a.rated_usage_credits END AS account_period_usage_credits
FROM billing_usage u
CROSS JOIN month m
LEFT JOIN billing_accounts a ON a.account_key = u.account_key
WHERE u.period_started_at = m.starts_at
ORDER BY tenant_uuid, profile_uuid NULLS FIRST, account_key, product;

-- name: invoices_late_or_partial_by_merchant
-- c. Per merchant and asset, the invoices paid late or partially (one invoice may be both):
--    late     = the invoice's `exceptions` holds PAID_LATE: a payment settled after the invoice had EXPIRED (the
--               expiry sweep marks an OPEN invoice EXPIRED at its expires_at; docs/commerce.md). This is the
--               platform's own definition, what the API shows.
--    partial  = 0 < amount_settled < total (the settled sum fell short; the API's PAID_PARTIAL).
--    settled_after_expiry = some SETTLED payment of the invoice has settled_at > the invoice's expires_at (from the
--               payments topic). Wider than late: a payment authorized before expires_at keeps the invoice
--               PROCESSING, so it never expires, and its settlement is not PAID_LATE however long it took.
--    shortfall = sum(total - amount_settled) over the partial invoices.
WITH settled AS (
  SELECT invoice_uuid, max(settled_at) AS last_settled_at
  FROM commerce_payments
  WHERE state = 'SETTLED'
  GROUP BY invoice_uuid
),
invoices AS (
  SELECT
    i.merchant_uuid,
    i.asset,
    i.invoice_uuid,
    i.total,
    i.amount_settled,
    coalesce(json_contains(i.exceptions, '"PAID_LATE"'), false) AS late,
    (i.amount_settled > 0 AND i.amount_settled < i.total) AS partial,
    coalesce(s.last_settled_at > i.expires_at, false) AS settled_after_expiry
  FROM commerce_invoices i
  LEFT JOIN settled s USING (invoice_uuid)
)
SELECT
  merchant_uuid,
  asset,
  count(*) FILTER (WHERE amount_settled > 0) AS paid_invoices,
  count(*) FILTER (WHERE late) AS late_invoices,
  count(*) FILTER (WHERE partial) AS partial_invoices,
  count(*) FILTER (WHERE settled_after_expiry) AS settled_after_expiry_invoices,
  coalesce(sum(total - amount_settled) FILTER (WHERE partial), 0) AS shortfall,
  coalesce(list(invoice_uuid ORDER BY invoice_uuid) FILTER (WHERE late), []) AS late_invoice_uuids,
  coalesce(list(invoice_uuid ORDER BY invoice_uuid) FILTER (WHERE partial), []) AS partial_invoice_uuids,
  coalesce(list(invoice_uuid ORDER BY invoice_uuid) FILTER (WHERE settled_after_expiry), []) AS settled_after_expiry_invoice_uuids
FROM invoices
GROUP BY merchant_uuid, asset
HAVING count(*) FILTER (WHERE late OR partial OR settled_after_expiry) > 0
ORDER BY merchant_uuid, asset;
