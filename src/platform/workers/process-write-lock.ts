/**
 * The read models' write lock as the threads of one process share it (issue 48). SQLite lets one connection write at a
 * time, and better-sqlite3 waits for another connection's lock on the calling thread, in its busy handler's sleeps: on
 * the main thread that stops HTTP and the engines for as long as a worker thread's batch holds the file, and a worker
 * that takes it again and again (catching up) can starve it. Taking this lock first, before `BEGIN IMMEDIATE`, makes
 * the wait a promise (Atomics.waitAsync): the event loop goes on serving meanwhile. A thread that has just let go while
 * another waits lets that one go first. SQLite's busy timeout stays the backstop for other processes (the CLI).
 *
 * One Int32 pair in a SharedArrayBuffer every thread of the process holds: [0] the holder (its threadId + 1, or 0),
 * [1] how many wait. A thread that dies holding it is freed by the main thread (releaseHeldBy).
 */
import { threadId } from 'node:worker_threads';

/** Atomics.waitAsync (ES2024; in every Node.js this project runs on), which the project's ES2022 library lacks. */
interface WaitAsync {
  waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> };
}

/** How many times (of about a millisecond) a thread that let go waits for a waiting one to take the lock first. */
const YIELD_TURNS = 20;

/** A waiter looks again at least this often, should a wake-up be missed (it cannot, but a lock must not hang). */
const RECHECK_MS = 1000;

export class ProcessWriteLock {
  private readonly cell: Int32Array;
  private readonly me = threadId + 1;
  /** This thread let go while another waited: its next take yields once. */
  private owesTurn = false;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cell = new Int32Array(buffer);
  }

  async acquire(): Promise<void> {
    if (this.owesTurn) {
      this.owesTurn = false;
      // While it is free and another waits, let that one take it (a busy machine may take a while to run it).
      for (let i = 0; i < YIELD_TURNS && Atomics.load(this.cell, 0) === 0 && Atomics.load(this.cell, 1) > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    for (;;) {
      if (Atomics.compareExchange(this.cell, 0, 0, this.me) === 0) return;
      Atomics.add(this.cell, 1, 1);
      try {
        const holder = Atomics.load(this.cell, 0);
        if (holder !== 0) {
          const waiting = (Atomics as unknown as WaitAsync).waitAsync(this.cell, 0, holder, RECHECK_MS);
          if (waiting.async) await waiting.value;
        }
      } finally {
        Atomics.sub(this.cell, 1, 1);
      }
    }
  }

  release(): void {
    if (Atomics.compareExchange(this.cell, 0, this.me, 0) !== this.me) return;
    if (Atomics.load(this.cell, 1) > 0) this.owesTurn = true;
    Atomics.notify(this.cell, 0);
  }

  /** The main thread, for a worker thread that ended (a crash, a terminate) while it held the lock. */
  releaseHeldBy(deadThreadId: number): void {
    if (Atomics.compareExchange(this.cell, 0, deadThreadId + 1, 0) === deadThreadId + 1) Atomics.notify(this.cell, 0);
  }

  /** Who holds it now (tests): a threadId, or null. */
  get holder(): number | null {
    const h = Atomics.load(this.cell, 0);
    return h === 0 ? null : h - 1;
  }
}
