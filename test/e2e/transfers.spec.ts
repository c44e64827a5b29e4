/** Transfers over HTTP on SQLite read models: the shared suite (test/support/transfers-suite.ts). */
import { transfersSuite } from '../support/transfers-suite';

transfersSuite('transfers (sqlite read models)', () => ({}));
