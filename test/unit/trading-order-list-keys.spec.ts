import { pageKeys } from '../../src/modules/trading/orders';

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
