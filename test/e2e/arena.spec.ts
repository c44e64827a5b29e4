/** Arena administration over HTTP on SQLite read models: the shared suite (test/support/arena-suite.ts). */
import { arenaSuite } from '../support/arena-suite';

arenaSuite('arena administration (sqlite read models)', () => ({}));
