/**
 * A latency-client.ts worker thread as the benchmarks drive it: one keep-alive connection to `url`, asked one message
 * at a time (`ask`), or told to repeat until stopped (`repeat`: the stop answers what it did).
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export class ClientWorker {
  private constructor(
    readonly worker: Worker,
    private readonly guard: <T>(work: Promise<T>) => Promise<T>,
  ) {}

  /** `guard` races every wait (e.g. against a server process that died), so a dead peer fails the run at once. */
  static async open(url: string, guard: <T>(work: Promise<T>) => Promise<T> = (work) => work): Promise<ClientWorker> {
    const worker = new Worker(join(__dirname, 'latency-client.js'), { workerData: { url } });
    await guard(
      new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      }),
    );
    return new ClientWorker(worker, guard);
  }

  ask<T>(message: unknown): Promise<T> {
    return this.guard(
      new Promise<T>((resolve, reject) => {
        this.worker.once('message', resolve);
        this.worker.once('error', reject);
        this.worker.postMessage(message);
      }),
    );
  }

  /** Starts a repeating kind (`flow`, `timed`); `stop` ends it and answers what it did. */
  repeat<T>(message: unknown): { stop(): Promise<T> } {
    const done = this.ask<T>(message);
    return {
      stop: () => {
        this.worker.postMessage({ kind: 'stop' });
        return done;
      },
    };
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
