/**
 * `npm run openapi` writes the OpenAPI document of the platform to docs/openapi.json without listening on a port:
 * the application is built on a throw-away DATA_DIR (nothing runs in the background), the document is read from the
 * route that serves it, and the application is closed. The file is committed, so a review shows every contract
 * change; `npm run openapi -- --check` fails when it is not what the code generates (CI runs it through the tests).
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../app.factory';
import { loadPlatformConfig } from '../platform/config/platform-config';
import { REPO_ROOT } from './generated-doc';

// src/cli under ts (tests) or dist/src/cli once built: the repository root is two or three levels up.
export const OPENAPI_FILE = join(REPO_ROOT, 'docs/openapi.json');

/** The document as served at /api/v1/openapi.json by the production modules, as formatted text. */
export async function generateOpenApiText(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'openapi-'));
  const config = loadPlatformConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PROJECTIONS_AUTOSTART: 'false',
    MATCHING_ENGINES: 'false',
    AUDIT_CHECKPOINTS: 'false',
    WORKER_THREADS: '0',
    PASSWORD_HASH_COST: '10',
  });
  const app = await createApp({ config });
  try {
    const served = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    if (served.statusCode !== 200) throw new Error(`the document route answered ${served.statusCode}`);
    return `${JSON.stringify(JSON.parse(served.body), null, 2)}\n`;
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const text = await generateOpenApiText();
  let committed = '';
  try {
    committed = readFileSync(OPENAPI_FILE, 'utf8');
  } catch {
    /* not written yet */
  }
  if (check) {
    if (committed !== text) {
      process.stderr.write(`${OPENAPI_FILE} is not what the code generates: run npm run openapi and commit it\n`);
      process.exit(1);
    }
    process.stdout.write(`${OPENAPI_FILE} is up to date\n`);
    return;
  }
  writeFileSync(OPENAPI_FILE, text);
  process.stdout.write(`${committed === text ? 'unchanged' : 'wrote'} ${OPENAPI_FILE}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
