/**
 * Several writer connections on one read-model file (issue 48: background work on worker threads, each with its own
 * connections). A SQLite transaction takes the write lock when it begins (BEGIN IMMEDIATE): one that read before
 * another connection committed could otherwise no longer write (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits
 * out), so a read-modify-write lost its work. Now the second writer waits its turn and both writes land.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openReadModelDatabase, type ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { addToPosition, WriterThread } from '../support/read-model-writers';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('read models with several writer connections (SQLite)', () => {
  let dataDir: string;
  let db: ReadModelDatabase;
  let other: WriterThread | undefined;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rm-writers-'));
    db = await openReadModelDatabase({ dataDir, readModels: [] });
    await db.transaction((tx) => tx.query(`INSERT INTO projection_checkpoints (name, position, updated_at) VALUES ('shared', 0, 'x')`));
  });
  afterEach(async () => {
    await other?.close();
    other = undefined;
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const position = async (): Promise<number> => Number((await db.reader.query(`SELECT position FROM projection_checkpoints WHERE name = 'shared'`))[0].position);

  it('a transaction that has read keeps its write while another connection tries to commit: that one waits, both land', async () => {
    other = await WriterThread.start(dataDir);
    let otherCommittedFirst = false;
    let otherDone: Promise<unknown> = Promise.resolve();
    await addToPosition(db, 'shared', 1, async () => {
      const id = other!.add({ name: 'shared', amount: 10, times: 1 });
      otherDone = other!.report(id, 'done');
      otherDone.catch(() => undefined); // awaited below
      await other!.report(id, 'trying');
      // Long enough for the other thread to commit, were it not waiting for this transaction's lock.
      otherCommittedFirst = await Promise.race([otherDone.then(() => true), delay(300).then(() => false)]);
    });
    await otherDone;
    expect(otherCommittedFirst).toBe(false);
    expect(await position()).toBe(11);
  });

  it('a transaction begun while another connection holds one open waits for its commit, then reads what it wrote', async () => {
    other = await WriterThread.start(dataDir);
    const id = other.add({ name: 'shared', amount: 10, times: 1, holdMs: 200 });
    const otherDone = other.report(id, 'done');
    await other.report(id, 'holding');
    await addToPosition(db, 'shared', 1);
    await otherDone;
    expect(await position()).toBe(11);
  });

  it('200 read-modify-write increments from two connections at once end at exactly 200', async () => {
    other = await WriterThread.start(dataDir);
    const id = other.add({ name: 'shared', amount: 1, times: 100 });
    const otherDone = other.report(id, 'done');
    await other.report(id, 'trying');
    for (let i = 0; i < 100; i++) await addToPosition(db, 'shared', 1);
    await otherDone;
    expect(await position()).toBe(200);
  });
});

describe('a read-model transaction on its own connection (SQLite)', () => {
  let dataDir: string;
  let db: ReadModelDatabase;
  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'rm-tx-'));
    db = await openReadModelDatabase({ dataDir, readModels: [] });
  });
  afterEach(async () => {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const names = async (): Promise<string[]> => ((await db.reader.query(`SELECT name FROM projection_checkpoints ORDER BY name`)) as { name: string }[]).map((r) => r.name);
  const insert = (tx: { query(sql: string, params: unknown[]): Promise<unknown> }, name: string) =>
    tx.query(`INSERT INTO projection_checkpoints (name, position, updated_at) VALUES (?, 0, 'x')`, [name]);

  it('rolls back what its work wrote when the work fails, and the next transaction runs as usual', async () => {
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, 'lost');
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    await db.transaction((tx) => insert(tx, 'kept'));
    expect(await names()).toEqual(['kept']);
  });

  it('a nested transaction is a savepoint: its failure undoes only its own writes, its success keeps them', async () => {
    await db.transaction(async (tx) => {
      await insert(tx, 'outer-before');
      await expect(
        tx.transaction(async (inner) => {
          await insert(inner, 'inner-failed');
          throw new Error('inner failed');
        }),
      ).rejects.toThrow('inner failed');
      await tx.transaction((inner) => insert(inner, 'inner-kept'));
      await insert(tx, 'outer-after');
    });
    expect(await names()).toEqual(['inner-kept', 'outer-after', 'outer-before']);
  });

  it('an insert built by TypeORM joins the transaction rather than beginning one of its own', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.createQueryBuilder().insert().into('projection_checkpoints').values({ name: 'built', position: 0, updated_at: 'x' }).execute();
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await names()).toEqual([]);
  });
});
