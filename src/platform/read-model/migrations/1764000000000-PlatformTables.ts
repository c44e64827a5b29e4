import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/** Tables every deployment has: projection checkpoints (with their lease) and the idempotency store. */
export class PlatformTables1764000000000 implements MigrationInterface {
  name = 'PlatformTables1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'projection_checkpoints',
        columns: [
          { name: 'name', type: 'varchar', length: '128', isPrimary: true },
          { name: 'position', type: 'varchar', length: '40' },
          { name: 'owner', type: 'varchar', length: '64', isNullable: true },
          { name: 'lease_until', type: 'bigint', isNullable: true },
          { name: 'updated_at', type: 'varchar', length: '40' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'idempotency_records',
        columns: [
          { name: 'scope', type: 'varchar', length: '200', isPrimary: true },
          { name: 'idempotency_key', type: 'varchar', length: '255', isPrimary: true },
          { name: 'fingerprint', type: 'varchar', length: '64' },
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'status_code', type: 'integer', isNullable: true },
          { name: 'response_body', type: 'text', isNullable: true },
          { name: 'response_headers', type: 'text', isNullable: true },
          { name: 'created_at', type: 'bigint' },
          { name: 'expires_at', type: 'bigint' },
        ],
        indices: [{ name: 'idx_idempotency_expires', columnNames: ['expires_at'] }],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('idempotency_records');
    await q.dropTable('projection_checkpoints');
  }
}
