/** Real databases for integration tests: a temp SQLite directory, or a fresh schema on the local PostgreSQL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { hex32 } from './events';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface TestDatabase {
  kind: DatabaseKind;
  dataDir: string;
  databaseUrl?: string;
  schema?: string;
  open(readModels: ReadModelDefinition[]): Promise<ReadModelDatabase>;
  dispose(): Promise<void>;
}

export function makeTestDatabase(kind: DatabaseKind): TestDatabase {
  const dataDir = mkdtempSync(join(tmpdir(), 'rm-'));
  const schema = kind === 'postgres' ? `t_${hex32().slice(0, 16)}` : undefined;
  const databaseUrl = kind === 'postgres' ? TEST_DATABASE_URL : undefined;
  return {
    kind,
    dataDir,
    databaseUrl,
    schema,
    open: (readModels) => openReadModelDatabase({ dataDir, databaseUrl, schema, readModels }),
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true });
      if (schema && databaseUrl) {
        const ds = new DataSource({ type: 'postgres', url: databaseUrl });
        await ds.initialize();
        await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await ds.destroy();
      }
    },
  };
}

/** A PostgreSQL schema of a suite's own: the env that points an app at it, and its removal when the suite ends. */
export function suiteSchema(): { env: () => Record<string, string>; drop: () => Promise<void> } {
  const schema = `t_${hex32().slice(0, 16)}`;
  return {
    env: () => ({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema }),
    async drop() {
      const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
      await ds.initialize();
      await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await ds.destroy();
    },
  };
}
