/** Arena administration over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { arenaSuite } from '../support/arena-suite';
import { suiteSchema } from '../support/databases';

const schema = suiteSchema();
arenaSuite('arena administration (postgres read models)', schema.env, schema.drop);
