#!/usr/bin/env node
/**
 * The analysts' walkthrough (docs/analytics.md): read the platform's Kafka topics from the beginning to their current
 * end, load them into DuckDB (one table per topic, JSON values as columns), and answer three questions with the
 * queries of docs/analytics/queries.sql:
 *
 *   a. traded volume per market per hour          (projections.trading-trades; symbols from projections.trading-markets)
 *   b. credits consumed per tenant and product    (projections.billing-usage; projections.billing-accounts)
 *   c. invoices paid late or partially, by merchant (projections.commerce-invoices, projections.commerce-payments)
 *
 * Plain Node ESM, no build step:  node docs/analytics/analyze.mjs [--json] [--db analytics.duckdb] [--month YYYY-MM]
 * Environment: KAFKA_BROKERS (host:port[,host:port…], required), KAFKA_TOPIC_PREFIX (default `platform`).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { DuckDBInstance } from '@duckdb/node-api';

const HERE = dirname(fileURLToPath(import.meta.url));

const USAGE = `usage: node docs/analytics/analyze.mjs [--json] [--db FILE] [--month YYYY-MM] [--timeout-ms N]
  --json          print the three answers as one JSON document on stdout (tables otherwise)
  --db FILE       keep the loaded tables in a DuckDB file (re-created on every run) for the DuckDB CLI
  --month YYYY-MM the month of query b (default: the current UTC month)
  --timeout-ms N  give up reading the topics after N ms (default 60000)
environment: KAFKA_BROKERS (required), KAFKA_TOPIC_PREFIX (default platform)`;

function parseArgs(argv) {
  const opts = { json: false, db: null, month: null, timeoutMs: 60_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--json') opts.json = true;
    else if (a === '--db') opts.db = value();
    else if (a === '--month') opts.month = value();
    else if (a === '--timeout-ms') opts.timeoutMs = Number(value());
    else if (a === '--help' || a === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else fail(`unknown argument ${a}\n${USAGE}`);
  }
  if (opts.month !== null && !/^\d{4}-(0[1-9]|1[0-2])$/.test(opts.month)) fail(`--month must be YYYY-MM, not ${opts.month}`);
  if (!Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) fail('--timeout-ms must be a positive number');
  return opts;
}

function fail(message) {
  process.stderr.write(`analyze: ${message}\n`);
  process.exit(2);
}

const note = (message) => process.stderr.write(`analyze: ${message}\n`);

/**
 * What is read, and the table each topic becomes: each a compacted projection topic of rows (newest value per key,
 * `null` deletes it).
 * `decimals` / `timestamps`: value fields typed DECIMAL(38,18) / TIMESTAMPTZ once loaded (when present).
 * `columns`: what an empty topic's table is created with, so the queries run (and answer nothing) before any data.
 */
const TOPICS = [
  {
    name: 'projections.trading-trades',
    table: 'trading_trades',
    decimals: ['price', 'size'],
    timestamps: ['executed_at'],
    columns: { trade_uuid: 'VARCHAR', market_uuid: 'VARCHAR', price: 'DECIMAL(38,18)', size: 'DECIMAL(38,18)', taker_side: 'VARCHAR', maker_order_uuid: 'VARCHAR', taker_order_uuid: 'VARCHAR', executed_at: 'TIMESTAMPTZ' },
  },
  {
    // The trades carry the market's id only; its symbol is on the market's row (the API's Market record). A market
    // with a price feed changes with every index and mark price: many messages, one row per market kept.
    name: 'projections.trading-markets',
    table: 'trading_markets',
    decimals: ['index_price', 'mark_price'],
    timestamps: [],
    columns: { market_uuid: 'VARCHAR', market_id: 'BIGINT', market_symbol: 'VARCHAR', market_type: 'VARCHAR', quote_currency: 'VARCHAR', price_currency: 'VARCHAR', is_suspended: 'BOOLEAN' },
  },
  {
    name: 'projections.billing-accounts',
    table: 'billing_accounts',
    decimals: ['available_credits', 'included_credits', 'rated_usage_credits', 'uncovered_credits'],
    timestamps: [],
    columns: { account_key: 'VARCHAR', account_id: 'VARCHAR', tenant_uuid: 'VARCHAR', profile_uuid: 'VARCHAR', rated_usage_credits: 'DECIMAL(38,18)', usage_events: 'BIGINT', period: 'JSON' },
  },
  {
    name: 'projections.billing-usage',
    table: 'billing_usage',
    decimals: ['credits'],
    timestamps: ['period_started_at'],
    columns: { account_key: 'VARCHAR', tenant_uuid: 'VARCHAR', period_started_at: 'TIMESTAMPTZ', source_type: 'VARCHAR', credits: 'DECIMAL(38,18)', usage_events: 'BIGINT' },
  },
  {
    name: 'projections.commerce-invoices',
    table: 'commerce_invoices',
    decimals: ['total', 'amount_settled'],
    timestamps: ['expires_at', 'created', 'updated'],
    columns: { invoice_uuid: 'VARCHAR', merchant_uuid: 'VARCHAR', asset: 'VARCHAR', total: 'DECIMAL(38,18)', amount_settled: 'DECIMAL(38,18)', status: 'VARCHAR', exceptions: 'JSON', expires_at: 'TIMESTAMPTZ' },
  },
  {
    name: 'projections.commerce-payments',
    table: 'commerce_payments',
    decimals: ['amount'],
    timestamps: ['settled_at', 'created', 'updated', 'authorization_expires_at'],
    columns: { payment_uuid: 'VARCHAR', invoice_uuid: 'VARCHAR', merchant_uuid: 'VARCHAR', amount: 'DECIMAL(38,18)', state: 'VARCHAR', settled_at: 'TIMESTAMPTZ' },
  },
];

/** Kafka metadata kept beside each row (underscored, so they cannot meet a value's own fields). */
const META_COLUMNS = { _key: 'VARCHAR', _position: 'DECIMAL(20,0)', _event_id: 'VARCHAR', _snapshot: 'BOOLEAN', _partition: 'INTEGER', _offset: 'BIGINT', _headers: 'JSON' };

// ---------------------------------------------------------------------------------------------------------------
// 1. Kafka: every message each topic holds now, from the beginning to its high watermark.

function headerStrings(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined && v !== null) out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}

async function readTopics(brokers, topicNames, timeoutMs) {
  const kafka = new Kafka({ clientId: 'platform-analytics', brokers, logLevel: logLevel.NOTHING, connectionTimeout: 5000, retry: { retries: 5 } });
  const admin = kafka.admin();
  await admin.connect();
  const messages = new Map(topicNames.map((t) => [t, []]));
  const pending = new Map(); // `${topic}/${partition}` -> high watermark (exclusive)
  const existing = [];
  try {
    const listed = new Set(await admin.listTopics());
    for (const topic of topicNames) {
      if (!listed.has(topic)) {
        note(`topic ${topic} does not exist (yet): its table is empty`);
        continue;
      }
      existing.push(topic);
      for (const o of await admin.fetchTopicOffsets(topic)) if (BigInt(o.high) > BigInt(o.low)) pending.set(`${topic}/${o.partition}`, BigInt(o.high));
    }
  } finally {
    await admin.disconnect();
  }
  if (pending.size === 0) return messages;
  // A group of its own, never committed: a snapshot read from offset 0 each time (docs/analytics.md says how to
  // consume incrementally instead).
  const consumer = kafka.consumer({ groupId: `platform-analytics-${randomBytes(6).toString('hex')}`, sessionTimeout: 10_000, rebalanceTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: existing, fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the topics were not read to their end within ${timeoutMs} ms (${pending.size} partitions left: ${[...pending.keys()].join(', ')})`)), timeoutMs);
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ topic, partition, message }) => {
            const high = pending.get(`${topic}/${partition}`);
            if (high === undefined || BigInt(message.offset) >= high) return; // arrived after we looked: next run
            const headers = headerStrings(message.headers);
            messages.get(topic).push({
              partition,
              offset: message.offset,
              key: message.key?.toString('utf8') ?? null,
              value: message.value === null ? null : message.value.toString('utf8'),
              headers,
            });
            if (BigInt(message.offset) + 1n >= high) pending.delete(`${topic}/${partition}`);
            if (pending.size === 0) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  for (const list of messages.values()) list.sort((a, b) => a.partition - b.partition || (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1));
  return messages;
}

// ---------------------------------------------------------------------------------------------------------------
// 2. What a consumer keeps of them (docs/kafka.md section 4).

/** A compacted projection topic: the newest value per key (by the `position` header; a tie goes to the later message,
 * a seed repeats its row's position); a key whose newest value is `null` is deleted. */
function newestPerKey(list) {
  const kept = new Map();
  for (const m of list) {
    if (m.key === null) continue;
    const position = BigInt(m.headers.position ?? '0');
    const held = kept.get(m.key);
    if (held && position < held.position) continue; // an older change sent again after a fault
    kept.set(m.key, { ...m, position });
  }
  return [...kept.values()].filter((m) => m.value !== null);
}

// ---------------------------------------------------------------------------------------------------------------
// 3. DuckDB: one table per topic.

const quote = (identifier) => `"${identifier.replaceAll('"', '""')}"`;
const literal = (text) => `'${text.replaceAll("'", "''")}'`;

async function loadTable(connection, spec, rows, workDir) {
  const table = quote(spec.table);
  if (rows.length === 0) {
    const cols = Object.entries({ ...spec.columns, ...META_COLUMNS }).map(([n, t]) => `${quote(n)} ${t}`);
    await connection.run(`CREATE OR REPLACE TABLE ${table} (${cols.join(', ')})`);
    return;
  }
  // Newline-delimited JSON, one object per kept row: the value's own fields and the Kafka metadata. DuckDB's
  // read_json makes each top-level field a column, as JSON (maximum_depth 1); each is then given its type here, so
  // the same value always gives the same column type (no guessing from a sample).
  const file = join(workDir, `${spec.table}.ndjson`);
  const lines = rows.map((m) => {
    const value = JSON.parse(m.value);
    const meta = { _key: m.key, _position: m.position.toString(), _event_id: m.headers.event_id ?? null, _snapshot: m.headers.snapshot === 'true', _partition: m.partition, _offset: m.offset, _headers: m.headers };
    return JSON.stringify({ ...value, ...meta });
  });
  writeFileSync(file, `${lines.join('\n')}\n`);
  await connection.run(`CREATE OR REPLACE TABLE ${table} AS SELECT * FROM read_json(${literal(file)}, format = 'newline_delimited', sample_size = -1, maximum_depth = 1, union_by_name = true)`);
  const present = (await connection.runAndReadAll(`SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ${literal(spec.table)} ORDER BY ordinal_position`)).getRowObjects();
  for (const { column_name: column, data_type: type } of present) {
    if (type !== 'JSON') continue;
    const c = quote(column);
    let target;
    if (spec.decimals.includes(column)) target = 'DECIMAL(38,18)';
    else if (spec.timestamps.includes(column)) target = 'TIMESTAMPTZ';
    else if (column in META_COLUMNS) target = META_COLUMNS[column];
    else {
      // What the values hold: all strings -> VARCHAR, integers -> BIGINT, numbers -> DOUBLE, booleans -> BOOLEAN;
      // objects, arrays and mixtures stay JSON (read them with ->> and the JSON functions).
      const kinds = (await connection.runAndReadAll(`SELECT DISTINCT json_type(${c}) AS k FROM ${table} WHERE ${c} IS NOT NULL AND json_type(${c}) <> 'NULL'`)).getRowObjects().map((r) => r.k);
      const only = (...allowed) => kinds.every((k) => allowed.includes(k));
      target = only('VARCHAR') ? 'VARCHAR' : only('BIGINT', 'UBIGINT') ? 'BIGINT' : only('BIGINT', 'UBIGINT', 'DOUBLE') ? 'DOUBLE' : only('BOOLEAN') ? 'BOOLEAN' : 'JSON';
    }
    if (target === 'JSON') continue;
    await connection.run(`ALTER TABLE ${table} ALTER ${c} TYPE ${target} USING CAST(${c} ->> '$' AS ${target})`);
  }
  // Columns the queries name but no value carried (a field the topic's values lack): present, empty.
  const names = new Set(present.map((r) => r.column_name));
  for (const [n, t] of Object.entries(spec.columns)) if (!names.has(n)) await connection.run(`ALTER TABLE ${table} ADD COLUMN ${quote(n)} ${t}`);
}

/** The named statements of queries.sql: each starts at a `-- name: <name>` line and runs up to the next. */
function readQueries(file) {
  const text = readFileSync(file, 'utf8');
  const queries = [];
  let current = null;
  for (const line of text.split('\n')) {
    const named = /^--\s*name:\s*([a-z0-9_]+)\s*$/.exec(line);
    if (named) {
      current = { name: named[1], sql: '' };
      queries.push(current);
    } else if (current) current.sql += `${line}\n`;
  }
  return queries.map((q) => ({ ...q, sql: q.sql.trim().replace(/;\s*$/, '') }));
}

// ---------------------------------------------------------------------------------------------------------------
// 4. Output.

const DECIMAL_TEXT = /^-?\d+\.\d+$/;
const TIMESTAMPTZ_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/;

/** A result value for JSON and tables: decimals as exact strings without trailing zeros, instants as ISO 8601 UTC. */
function plain(value) {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== 'string') return value;
  if (DECIMAL_TEXT.test(value)) return value.replace(/0+$/, '').replace(/\.$/, '');
  const ts = TIMESTAMPTZ_TEXT.exec(value);
  if (ts) return new Date(`${ts[1]}T${ts[2]}Z`).toISOString();
  return value;
}

function printTable(title, rows) {
  process.stdout.write(`\n${title}\n`);
  if (rows.length === 0) {
    process.stdout.write('  (no rows)\n');
    return;
  }
  const columns = Object.keys(rows[0]);
  const cell = (v) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(' ') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values) => `  ${values.map((v, i) => (typeof rows[0][columns[i]] === 'number' || DECIMAL_TEXT.test(String(rows[0][columns[i]] ?? '')) ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ')}`;
  process.stdout.write(`${line(columns)}\n  ${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const r of rows) process.stdout.write(`${line(columns.map((c) => cell(r[c])))}\n`);
}

const TITLES = {
  traded_volume_per_market_hour: 'a. Traded volume per market per hour (UTC)',
  credits_per_tenant_product: 'b. Credits consumed per tenant and product',
  invoices_late_or_partial_by_merchant: 'c. Invoices paid late or partially, by merchant',
};

// ---------------------------------------------------------------------------------------------------------------

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').map((b) => b.trim()).filter(Boolean);
  if (brokers.length === 0) fail('KAFKA_BROKERS is not set (e.g. KAFKA_BROKERS=127.0.0.1:9092; `npm run kafka:start` prints one)');
  const prefix = process.env.KAFKA_TOPIC_PREFIX || 'platform';
  const month = opts.month ?? new Date().toISOString().slice(0, 7);

  const topicOf = (spec) => `${prefix}.${spec.name}`;
  const started = Date.now();
  const read = await readTopics(brokers, TOPICS.map(topicOf), opts.timeoutMs);

  const instance = await DuckDBInstance.create(opts.db ?? ':memory:');
  const connection = await instance.connect();
  const workDir = mkdtempSync(join(tmpdir(), 'platform-analytics-'));
  const loaded = {};
  try {
    await connection.run("SET TimeZone = 'UTC'");
    for (const spec of TOPICS) {
      const list = read.get(topicOf(spec)) ?? [];
      const rows = newestPerKey(list);
      await loadTable(connection, spec, rows, workDir);
      loaded[spec.table] = { topic: topicOf(spec), messages: list.length, rows: rows.length };
    }
    // The month of query b, as the queries take it (the DuckDB CLI: SET VARIABLE month = '2026-11';).
    await connection.run(`SET VARIABLE month = ${literal(month)}`);

    const answers = {};
    for (const q of readQueries(join(HERE, 'queries.sql'))) {
      const reader = await connection.runAndReadAll(q.sql);
      // Counts as JSON numbers (DuckDB hands BIGINTs over as text, to lose nothing); everything else through plain().
      const integers = new Set(reader.columnNames().filter((_, i) => /^(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)$/.test(String(reader.columnTypes()[i]))));
      answers[q.name] = reader.getRowObjectsJson().map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, integers.has(k) && v !== null ? Number(v) : plain(v)])));
    }
    const inexact = (await connection.runAndReadAll(`SELECT count(*) AS n FROM trading_trades WHERE CAST(price AS DECIMAL(38,9)) <> price OR CAST(size AS DECIMAL(38,9)) <> size`)).getRowObjectsJson()[0].n;
    if (Number(inexact) > 0) note(`${inexact} trades have a price or size with more than 9 decimals: their notional in query a is rounded (docs/analytics.md)`);

    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ prefix, month, read_ms: Date.now() - started, tables: loaded, ...answers }, null, 2)}\n`);
    } else {
      process.stdout.write(`Topics read (prefix ${prefix}) in ${Date.now() - started} ms:\n`);
      for (const [table, t] of Object.entries(loaded)) process.stdout.write(`  ${t.topic.padEnd(48)} ${String(t.messages).padStart(7)} messages -> ${table} (${t.rows} rows)\n`);
      for (const [name, rows] of Object.entries(answers)) printTable(`${TITLES[name] ?? name}${name === 'credits_per_tenant_product' ? `, ${month}` : ''}`, rows);
      if (opts.db) process.stdout.write(`\nTables kept in ${opts.db}: duckdb ${opts.db}, then .read docs/analytics/queries.sql\n`);
    }
  } finally {
    connection.closeSync?.();
    instance.closeSync?.();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  note(error instanceof Error ? error.stack ?? error.message : String(error));
  process.exit(1);
});
