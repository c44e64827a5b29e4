/** Asset collections over HTTP on PostgreSQL read models (a schema of its own): the same suite as on SQLite. */
import { assetCollectionsSuite } from '../support/asset-collections-suite';
import { suiteSchema } from '../support/databases';

const schema = suiteSchema();
assetCollectionsSuite('asset collections (postgres read models)', schema.env, schema.drop);
