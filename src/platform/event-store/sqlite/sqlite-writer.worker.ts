/**
 * The SQLite event store's writer thread: its own connection to the log, committing the batches the store sends, one
 * at a time, in the order sent. better-sqlite3 is synchronous, so a commit's fsync here no longer stops the request
 * thread's event loop (issue 30). Answers `{ outcome }`, or `{ failure }` when the transaction as a whole failed
 * (a disk error), in which case nothing of the batch was written.
 */
import { parentPort } from 'node:worker_threads';
import { moduleWorkerData } from '../../workers/module-worker';
import { batchCommitter, openLogConnection, type AppendRequest, type BatchOutcome } from './sqlite-append-batch';

export interface WriterRequest {
  appends?: AppendRequest[];
  close?: true;
}

export interface WriterAnswer {
  ready?: true;
  outcome?: BatchOutcome;
  failure?: { message: string; code?: string };
  closed?: true;
}

const { filename } = moduleWorkerData<{ filename: string }>();
const db = openLogConnection(filename);
const commit = batchCommitter(db);
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  if (request.close) {
    db.close();
    port.postMessage({ closed: true } satisfies WriterAnswer);
    port.close();
    return;
  }
  try {
    port.postMessage({ outcome: commit(request.appends!) } satisfies WriterAnswer);
  } catch (error) {
    const e = error as { message?: unknown; code?: unknown };
    port.postMessage({ failure: { message: String(e?.message ?? error), code: typeof e?.code === 'string' ? e.code : undefined } } satisfies WriterAnswer);
  }
});
port.postMessage({ ready: true } satisfies WriterAnswer);
