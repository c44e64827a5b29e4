/** Transfers over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { DataSource } from 'typeorm';
import { transfersSuite } from '../support/transfers-suite';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';

const schema = `t_${hex32().slice(0, 16)}`;

transfersSuite(
  'transfers (postgres read models)',
  () => ({ DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema }),
  async () => {
    const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
    await ds.initialize();
    await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await ds.destroy();
  },
);
