import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which projection outboxes are being kept (src/platform/outbox/outbox.ts, `ProjectionOutbox.seedStep`): state `kept`
 * means the read model's topic was seeded with its rows at `position` and every change since went to the outbox;
 * `seeding` is a seed under way, `last_key` the last row it put.
 */
export class OutboxSeeds1764000009500 implements MigrationInterface {
  name = 'OutboxSeeds1764000009500';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'outbox_seeds',
        columns: [
          { name: 'read_model', type: 'varchar', length: '128', isPrimary: true },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'last_key', type: 'varchar', length: '200', isNullable: true },
          { name: 'seed_id', type: 'varchar', length: '32' },
          { name: 'position', type: 'varchar', length: '40' },
          { name: 'rows_seeded', type: 'bigint' },
          { name: 'updated_at', type: 'varchar', length: '40' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('outbox_seeds');
  }
}
