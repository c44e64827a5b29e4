/**
 * A second writer of the read models in a thread of its own, as issue 48's worker threads will be: its own
 * ReadModelDatabase (its own SQLite connections) on the same DATA_DIR. better-sqlite3 waits for a lock synchronously,
 * so a second writer in the test's own thread would stop the first one from ever finishing.
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { startModuleWorker } from '../../src/platform/workers/module-worker';

/** A read-modify-write of a checkpoint's position; `held` runs between the read and the write (the other side's turn). */
export async function addToPosition(db: ReadModelDatabase, name: string, amount: number, held: () => Promise<unknown> = nextTurn): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = (await tx.query(db.sql('SELECT position FROM projection_checkpoints WHERE name = ?'), [name])) as { position: number | string }[];
    await held();
    await tx.query(db.sql('UPDATE projection_checkpoints SET position = ? WHERE name = ?'), [Number(row.position) + amount, name]);
  });
}

export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the writer thread is asked: `times` additions one after another, each held `holdMs` between read and write. */
export interface AddRequest {
  id: number;
  name: string;
  amount: number;
  times: number;
  holdMs?: number;
}

/** `trying`: about to begin; `holding`: read, now holding its transaction open; then `done` or `failed`. */
export interface WriterReport {
  id: number;
  state: 'ready' | 'trying' | 'holding' | 'done' | 'failed' | 'closed';
  message?: string;
}

export class WriterThread {
  private readonly listeners = new Set<(report: WriterReport) => void>();
  private nextId = 1;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (report: WriterReport) => this.listeners.forEach((l) => l(report)));
  }

  static async start(dataDir: string): Promise<WriterThread> {
    const thread = new WriterThread(startModuleWorker(join(__dirname, 'read-model-writer.worker'), { dataDir }));
    const ready = thread.report(0, 'ready');
    thread.worker.once('error', (error) => thread.listeners.forEach((l) => l({ id: 0, state: 'failed', message: String(error) })));
    await ready;
    return thread;
  }

  /** Sends the additions; each report of them arrives through `report` (ask for it before it can arrive). */
  add(request: Omit<AddRequest, 'id'>): number {
    const id = this.nextId++;
    this.worker.postMessage({ ...request, id } satisfies AddRequest);
    return id;
  }

  /** Resolves at the request's report in `state`; rejects if it failed instead. */
  report(id: number, state: WriterReport['state']): Promise<WriterReport> {
    return new Promise((resolve, reject) => {
      const listener = (report: WriterReport) => {
        if (report.id !== id || (report.state !== state && report.state !== 'failed')) return;
        this.listeners.delete(listener);
        if (report.state === state) resolve(report);
        else reject(new Error(`writer thread: ${report.message}`));
      };
      this.listeners.add(listener);
    });
  }

  async close(): Promise<void> {
    const closed = this.report(-1, 'closed');
    this.worker.postMessage('close');
    await closed;
    await this.worker.terminate();
  }
}
