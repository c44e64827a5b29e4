/** The idempotency store on both read-model databases: first use, replay, reuse with another body, races, expiry. */
import { StateConflict } from '../../src/platform/errors';
import { IdempotencyKeyReused, IdempotencyStore } from '../../src/platform/http/idempotency.store';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { makeTestDatabase, type DatabaseKind, type TestDatabase } from '../support/databases';

describe.each<DatabaseKind>(['sqlite', 'postgres'])('IdempotencyStore on %s', (kind) => {
  let testDb: TestDatabase;
  let db: ReadModelDatabase;
  let store: IdempotencyStore;

  beforeEach(async () => {
    testDb = makeTestDatabase(kind);
    db = await testDb.open([]);
    store = new IdempotencyStore(db, 3600);
  });
  afterEach(async () => {
    await db.close();
    await testDb.dispose();
  });

  const response = { status: 201, headers: { 'content-type': 'application/json', 'x-position': '7' }, body: '{"ok":true}' };

  it('replays a completed response for the same fingerprint and refuses another', async () => {
    expect(await store.begin('user:a', 'k1', 'f1')).toEqual({ kind: 'new', fingerprint: 'f1' });
    await store.complete('user:a', 'k1', response);
    expect(await store.begin('user:a', 'k1', 'f1')).toEqual({ kind: 'replay', response });
    await expect(store.begin('user:a', 'k1', 'f2')).rejects.toBeInstanceOf(IdempotencyKeyReused);
    // Keys are per caller.
    expect(await store.begin('user:b', 'k1', 'f2')).toEqual({ kind: 'new', fingerprint: 'f2' });
  });

  it('recognises a request by its fingerprint under any key the node holds or trusts (a rotation), and a retry taking over goes by the first attempt\'s', async () => {
    // A node holding the new key (fingerprint fNew) that trusts the old one (fOld), and one the other way round.
    expect(await store.begin('user:a', 'rolled', ['fOld', 'fNew'])).toEqual({ kind: 'new', fingerprint: 'fOld' });
    await store.complete('user:a', 'rolled', response);
    expect(await store.begin('user:a', 'rolled', ['fNew', 'fOld'])).toEqual({ kind: 'replay', response });
    await expect(store.begin('user:a', 'rolled', ['fNew'])).rejects.toBeInstanceOf(IdempotencyKeyReused); // the old key no longer trusted

    // A first attempt that died in flight under the old key: its retry through a node holding the new key takes it over
    // under the first attempt's fingerprint, so it derives the same ids and the executor recognises what was appended.
    const now = Date.now();
    await store.begin('user:a', 'died', ['fOld', 'fNew'], now - 61_000);
    expect(await store.begin('user:a', 'died', ['fNew', 'fOld'], now)).toEqual({ kind: 'new', fingerprint: 'fOld' });
    await expect(store.begin('user:a', 'died', ['fNew'], now + 61_000)).rejects.toBeInstanceOf(IdempotencyKeyReused);
  });

  it('lets exactly one of racing first uses proceed', async () => {
    // A second connection on PostgreSQL, so the two really overlap.
    const other = kind === 'postgres' ? await testDb.open([]) : db;
    const rival = new IdempotencyStore(other, 3600);
    const results = await Promise.allSettled([store.begin('user:a', 'race', 'f'), rival.begin('user:a', 'race', 'f'), store.begin('user:a', 'race', 'f')]);
    if (other !== db) await other.close();
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(2);
    for (const r of rejected) {
      expect(r.reason).toBeInstanceOf(StateConflict);
      expect(r.reason.retryable).toBe(true);
    }
  });

  it('frees a key after a failure and after expiry, and takes over an abandoned request', async () => {
    await store.begin('user:a', 'k', 'f');
    await store.abandon('user:a', 'k');
    expect(await store.begin('user:a', 'k', 'other')).toEqual({ kind: 'new', fingerprint: 'other' });

    const now = Date.now();
    await store.begin('user:a', 'stale', 'f', now - 61_000);
    expect(await store.begin('user:a', 'stale', 'f', now)).toEqual({ kind: 'new', fingerprint: 'f' });

    await store.complete('user:a', 'stale', response);
    await store.purgeExpired(now + 3601_000);
    expect(await store.begin('user:a', 'stale', 'different', now + 3601_000)).toEqual({ kind: 'new', fingerprint: 'different' });
  });
});
