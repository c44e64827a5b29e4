/** News administration over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { suiteSchema } from '../support/databases';
import { newsSuite } from '../support/news-suite';

const schema = suiteSchema();
newsSuite('news administration (postgres read models)', schema.env, schema.drop);
