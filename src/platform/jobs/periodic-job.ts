/**
 * A sweep a node runs every `intervalMs` (closures past their grace period, intents past their expiry): never two
 * runs at once on a node, a failure reported and retried at the next tick, and on shutdown no new run while the one
 * in progress is awaited. The work itself must be safe to repeat (other nodes sweep too).
 */
import { CheckpointStore, LeaseLost } from '../projections/checkpoint.store';

export class PeriodicJob {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.run()
        .catch(this.onError)
        .finally(() => (this.running = null));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

/**
 * A sweep one node runs at a time: each tick takes (or renews) the lease `name` in projection_checkpoints and runs
 * only when this node holds it; another live holder makes the tick a no-op. The lease lapses on its own when the
 * holder stops (LEASE_MS), or is released by `release`.
 */
export class LeasedSweep {
  constructor(
    private readonly leases: CheckpointStore,
    readonly name: string,
    private readonly run: () => Promise<number>,
  ) {
    leases.declare(name);
  }

  /** Runs the sweep if this node holds (or takes) the lease; null when another node does. */
  async tick(): Promise<number | null> {
    try {
      await this.leases.acquire(this.name);
    } catch (error) {
      if (error instanceof LeaseLost) return null;
      throw error;
    }
    return this.run();
  }

  release(): Promise<void> {
    return this.leases.release(this.name);
  }
}

/**
 * A module's leased sweep as a provider: every `intervalMs` the node holding lease `name` runs `sweep` (a PeriodicJob
 * around a LeasedSweep), started when the application boots and stopped, with the lease released, when it shuts down.
 * `tick` runs it once now (tests, and a clock the test moves).
 */
export abstract class LeasedSweepService {
  private job: PeriodicJob | null = null;
  private readonly leased: LeasedSweep;

  protected constructor(
    leases: CheckpointStore,
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {
    this.leased = new LeasedSweep(leases, name, () => this.sweep());
  }

  /** One run's work under the lease; answers how much it did. Safe to repeat (another node may have run it). */
  protected abstract sweep(): Promise<number>;

  onApplicationBootstrap(): void {
    this.job = new PeriodicJob(this.intervalMs, () => this.leased.tick(), (err) => this.log.warn({ err }, `${this.name} failed`));
    this.job.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.job?.stop();
    await this.leased.release().catch(() => undefined);
  }

  /** One run under the lease (null: another node holds it). */
  tick(): Promise<number | null> {
    return this.leased.tick();
  }
}
