/**
 * ReadModelDatabase.readerVersion on the real databases: on SQLite it stays put while nothing is committed and moves
 * with every commit, this process's writer's or another connection's; on PostgreSQL there is none (null), so memos
 * built on it (the order list's last pages) read every time.
 */
import { join } from 'node:path';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';
import { makeTestDatabase, type TestDatabase } from '../support/databases';

describe('read-model version', () => {
  let target: TestDatabase;
  let db: ReadModelDatabase;
  afterEach(async () => {
    await db?.close();
    await target?.dispose();
  });

  const commitCheckpoint = (name: string) =>
    db.transaction((tx) => tx.query(db.sql(`INSERT INTO projection_checkpoints (name, position, updated_at) VALUES (?, 0, ?)`), [name, new Date().toISOString()]));

  it('on SQLite: stays put across reads, moves with a commit of the writer or of another connection', async () => {
    target = makeTestDatabase('sqlite');
    db = await target.open([]);
    const first = db.readerVersion();
    expect(typeof first).toBe('number');
    await db.reader.query('SELECT count(*) AS n FROM projection_checkpoints');
    expect(db.readerVersion()).toBe(first);

    await commitCheckpoint('one');
    const afterWriter = db.readerVersion();
    expect(afterWriter).not.toBe(first);
    expect(db.readerVersion()).toBe(afterWriter);

    // Another process (a node sharing the files, a CLI) commits through its own connection.
    const other = new SqliteDatabase(join(target.dataDir, 'read.sqlite'));
    try {
      other.prepare(`INSERT INTO projection_checkpoints (name, position, updated_at) VALUES ('two', 0, 'x')`).run();
    } finally {
      other.close();
    }
    expect(db.readerVersion()).not.toBe(afterWriter);
  });

  it('on PostgreSQL: none', async () => {
    target = makeTestDatabase('postgres');
    db = await target.open([]);
    expect(db.readerVersion()).toBeNull();
    await commitCheckpoint('one');
    expect(db.readerVersion()).toBeNull();
  });
});
