/** Composite price feeds over HTTP on SQLite read models: the shared suite (test/support/price-feeds-suite.ts). */
import { priceFeedsSuite } from '../support/price-feeds-suite';

priceFeedsSuite('price feeds (sqlite read models)', () => ({}));
