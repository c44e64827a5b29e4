/** Asset collections over HTTP on SQLite read models: the shared suite (test/support/asset-collections-suite.ts). */
import { assetCollectionsSuite } from '../support/asset-collections-suite';

assetCollectionsSuite('asset collections (sqlite read models)', () => ({}));
