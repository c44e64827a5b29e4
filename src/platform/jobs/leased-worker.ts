/**
 * A job under a lease in projection_checkpoints (the Kafka publisher and relay, the billing rater), on the platform's
 * one lease loop (src/platform/projections/lease-loop.ts, which the projectors and the matching engines use too): the
 * lease row's position is where the job resumes. Subclasses do the work in `work`, and advance the position with `advance` inside the transaction that
 * also proves they still own the lease.
 */
import type { EntityManager } from 'typeorm';
import { CheckpointStore } from '../projections/checkpoint.store';
import { LeaseLoop, type LeaseState } from '../projections/lease-loop';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import type { KafkaLogger } from '../kafka/kafka-client';
import type { LeaseOwnerIdentity } from '../projections/node-identity';

export type WorkerState = LeaseState;

export interface LeasedWorkerOptions {
  logger: KafkaLogger;
  /** First delay after a failure; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Whose lease: the node's identity in the server; a random one otherwise (the CLI, tests). */
  identity?: LeaseOwnerIdentity;
}

export abstract class LeasedWorker {
  /** The stored position (what the lease row says was done). */
  position = 0n;
  readonly leases: CheckpointStore;
  /** A one-off run under the lease (the CLI's replay) counts as running. */
  protected oneOffRunning = false;
  private readonly lease: LeaseLoop;
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void; timer: NodeJS.Timeout }>();

  protected constructor(
    readonly leaseName: string,
    protected readonly db: ReadModelDatabase,
    protected readonly options: LeasedWorkerOptions,
  ) {
    this.leases = new CheckpointStore(db, options.identity);
    this.lease = new LeaseLoop(
      {
        leaseName,
        acquire: async () => {
          const from = await this.leases.acquire(leaseName);
          this.position = from;
          return from;
        },
        work: (from) => this.work(from),
        interrupt: () => this.interrupt(),
        renew: () => this.leases.renew(leaseName),
        release: () => this.leases.release(leaseName),
        failed: (error) => this.options.logger.error({ job: leaseName, err: error }, `${leaseName} failed; retrying from its checkpoint`),
      },
      { retryDelayMs: options.retryDelayMs ?? 500, maxRetryDelayMs: options.maxRetryDelayMs ?? 5000, assignment: this.leases.assignment },
    );
  }

  get state(): WorkerState {
    return this.oneOffRunning ? 'running' : this.lease.state;
  }

  get lastError(): string | null {
    return this.lease.lastError;
  }

  /** A renewal found another process owns the lease now: `work` loops end at it. */
  protected get leaseLost(): boolean {
    return this.lease.leaseLost;
  }

  /** Set once stop was asked: `work` loops end at it. */
  protected get stopping(): boolean {
    return this.lease.isStopping;
  }

  /** Works until stopped: catch up from the stored position, then follow. */
  protected abstract work(from: bigint): Promise<void>;

  /** Called when the lease is lost or the job stops: cut short whatever `work` is waiting on. */
  protected abstract interrupt(): Promise<void>;

  start(): void {
    this.lease.start();
  }

  async stop(): Promise<void> {
    await this.lease.stop();
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
    this.lease.recovered();
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
    this.lease.startRenewing();
    return from;
  }

  protected async releaseLease(): Promise<void> {
    this.lease.stopRenewing();
    await this.leases.release(this.leaseName).catch(() => undefined);
  }

  /** A pause in `work` that a stop cuts short. */
  protected sleep(ms: number): Promise<void> {
    return this.lease.sleep(ms);
  }
}
