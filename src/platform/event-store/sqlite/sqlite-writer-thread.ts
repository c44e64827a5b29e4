/**
 * The SQLite event store's side of its writer thread (sqlite-writer.worker.ts): one batch at a time, answered in order.
 */
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../workers/module-worker';
import type { AppendRequest, BatchOutcome } from './sqlite-append-batch';
import type { WriterAnswer, WriterRequest } from './sqlite-writer.worker';

/**
 * The store's side of its writer thread: one batch at a time, answered in order. The thread does not keep the
 * process alive while idle; a commit under way does. If it dies, every append in its hands and after fails.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve(outcome: BatchOutcome): void; reject(error: unknown): void }> = [];
  private broken: Error | null = null;
  private onClosed: (() => void) | null = null;

  constructor(filename: string) {
    this.worker = startModuleWorker(join(__dirname, 'sqlite-writer.worker'), { filename });
    this.worker.unref();
    this.worker.on('message', (message: WriterAnswer) => {
      if (message.ready) return;
      if (message.closed) return this.onClosed?.();
      const waiter = this.waiting.shift();
      if (this.waiting.length === 0) this.worker.unref();
      if (!waiter) return;
      if (message.outcome) waiter.resolve(message.outcome);
      else waiter.reject(Object.assign(new Error(message.failure!.message), { code: message.failure!.code }));
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => {
      this.fail(new Error(`the event store's writer thread exited (code ${code})`));
      this.onClosed?.();
    });
  }

  commit(appends: AppendRequest[]): Promise<BatchOutcome> {
    if (this.broken) return Promise.reject(this.broken);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ appends } satisfies WriterRequest);
    });
  }

  private fail(error: Error): void {
    this.broken ??= error;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.broken);
  }

  /** Closes the thread's connection and ends it. */
  async close(): Promise<void> {
    if (this.broken) return;
    await new Promise<void>((resolve) => {
      this.onClosed = resolve;
      this.worker.ref();
      this.worker.postMessage({ close: true } satisfies WriterRequest);
    });
    this.broken = new Error('event store is closed');
  }
}
