/**
 * A single-writer job under a lease in projection_checkpoints, the way the projectors, the matching engines and the
 * audit checkpointer hold theirs: take the lease (its row's position is where the job resumes), renew it every
 * LEASE_MS/3 while working, stand by while another live process holds it, back off and resume from the stored
 * position after a failure. Subclasses do the work in `work`, and advance the position with `advance` inside the
 * transaction that also proves they still own the lease.
 */
import type { EntityManager } from 'typeorm';
import { CheckpointStore, LEASE_MS, LeaseLost } from '../projections/checkpoint.store';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import type { KafkaLogger } from './kafka-client';

export type WorkerState = 'stopped' | 'starting' | 'running' | 'standby' | 'failing';

export interface LeasedWorkerOptions {
  logger: KafkaLogger;
  /** First delay after a failure; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
}

export abstract class LeasedWorker {
  state: WorkerState = 'stopped';
  lastError: string | null = null;
  /** The stored position (what the lease row says was done). */
  position = 0n;
  readonly leases: CheckpointStore;
  protected stopping = false;
  private loop: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Set when a renewal found another owner: what `work` then fails with is the lease's loss, not an error. */
  private lostLease = false;
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void; timer: NodeJS.Timeout }>();

  protected constructor(
    readonly leaseName: string,
    protected readonly db: ReadModelDatabase,
    protected readonly options: LeasedWorkerOptions,
  ) {
    this.leases = new CheckpointStore(db);
  }

  /** Works until stopped: catch up from the stored position, then follow. */
  protected abstract work(from: bigint): Promise<void>;

  /** Called when the lease is lost or the job stops: cut short whatever `work` is waiting on. */
  protected abstract interrupt(): Promise<void>;

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.interrupt().catch(() => undefined);
    await this.loop;
    this.loop = null;
    this.state = 'stopped';
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters.clear();
  }

  /** Resolves true once the stored position reached `position`, false after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position >= position) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
    });
  }

  /** Inside a transaction: store the new position, renew the lease, and fail (LeaseLost) if another process owns it. */
  protected async advance(tx: EntityManager, position: bigint): Promise<void> {
    await this.leases.advance(tx, this.leaseName, position);
  }

  /** After the transaction that advanced committed. */
  protected advanced(position: bigint): void {
    this.position = position;
    this.lastError = null;
    if (this.state === 'failing') this.state = 'running';
    for (const w of this.waiters) {
      if (w.position <= position) {
        clearTimeout(w.timer);
        this.waiters.delete(w);
        w.resolve(true);
      }
    }
  }

  /** Takes the lease (for a one-off run such as the CLI's replay); LeaseLost when a live process holds it. */
  protected async takeLease(): Promise<bigint> {
    const from = await this.leases.acquire(this.leaseName);
    this.position = from;
    this.startRenewing();
    return from;
  }

  protected async releaseLease(): Promise<void> {
    this.stopRenewing();
    await this.leases.release(this.leaseName).catch(() => undefined);
  }

  private async run(): Promise<void> {
    const first = this.options.retryDelayMs ?? 500;
    let delay = first;
    while (!this.stopping) {
      try {
        if (this.state !== 'failing') this.state = 'starting';
        this.lostLease = false;
        const from = await this.takeLease();
        if (this.state !== 'failing') this.state = 'running';
        await this.work(from);
        if (!this.stopping) throw new LeaseLost(this.leaseName);
      } catch (error) {
        this.stopRenewing();
        if (this.stopping) break;
        if (error instanceof LeaseLost || this.lostLease) {
          this.state = 'standby';
          await this.sleep(LEASE_MS / 3);
          continue;
        }
        this.state = 'failing';
        this.lastError = error instanceof Error ? error.message : String(error);
        this.options.logger.error({ job: this.leaseName, err: error }, `${this.leaseName} failed; retrying from its checkpoint`);
        await this.sleep(delay);
        delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 5000);
        continue;
      }
      delay = first;
    }
    this.stopRenewing();
    await this.leases.release(this.leaseName).catch(() => undefined);
  }

  private startRenewing(): void {
    this.stopRenewing();
    this.renewTimer = setInterval(() => {
      this.leases.renew(this.leaseName).then(
        (held) => {
          if (!held) {
            this.lostLease = true;
            void this.interrupt().catch(() => undefined);
          }
        },
        () => undefined,
      );
    }, LEASE_MS / 3);
    this.renewTimer.unref();
  }

  private stopRenewing(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  protected sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}
