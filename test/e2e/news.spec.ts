/** News administration over HTTP on SQLite read models: the shared suite (test/support/news-suite.ts). */
import { newsSuite } from '../support/news-suite';

newsSuite('news administration (sqlite read models)', () => ({}));
