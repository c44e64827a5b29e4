/**
 * openReadModelDatabase's `migrate: false`: for a connection opened after another one of this process migrated the
 * database (issue 48's worker threads), so that several connections never run the migrations at once. It opens the
 * database as it is, creating and migrating nothing; the default still brings the schema up to date.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';

class LateTable1799000000000 implements MigrationInterface {
  name = 'LateTable1799000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE late_table (id INTEGER PRIMARY KEY)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE late_table');
  }
}

/** A read model whose migration the directory has not had yet. */
const lateReadModel = { name: 'late', entities: [], migrations: [LateTable1799000000000], projector: class {} } as unknown as ReadModelDefinition;

describe('opening the read models without migrating (SQLite)', () => {
  let dataDir: string;
  let db: ReadModelDatabase | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'rm-migrate-'));
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The tables of the file, read through a connection of the test's own. */
  const tables = (): string[] => {
    const file = new SqliteDatabase(join(dataDir, 'read.sqlite'));
    try {
      return (file.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    } finally {
      file.close();
    }
  };

  it('creates nothing in a directory never migrated', async () => {
    db = await openReadModelDatabase({ dataDir, readModels: [lateReadModel], migrate: false });
    await db.ping();
    expect(tables()).toEqual([]);
  });

  it('opens a migrated directory as it is, without running a pending migration; the default runs it', async () => {
    db = await openReadModelDatabase({ dataDir, readModels: [] });
    await db.close();
    const migrated = tables();
    expect(migrated).toEqual(expect.arrayContaining(['migrations', 'projection_checkpoints']));

    db = await openReadModelDatabase({ dataDir, readModels: [lateReadModel], migrate: false });
    expect(await db.reader.query('SELECT count(*) AS n FROM projection_checkpoints')).toEqual([{ n: 0 }]);
    await db.close();
    expect(tables()).toEqual(migrated);

    db = await openReadModelDatabase({ dataDir, readModels: [lateReadModel] });
    expect(tables()).toEqual([...migrated, 'late_table'].sort());
  });
});
