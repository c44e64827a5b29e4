/** Billing over HTTP on SQLite read models: the shared suite (test/support/billing-suite.ts). */
import { billingSuite } from '../support/billing-suite';

billingSuite('billing (sqlite read models)', () => ({}));
