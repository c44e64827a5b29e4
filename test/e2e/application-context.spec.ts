/**
 * The application's modules booted without HTTP (NestFactory.createApplicationContext), as a worker thread will boot
 * them to run background jobs (issue 48): it initializes, its metrics answer, and it closes. The HTTP application of
 * the same modules serves the planned routes' 404 (test/e2e/capabilities-planned.spec.ts).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../src/app.module';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { createPlatformLogger } from '../../src/platform/logging/logger.config';
import { MetricsService } from '../../src/platform/observability/metrics.service';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { prepareDataDir } from '../../src/platform/security/data-dir';

describe('the application as a context without HTTP', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ctx-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('initializes (no planned routes to install, no OpenAPI document to check), reports its metrics, and closes', async () => {
    // As test/support/app.ts configures a node, on SQLite in a DATA_DIR of its own.
    const config = loadPlatformConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', BILLING_RATER_COALESCE_MS: '0', NODE_ID: `test-${randomBytes(6).toString('hex')}` });
    prepareDataDir(dataDir);
    const logs: string[] = [];
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const context = await NestFactory.createApplicationContext(AppModule.forRoot({ config, logger: createPlatformLogger(config.logLevel, logStream) }), { abortOnError: false, bufferLogs: true });
    try {
      const metrics = context.get(MetricsService);
      metrics.setThreadName('bg');
      const scraped = await metrics.registry.metrics();
      expect(scraped).toMatch(/^platform_jobs_held \d+$/m);
      if (existsSync('/proc/thread-self')) expect(scraped).toMatch(/^platform_thread_cpu_seconds_total\{thread="bg"\} \d/m);
      expect(context.get(ProjectionRunner).status().length).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
    expect(logs.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
  });
});
