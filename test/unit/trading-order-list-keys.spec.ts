import { ListOrders, ListOrdersHandler, pageKeys } from '../../src/modules/trading/orders';

const pos = (n: number): string => String(n).padStart(20, '0');

describe('order list page keys', () => {
  it('orders the aggregated keys newest first whatever order the database concatenated them in', () => {
    const text = [`${'b'.repeat(32)}:3:${pos(9)}`, `${'a'.repeat(32)}:1:${pos(120)}`, `${'c'.repeat(32)}:12:${pos(10)}`].join(',');
    expect(pageKeys(text)).toEqual([
      { order_uuid: 'a'.repeat(32), wire_version: 1, position: pos(120) },
      { order_uuid: 'c'.repeat(32), wire_version: 12, position: pos(10) },
      { order_uuid: 'b'.repeat(32), wire_version: 3, position: pos(9) },
    ]);
  });

  it('reads an empty page (no rows aggregate to null) as no keys', () => {
    expect(pageKeys(null)).toEqual([]);
  });
});

/**
 * The list's last pages: answered again for the same keys text, made anew for another, and bounded in bytes. The
 * database here is a stand-in that answers the two queries the handler makes (the keys text, then the rows of the
 * orders not rendered yet) and counts the row reads.
 */
describe('order list last pages', () => {
  const principal = { profile_uuid: 'p'.repeat(32), tenant_uuid: 't'.repeat(32), session_id: 's', platform_role: null } as never;
  const id = (n: number): string => n.toString(16).padStart(32, '0');
  const row = (n: number, version: number) => ({
    order_uuid: id(n), base_currency: 'BTC', post_only: 0, cancel_reason: null, created_at: '2026-11-27T10:00:00.000Z', direction: 'BUY', engine_id: null,
    order_size: '0.010', limit_price: '64000.5', external_ref: 'x'.repeat(400), time_in_force: 'GTC', liquidity_pool: 'l'.repeat(32), order_group: 'g', order_sequence: null,
    market_id: 1, status: version === 1 ? 'NEW' : 'OPEN', trades: '[]', updated_at: '2026-11-27T10:00:00.000Z', vault_uuid: 'v'.repeat(32), position: pos(n), wire_version: version,
  });

  /** `dataVersion`: what ReadModelDatabase.readerVersion answers (null: no such number, as on PostgreSQL). */
  function handler(versions: Map<number, number>, dataVersion: { now: number | null } = { now: null }): { list: ListOrdersHandler; rowReads: () => number; keyReads: () => number } {
    let reads = 0;
    let keyReads = 0;
    const db = {
      isPostgres: false,
      sql: (text: string) => text,
      readerVersion: () => dataVersion.now,
      reader: {
        query: async (sql: string, params: unknown[]) => {
          if (sql.includes('group_concat')) {
            keyReads++;
            const before = sql.includes('position < ?') ? Number(params[1]) : Infinity;
            const limit = Number(params[params.length - 1]);
            const page = [...versions].filter(([n]) => n < before).sort((a, b) => b[0] - a[0]).slice(0, limit);
            return [{ page: page.length ? page.map(([n, v]) => `${id(n)}:${v}:${pos(n)}`).join(',') : null }];
          }
          reads++;
          return (params as string[]).map((uuid) => row(parseInt(uuid, 16), versions.get(parseInt(uuid, 16))!));
        },
      },
    };
    return { list: new ListOrdersHandler(db as never), rowReads: () => reads, keyReads: () => keyReads };
  }

  it('answers the same keys text with the same page, and another text with a new one', async () => {
    const versions = new Map([[1, 1], [2, 1], [3, 1]]);
    const { list } = handler(versions);
    const first = await list.execute(new ListOrders(principal, {}, 2));
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(first);
    versions.set(3, 2);
    const changed = await list.execute(new ListOrders(principal, {}, 2));
    expect(changed).not.toBe(first);
    expect(JSON.parse(changed.orders[0].toString()).status).toBe('OPEN');
    // Another size, another page kept apart.
    expect((await list.execute(new ListOrders(principal, {}, 3))).orders).toHaveLength(3);
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(changed);
  });

  it('answers from the page kept without reading the keys while the read models are at the version it was read at', async () => {
    const versions = new Map([[1, 1], [2, 1], [3, 1]]);
    const dataVersion: { now: number | null } = { now: 7 };
    const { list, keyReads } = handler(versions, dataVersion);
    const first = await list.execute(new ListOrders(principal, {}, 2));
    expect(keyReads()).toBe(1);
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(first);
    expect(keyReads()).toBe(1);
    // A commit (any: here one that left the page as it was) moves the version: the keys are read again, and equal.
    dataVersion.now = 8;
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(first);
    expect(keyReads()).toBe(2);
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(first);
    expect(keyReads()).toBe(2);
    // One that changed an order on the page: read again, and a new page.
    versions.set(3, 2);
    dataVersion.now = 9;
    const changed = await list.execute(new ListOrders(principal, {}, 2));
    expect(keyReads()).toBe(3);
    expect(changed).not.toBe(first);
    expect(JSON.parse(changed.orders[0].toString()).status).toBe('OPEN');
    // Without a version (PostgreSQL) every request reads the keys.
    dataVersion.now = null;
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(changed);
    expect(await list.execute(new ListOrders(principal, {}, 2))).toBe(changed);
    expect(keyReads()).toBe(5);
  });

  it('keeps at most 16 MB of records: the least recently answered page goes first', async () => {
    const versions = new Map(Array.from({ length: 1000 }, (_, i) => [i + 1, 1] as [number, number]));
    const { list } = handler(versions);
    const callers = Array.from({ length: 40 }, (_, i) => ({ ...(principal as object), profile_uuid: id(1_000_000 + i) }) as never);
    const pages = [];
    for (const caller of callers) pages.push(await list.execute(new ListOrders(caller, {}, 1000)));
    const bytes = pages[0].orders.reduce((n, o) => n + o.length, 0);
    expect(bytes * callers.length).toBeGreaterThan(16 * 1024 * 1024);
    // The newest are still kept; the oldest were let go (made anew, an equal page but not the same object).
    expect(await list.execute(new ListOrders(callers[39], {}, 1000))).toBe(pages[39]);
    const again = await list.execute(new ListOrders(callers[0], {}, 1000));
    expect(again).not.toBe(pages[0]);
    expect(Buffer.concat(again.orders).equals(Buffer.concat(pages[0].orders))).toBe(true);
  });
});
