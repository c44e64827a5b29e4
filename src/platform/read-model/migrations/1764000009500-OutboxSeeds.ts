import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which projection outboxes are being kept, and since when (src/platform/outbox/outbox.ts, `ProjectionOutbox.sync`):
 * a row means the read model's topic was seeded with its rows at `position` and every change since went to the outbox.
 */
export class OutboxSeeds1764000009500 implements MigrationInterface {
  name = 'OutboxSeeds1764000009500';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'outbox_seeds',
        columns: [
          { name: 'read_model', type: 'varchar', length: '128', isPrimary: true },
          { name: 'position', type: 'varchar', length: '40' },
          { name: 'rows_seeded', type: 'bigint' },
          { name: 'seeded_at', type: 'varchar', length: '40' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('outbox_seeds');
  }
}
