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
 * holder stops (LEASE_MS), or is released by `release`. With a membership the sweep is one of the node's jobs like the
 * others: woken (a tick at once) when it becomes this node's share, a crashed holder's included, so it is held again
 * within a heartbeat rather than at its next tick; its lease let go between ticks when it becomes another node's.
 */
export class LeasedSweep {
  private inFlight: Promise<number | null> | null = null;
  private readonly detach: () => void;

  constructor(
    private readonly leases: CheckpointStore,
    readonly name: string,
    private readonly run: () => Promise<number>,
  ) {
    const self = this;
    this.detach = leases.declare(name, {
      get running() {
        return self.inFlight !== null || leases.holds(name);
      },
      // A failed tick is run again, and reported, by the next periodic one.
      wake: () => {
        if (this.inFlight === null) void this.tick().catch(() => undefined);
      },
      handOff: () => {
        if (this.inFlight === null) void leases.release(name).catch(() => undefined);
      },
      lose: () => undefined,
    });
  }

  /** Runs the sweep if this node holds (or takes) the lease; null when another node does. After any tick in flight. */
  tick(): Promise<number | null> {
    const next = (this.inFlight ?? Promise.resolve(null)).catch(() => null).then(() => this.runUnderLease());
    this.inFlight = next;
    const clear = (): void => {
      if (this.inFlight === next) this.inFlight = null;
    };
    next.then(clear, clear);
    return next;
  }

  private async runUnderLease(): Promise<number | null> {
    try {
      await this.leases.acquire(this.name);
    } catch (error) {
      if (error instanceof LeaseLost) return null;
      throw error;
    }
    return this.run();
  }

  /** Lets the lease go and no longer takes part in the node's assignment (shutdown). */
  release(): Promise<void> {
    this.detach();
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
