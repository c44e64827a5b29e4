/** docs/commerce.md's asset and network tables are what src/modules/commerce/domain/money.ts declares (npm run commerce-doc). */
import { readFileSync } from 'node:fs';
import { COMMERCE_DOC_FILE, commerceTables, withCommerceTables } from '../../src/cli/commerce-doc';
import { COMMERCE_ASSETS, COMMERCE_NETWORKS } from '../../src/modules/commerce/domain/money';

/** The rows of the markdown table whose header starts with `header`, as cells without their backticks. */
function tableRows(doc: string, header: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, '')));
  }
  return rows;
}

describe('docs/commerce.md', () => {
  const doc = readFileSync(COMMERCE_DOC_FILE, 'utf8');

  it('holds the generated tables as money.ts declares them (npm run commerce-doc)', () => {
    expect(withCommerceTables(doc, commerceTables())).toBe(doc);
  });

  it('says which assets each network carries, and each asset\'s decimals, for every one the server accepts', () => {
    const networks = tableRows(doc, '| `network_id` |');
    expect(Object.fromEntries(networks.map(([id, family, assets]) => [id, { family, assets: assets.split(', ') }]))).toEqual(
      Object.fromEntries(Object.entries(COMMERCE_NETWORKS).map(([id, n]) => [id, { family: n.family, assets: [...n.assets] }])),
    );
    const assets = tableRows(doc, '| asset |');
    expect(Object.fromEntries(assets.map(([code, decimals]) => [code, Number(decimals)]))).toEqual(COMMERCE_ASSETS);
    expect(assets.find(([code]) => code === 'BTC')?.[2]).toBe('0.00000001');
    expect(assets.find(([code]) => code === 'JPY')?.[2]).toBe('1');
  });

  it('refuses to write into a document without the markers', () => {
    expect(() => withCommerceTables('# Commerce\n', commerceTables())).toThrow(/markers/);
  });
});
