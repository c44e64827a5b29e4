/** Transfers over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { suiteSchema } from '../support/databases';
import { transfersSuite } from '../support/transfers-suite';

const schema = suiteSchema();
transfersSuite('transfers (postgres read models)', schema.env, schema.drop);
