/**
 * The read models' write lock the threads of a process share (src/platform/workers/process-write-lock.ts): a thread
 * waiting for it keeps its event loop (the wait is a promise), a thread that dies holding it is freed by the main
 * thread, and one that lets go while another waits lets that one go first.
 */
import { Worker } from 'node:worker_threads';
import { ProcessWriteLock } from '../../src/platform/workers/process-write-lock';

/** A worker that takes the lock (the same protocol: holder = threadId + 1), says so, and lets go when told (or never). */
function holder(buffer: SharedArrayBuffer): { worker: Worker; holding: Promise<void>; letGo(): void } {
  const worker = new Worker(
    `const { workerData, parentPort, threadId } = require('node:worker_threads');
     const cell = new Int32Array(workerData);
     let counted = false;
     while (Atomics.compareExchange(cell, 0, 0, threadId + 1) !== 0) {
       if (!counted) Atomics.add(cell, 1, (counted = true) ? 1 : 0);
       Atomics.wait(cell, 0, Atomics.load(cell, 0), 50);
     }
     if (counted) Atomics.sub(cell, 1, 1);
     parentPort.postMessage('holding');
     parentPort.on('message', () => { Atomics.store(cell, 0, 0); Atomics.notify(cell, 0); parentPort.postMessage('released'); });`,
    { eval: true, workerData: buffer },
  );
  const holding = new Promise<void>((resolve) => worker.once('message', () => resolve()));
  return { worker, holding, letGo: () => worker.postMessage('go') };
}

describe('the process write lock', () => {
  it('waits for another thread\'s hold as a promise: the event loop goes on meanwhile', async () => {
    const lock = new ProcessWriteLock();
    const other = holder(lock.buffer);
    await other.holding;
    expect(lock.holder).toBe(other.worker.threadId);
    let acquired = false;
    const acquiring = lock.acquire().then(() => (acquired = true));
    // Timers still run on this thread while it waits.
    await new Promise((r) => setTimeout(r, 50));
    expect(acquired).toBe(false);
    other.letGo();
    await acquiring;
    expect(lock.holder).not.toBe(other.worker.threadId);
    lock.release();
    expect(lock.holder).toBeNull();
    await other.worker.terminate();
  });

  it('is freed by the main thread when the thread holding it ends', async () => {
    const lock = new ProcessWriteLock();
    const other = holder(lock.buffer);
    await other.holding;
    const id = other.worker.threadId;
    await other.worker.terminate();
    let acquired = false;
    const acquiring = lock.acquire().then(() => (acquired = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(acquired).toBe(false);
    lock.releaseHeldBy(id);
    await acquiring;
    lock.release();
    // Freeing on behalf of a thread that does not hold it changes nothing.
    await lock.acquire();
    lock.releaseHeldBy(id);
    expect(lock.holder).not.toBeNull();
    lock.release();
  });

  it('lets a waiting thread go first after letting go: it yields while the lock is free and another waits', async () => {
    const lock = new ProcessWriteLock();
    const cell = new Int32Array(lock.buffer);
    await lock.acquire();
    // Another thread waits (it counts itself in [1], as ProcessWriteLock.acquire does while it waits).
    Atomics.add(cell, 1, 1);
    lock.release();
    let acquired = false;
    const again = lock.acquire().then(() => (acquired = true));
    await new Promise((r) => setTimeout(r, 5));
    // Free, and still not taken: this thread is leaving it to the waiter.
    expect([acquired, lock.holder]).toEqual([false, null]);
    // The waiter took it and let go again (or gave up): this thread takes its turn.
    Atomics.sub(cell, 1, 1);
    await again;
    expect(lock.holder).not.toBeNull();
    lock.release();
  });
});
