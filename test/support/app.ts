/** Boots the real application (same factory as main.ts) on a temp DATA_DIR with the test-only ledger module. */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory';
import { loadPlatformConfig, type PlatformConfig } from '../../src/platform/config/platform-config';
import type { Clock } from '../../src/platform/clock';
import { TestLedgerModule } from './test-ledger/ledger.module';
import { testLedgerReadModel } from './test-ledger/ledger.read-model';
import { openApiResponseCheck } from './openapi-check';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { eventDeclaration, unclassifiedPaths } from '../../src/platform/privacy/field-classes';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { eventEnvelope } from '../../src/platform/event-store/event-envelope';
import { eventDataProblem } from './event-schemas';
import './test-ledger/ledger.domain';

/** The ledger module as worker threads load it (WORKER_THREADS): by file, since classes do not cross threads. */
const TEST_LEDGER_BY_FILE = {
  imports: [require.resolve('./test-ledger/ledger.domain')],
  modules: [{ path: require.resolve('./test-ledger/ledger.module'), name: 'TestLedgerModule' }],
  readModels: [{ path: require.resolve('./test-ledger/ledger.read-model'), name: 'testLedgerReadModel' }],
};

export interface TestApp {
  app: NestFastifyApplication;
  config: PlatformConfig;
  logs: string[];
  close(): Promise<void>;
}

/**
 * SESSION_TTL_SECONDS for a suite whose injected clock moves days ahead (across a month end): sessions are on the
 * platform clock, so the default 12 hours would sign its people out mid-suite. The configuration's maximum, 30 days.
 */
export const SESSIONS_OUTLAST_THE_CLOCK_MOVES = String(30 * 24 * 3600);

export async function startTestApp(env: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'app-'));
  // scrypt at 2^10 keeps the suites fast; production uses 2^17 (PASSWORD_HASH_COST).
  // Suites register many accounts from one test address: the per-source mail ceiling (MAIL_SOURCE_LIMIT_PER_HOUR)
  // is lifted unless a suite sets it (test/e2e/identity-throttling.spec.ts does).
  // Each app is a node of its own (several share a DATA_DIR in the multi-node suites) unless a suite names it.
  // The rater rates at once (BILLING_RATER_COALESCE_MS=0) unless a suite asks for the production pause: suites that
  // wait for the projections and then compare the log's head would otherwise race a usage appended 50 ms later.
  const nodeId = `test-${randomBytes(6).toString('hex')}`;
  const config = loadPlatformConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', MAIL_SOURCE_LIMIT_PER_HOUR: '1000000', BILLING_RATER_COALESCE_MS: '0', NODE_ID: nodeId, ...workerThreadsOf(options, env), ...env });
  const logs: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const app = await createApp({ config, readModels: [testLedgerReadModel], modules: [TestLedgerModule], threadExtras: TEST_LEDGER_BY_FILE, logStream, clock: options.clock });
  await checkResponsesAgainstOpenApi(app);
  return {
    app,
    config,
    logs,
    async close() {
      let unclassified: string[];
      let offContract: string[];
      try {
        unclassified = await unclassifiedFieldsOf(app.get<EventStore>(EVENT_STORE));
        offContract = await eventsOffTheirSchema(app.get<EventStore>(RAW_EVENT_STORE));
      } finally {
        await app.close();
      }
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
      if (unclassified.length > 0) throw new Error(`events appended with fields that have no privacy class (src/platform/privacy/field-classes.ts): ${unclassified.join(', ')}`);
      if (offContract.length > 0) throw new Error(`events appended whose data does not match their type's schema (docs/schemas/events, npm run event-schemas): ${offContract.join('; ')}`);
    },
  };
}

/**
 * The suites run with the WORKER_THREADS of their environment, the default (auto) when unset: CI runs them with the
 * default on the machine's Node and with WORKER_THREADS=0 on the LTS. A suite that
 * brings its own clock runs on one thread (the worker threads keep the system clock), as does one on PostgreSQL.
 */
function workerThreadsOf(options: { clock?: Clock }, env: Record<string, string>): Record<string, string> {
  // Worker threads run on the embedded stores only so far (platform-config.ts refuses them on shared ones).
  const shared = env.DATABASE_URL || env.EVENT_STORE_URL || env.EVENTSTORE_CONNECTION_STRING;
  if (options.clock || shared) return { WORKER_THREADS: '0' };
  const wanted = process.env.WORKER_THREADS;
  return wanted === undefined ? {} : { WORKER_THREADS: wanted };
}

/**
 * Every event the suite's app appended, checked against the privacy classes its module declares (docs/privacy.md):
 * the event types and field paths that have none. Run when the app closes, so every suite checks what it wrote.
 */
async function unclassifiedFieldsOf(store: EventStore): Promise<string[]> {
  const missing = new Set<string>();
  for (let after: bigint | undefined, page; (page = await store.readAll({ after, maxCount: 2000 })).length > 0; after = page[page.length - 1].position) {
    for (const e of page) for (const path of unclassifiedPaths(e.type, e.data)) missing.add(path);
  }
  return [...missing].sort();
}

/**
 * Every event the suite's app appended, its data in committed form (as Kafka and the audit export carry it:
 * eventEnvelope) checked against its type's definition in docs/schemas/events: the problems, once each. A type with no
 * schema is one (a new event type needs npm run event-schemas); the test-only ledger's events are never published.
 */
async function eventsOffTheirSchema(raw: EventStore): Promise<string[]> {
  const problems = new Set<string>();
  for (let after: bigint | undefined, page; (page = await raw.readAll({ after, maxCount: 2000 })).length > 0; after = page[page.length - 1].position) {
    for (const e of page) {
      if (eventDeclaration(e.type)?.module === 'test-ledger') continue;
      const problem = eventDataProblem(e.type, eventEnvelope(e).data);
      if (problem) problems.add(problem);
    }
  }
  return [...problems].sort();
}

/**
 * Every response of `app.inject` is checked against the OpenAPI document the app serves (openapi-check.ts): a status
 * the operation does not declare, or a body that does not match its declared schema, fails the request's test.
 * OPENAPI_CHECK=collect writes the mismatches to OPENAPI_CHECK_FILE instead (to survey them), =off skips the check.
 * OPENAPI_COVERAGE=<file> appends `operationId status` of every answer, to find operations no test reaches
 * (test/infra/openapi/coverage.sh).
 */
async function checkResponsesAgainstOpenApi(app: NestFastifyApplication): Promise<void> {
  const mode = process.env.OPENAPI_CHECK ?? 'fail';
  if (mode === 'off') return;
  const served = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  const checker = openApiResponseCheck(served.json());
  // Nest's app.inject hands over to Fastify's: wrap that one (the Nest application is a proxy that refuses it).
  const fastify = app.getHttpAdapter().getInstance() as unknown as { inject: (options?: unknown) => unknown };
  const inject = fastify.inject.bind(fastify);
  fastify.inject = (options?: unknown) => {
    const result = inject(options);
    if (options === undefined) return result; // the chained form: not used by the suites
    return (result as Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>).then((response) => {
      const o = (typeof options === 'string' ? { url: options, method: 'GET' } : options) as { method?: string; url?: string; path?: string };
      const problem = checker.check(o.method ?? 'GET', o.url ?? o.path ?? '/', response.statusCode, response.body, response.headers['content-type'] as string | undefined);
      const untyped = process.env.OPENAPI_SAMPLES && response.statusCode < 300 ? checker.untyped(o.method ?? 'GET', o.url ?? o.path ?? '/', response.statusCode) : null;
      if (untyped) appendFileSync(process.env.OPENAPI_SAMPLES as string, `${untyped} ${response.statusCode} ${response.body.slice(0, 3000)}\n`);
      const operation = process.env.OPENAPI_COVERAGE ? checker.operationOf(o.method ?? 'GET', o.url ?? o.path ?? '/') : null;
      if (operation) appendFileSync(process.env.OPENAPI_COVERAGE as string, `${operation} ${response.statusCode}\n`);
      if (problem) {
        if (mode === 'collect') appendFileSync(process.env.OPENAPI_CHECK_FILE ?? join(tmpdir(), 'openapi-violations.txt'), `${problem.slice(0, 400)}\n`);
        else throw new Error(`response does not match the OpenAPI document: ${problem}`);
      }
      return response;
    });
  };
}
