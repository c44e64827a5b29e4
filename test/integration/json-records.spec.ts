/**
 * The JSON-record helpers (src/platform/read-model/json-records.ts) on the real databases: insert, patch (read, merge,
 * write) and replace (write the whole record without reading it), the indexed columns following the record.
 */
import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { insertRecord, patchRecord, readRecord, replaceRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';

interface Thing {
  thing_id: string;
  status: string;
  note?: string;
}
const THINGS: JsonRecordTable<Thing> = { table: 'test_things', key: 'thing_id', columns: ['status'] };

class TestThings1764000099000 implements MigrationInterface {
  name = 'TestThings1764000099000';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'test_things',
        columns: [
          { name: 'thing_id', type: 'varchar', length: '32', isPrimary: true },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'record', type: 'text' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('test_things');
  }
}

describe.each<DatabaseKind>(['sqlite', 'postgres'])('JSON records on %s', (kind) => {
  let target: TestDatabase;
  let db: ReadModelDatabase;
  beforeAll(async () => {
    target = makeTestDatabase(kind);
    db = await target.open([{ entities: [], migrations: [TestThings1764000099000], projectors: [] } as never]);
  });
  afterAll(async () => {
    await db?.close();
    await target?.dispose();
  });

  const status = async (id: string) => ((await db.reader.query(db.sql('SELECT status FROM test_things WHERE thing_id = ?'), [id])) as Array<{ status: string }>)[0]?.status;

  it('replaces a whole record and its columns without reading it; patches by merging', async () => {
    await db.transaction((tx) => insertRecord(tx, THINGS, { thing_id: 'a', status: 'NEW', note: 'first' }));
    await db.transaction((tx) => replaceRecord(tx, THINGS, { thing_id: 'a', status: 'OPEN' }));
    expect(await readRecord(db.reader.manager, THINGS, 'a')).toEqual({ thing_id: 'a', status: 'OPEN' });
    expect(await status('a')).toBe('OPEN');
    const after = await db.transaction((tx) => patchRecord(tx, THINGS, 'a', () => ({ note: 'patched' })));
    expect(after).toEqual({ thing_id: 'a', status: 'OPEN', note: 'patched' });
    expect(await readRecord(db.reader.manager, THINGS, 'a')).toEqual(after);
  });

  it('replaces nothing where there is no row', async () => {
    await db.transaction((tx) => replaceRecord(tx, THINGS, { thing_id: 'missing', status: 'OPEN' }));
    expect(await readRecord(db.reader.manager, THINGS, 'missing')).toBeNull();
    expect(await db.transaction((tx) => patchRecord(tx, THINGS, 'missing', () => ({ status: 'X' })))).toBeNull();
  });
});
