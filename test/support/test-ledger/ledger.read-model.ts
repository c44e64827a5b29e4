/** The test ledger's read model: one balance row per ledger, kept by `TestLedgerProjector`. */
import { Column, Entity, PrimaryColumn, Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port';
import type { Projector } from '../../../src/platform/projections/projector';
import type { ReadModelDefinition } from '../../../src/platform/read-model/read-model.definition';
import { portableSql } from '../../../src/platform/read-model/read-model.datasource';

@Entity({ name: 'test_ledger_balances' })
export class TestLedgerBalance {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  ledger_id!: string;

  @Column({ type: 'varchar', length: 200 })
  owner!: string;

  @Column({ type: 'varchar', length: 40 })
  balance!: string;

  @Column({ type: 'integer' })
  entries!: number;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'varchar', length: 40 })
  updated_at!: string;
}

export class TestLedgerBalances1764000000100 implements MigrationInterface {
  name = 'TestLedgerBalances1764000000100';
  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'test_ledger_balances',
        columns: [
          { name: 'ledger_id', type: 'varchar', length: '32', isPrimary: true },
          { name: 'owner', type: 'varchar', length: '200' },
          { name: 'balance', type: 'varchar', length: '40' },
          { name: 'entries', type: 'integer' },
          { name: 'version', type: 'integer' },
          { name: 'updated_at', type: 'varchar', length: '40' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('test_ledger_balances');
  }
}

export class TestLedgerProjector implements Projector {
  readonly name = 'test-ledger-balances';
  readonly handles = ['LedgerOpened', 'LedgerCredited', 'LedgerDebited'] as const;
  /** Test hook: throw when applying this event id (proves batch atomicity). */
  failOn: string | null = null;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.event_id === this.failOn) throw new Error(`projector failure on ${event.event_id}`);
    const data = event.data as { ledger_id: string; owner?: string; amount?: string };
    if (event.type === 'LedgerOpened') {
      await tx.query(portableSql(tx, 'INSERT INTO test_ledger_balances (ledger_id, owner, balance, entries, version, updated_at) VALUES (?, ?, ?, ?, ?, ?)'), [
        data.ledger_id, data.owner, '0', 0, Number(event.revision), event.occurred_at,
      ]);
      return;
    }
    const [row] = (await tx.query(portableSql(tx, 'SELECT balance, entries FROM test_ledger_balances WHERE ledger_id = ?'), [data.ledger_id])) as Array<{ balance: string; entries: number }>;
    if (!row) throw new Error(`ledger ${data.ledger_id} was never opened`);
    const delta = BigInt(data.amount!) * (event.type === 'LedgerDebited' ? -1n : 1n);
    await tx.query(portableSql(tx, 'UPDATE test_ledger_balances SET balance = ?, entries = ?, version = ?, updated_at = ? WHERE ledger_id = ?'), [
      (BigInt(row.balance) + delta).toString(), Number(row.entries) + 1, Number(event.revision), event.occurred_at, data.ledger_id,
    ]);
  }

  async reset(tx: EntityManager): Promise<void> {
    await tx.getRepository(TestLedgerBalance).clear();
  }
}

export const testLedgerReadModel: ReadModelDefinition = {
  name: 'test-ledger-balances',
  entities: [TestLedgerBalance],
  migrations: [TestLedgerBalances1764000000100],
  projector: TestLedgerProjector,
};
