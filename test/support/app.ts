/** Boots the real application (same factory as main.ts) on a temp DATA_DIR with the test-only ledger module. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory';
import { loadPlatformConfig, type PlatformConfig } from '../../src/platform/config/platform-config';
import type { Clock } from '../../src/platform/clock';
import { TestLedgerModule } from './test-ledger/ledger.module';
import { testLedgerReadModel } from './test-ledger/ledger.read-model';

export interface TestApp {
  app: NestFastifyApplication;
  config: PlatformConfig;
  logs: string[];
  close(): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, options: { clock?: Clock } = {}): Promise<TestApp> {
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'app-'));
  // scrypt at 2^10 keeps the suites fast; production uses 2^17 (PASSWORD_HASH_COST).
  // Suites register many accounts from one test address: the per-source mail ceiling (MAIL_SOURCE_LIMIT_PER_HOUR)
  // is lifted unless a suite sets it (test/e2e/identity-throttling.spec.ts does).
  // Each app is a node of its own (several share a DATA_DIR in the multi-node suites) unless a suite names it.
  const nodeId = `test-${randomBytes(6).toString('hex')}`;
  const config = loadPlatformConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: dataDir, PASSWORD_HASH_COST: '10', MAIL_SOURCE_LIMIT_PER_HOUR: '1000000', NODE_ID: nodeId, ...env });
  const logs: string[] = [];
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logs.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const app = await createApp({ config, readModels: [testLedgerReadModel], modules: [TestLedgerModule], logStream, clock: options.clock });
  return {
    app,
    config,
    logs,
    async close() {
      await app.close();
      if (!env.DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
