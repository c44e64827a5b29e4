/** Commerce over HTTP on SQLite read models: the shared suite (test/support/commerce-suite.ts). */
import { commerceSuite } from '../support/commerce-suite';

commerceSuite('commerce (sqlite read models)', () => ({}));
