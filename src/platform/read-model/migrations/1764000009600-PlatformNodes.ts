import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The live nodes (src/platform/jobs/node-membership.ts): each node's row says which single-writer jobs it can run and
 * until when it counts as alive (renewed with its leases at every heartbeat). `lock_key` is the PostgreSQL session
 * advisory lock the node holds while its process lives: a crashed node's lock goes with its connection, so the others
 * see it gone at their next heartbeat instead of when its leases run out.
 */
export class PlatformNodes1764000009600 implements MigrationInterface {
  name = 'PlatformNodes1764000009600';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'platform_nodes',
        columns: [
          { name: 'owner', type: 'varchar', length: '96', isPrimary: true },
          { name: 'node_id', type: 'varchar', length: '64' },
          { name: 'jobs', type: 'text' },
          { name: 'lock_key', type: 'varchar', length: '24', isNullable: true },
          { name: 'alive_until', type: 'bigint' },
          { name: 'started_at', type: 'varchar', length: '40' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('platform_nodes');
  }
}
