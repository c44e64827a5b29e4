/** Billing over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { billingSuite } from '../support/billing-suite';
import { suiteSchema } from '../support/databases';

const schema = suiteSchema();
billingSuite('billing (postgres read models)', schema.env, schema.drop);
