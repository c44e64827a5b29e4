/** Composite price feeds over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { suiteSchema } from '../support/databases';
import { priceFeedsSuite } from '../support/price-feeds-suite';

const schema = suiteSchema();
priceFeedsSuite('price feeds (postgres read models)', schema.env, schema.drop);
