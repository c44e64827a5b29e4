/** Commerce over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { commerceSuite } from '../support/commerce-suite';
import { suiteSchema } from '../support/databases';

const schema = suiteSchema();
commerceSuite('commerce (postgres read models)', schema.env, schema.drop);
