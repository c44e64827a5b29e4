/**
 * Another thread's connection reading a SQLite file: it holds one read transaction (its snapshot) open for `holdMs`,
 * as a long read of another worker thread would. Reports `reading` once its snapshot is taken, `done` at its end.
 */
import { parentPort } from 'node:worker_threads';
import { moduleWorkerData } from '../../src/platform/workers/module-worker';
import { SqliteDatabase } from '../../src/platform/sqlite-driver';

const { filename, table, holdMs } = moduleWorkerData<{ filename: string; table: string; holdMs: number }>();
const db = new SqliteDatabase(filename);
db.exec('BEGIN');
db.prepare(`SELECT count(*) FROM ${table}`).get();
parentPort!.postMessage('reading');
setTimeout(() => {
  db.exec('COMMIT');
  db.close();
  parentPort!.postMessage('done');
}, holdMs);
