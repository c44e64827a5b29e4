/**
 * better-sqlite3, the build for the Node.js running: major 13 on Node.js 22 and later, major 12 on Node.js 20.
 *
 * Why two: major 12 wraps its objects with Node's `node::ObjectWrap`, whose destructor on Node.js 24.19 and later
 * aborts the process when a background garbage collection frees one (nodejs/node#65446); major 13 no longer uses it,
 * but it needs Node.js 22 (on 20 it crashes on its first query). Both are installed (13 under the npm alias
 * `better-sqlite3-13`); the API the platform uses is the same. Drop major 12 with Node.js 20.
 *
 * Every SQLite connection of the platform, its CLIs and its tests is opened with this constructor (and TypeORM's
 * read-model connection through its `driver` option), never with `require('better-sqlite3')`: two builds of the
 * library in one process would both work, but only one of them is safe on the running Node.
 */
import type BetterSqlite3 from 'better-sqlite3';

const SQLITE_DRIVER_PACKAGE = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';

export const SqliteDatabase: typeof BetterSqlite3 = require(SQLITE_DRIVER_PACKAGE);
