/** The test ledger's read model: one balance row per ledger, kept by `TestLedgerProjector`. */
import { Column, Entity, PrimaryColumn, Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port';
import type { Projector } from '../../../src/platform/projections/projector';
import type { ReadModelDefinition } from '../../../src/platform/read-model/read-model.definition';

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
    const repo = tx.getRepository(TestLedgerBalance);
    const data = event.data as { ledger_id: string; owner?: string; amount?: string };
    if (event.type === 'LedgerOpened') {
      await repo.insert({ ledger_id: data.ledger_id, owner: data.owner!, balance: '0', entries: 0, version: Number(event.revision), updated_at: event.occurred_at });
      return;
    }
    const row = await repo.findOneByOrFail({ ledger_id: data.ledger_id });
    const delta = BigInt(data.amount!) * (event.type === 'LedgerDebited' ? -1n : 1n);
    await repo.update(
      { ledger_id: data.ledger_id },
      { balance: (BigInt(row.balance) + delta).toString(), entries: row.entries + 1, version: Number(event.revision), updated_at: event.occurred_at },
    );
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
