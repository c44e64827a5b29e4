/** `npm run projections -- rebuild <name>` on the stores a server left behind: same rows after, progress shown. */
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { runProjectionsCli, type CliIo } from '../../src/cli/projections';
import { startTestApp } from '../support/app';
import { testLedgerReadModel } from '../support/test-ledger/ledger.read-model';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('projections CLI', () => {
  it('lists projections and rebuilds one to the same rows', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cli-'));
    try {
      const server = await startTestApp({ DATA_DIR: dataDir, SEED_MARKETS: 'false' });
      for (let i = 0; i < 4; i++) {
        const open = await server.app.inject({ method: 'POST', url: '/api/v1/test-ledgers', payload: { owner: `o${i}` } });
        await server.app.inject({ method: 'POST', url: `/api/v1/test-ledgers/${open.json().ledger_id}/credits`, payload: { amount: String(10 * (i + 1)) } });
      }
      const before = (await server.app.inject({ method: 'GET', url: '/api/v1/test-ledgers?limit=100' })).json().items;
      await server.close();

      const lines: string[] = [];
      const io: CliIo = { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`), interactive: false };
      const config = loadPlatformConfig({ DATA_DIR: dataDir });
      expect(await runProjectionsCli(['list'], config, [testLedgerReadModel], io)).toBe(0);
      expect(lines).toContainEqual(expect.stringMatching(/^test-ledger-balances\tcheckpoint 8\tlag 0/));

      expect(await runProjectionsCli(['rebuild', 'test-ledger-balances'], config, [testLedgerReadModel], io)).toBe(0);
      expect(lines).toContainEqual('test-ledger-balances: 100% (8/8)');
      expect(lines).toContainEqual(expect.stringMatching(/^rebuilt test-ledger-balances: 8 events up to position 8/));
      expect(await runProjectionsCli(['rebuild', 'nope'], config, [testLedgerReadModel], io)).toBe(2);
      expect(await runProjectionsCli(['explode'], config, [testLedgerReadModel], io)).toBe(2);

      const again = await startTestApp({ DATA_DIR: dataDir, SEED_MARKETS: 'false' });
      const after = (await again.app.inject({ method: 'GET', url: '/api/v1/test-ledgers?limit=100' })).json().items;
      await again.close();
      expect(after).toEqual(before);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
