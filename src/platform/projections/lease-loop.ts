/**
 * The one lease loop of the platform's single-writer jobs (each projector, each market's matching engine, the Kafka
 * publisher and relay): take the job's lease in projection_checkpoints, renew it every LEASE_MS/3 while working, stand
 * by while another live process holds it, back off and start again from the stored position after a failure, and
 * release it when stopped. The job says how to take the lease, what to do with it and how to cut its work short; the
 * loop owns the state every health check and metric reports.
 */
import { leaseDuration, LeaseLost } from './checkpoint.store';
import type { JobAssignment } from './node-identity';

export type LeaseState = 'stopped' | 'starting' | 'running' | 'standby' | 'failing';

export interface LeaseJob {
  readonly leaseName: string;
  /** Takes the lease (LeaseLost when a live process holds it); resolves with where the job resumes. */
  acquire(): Promise<bigint>;
  /** With the lease, before the job counts as running (e.g. rebuilding its in-memory state). */
  prepare?(from: bigint): Promise<void>;
  /** Works until the loop stops (returns) or the lease is lost (throws LeaseLost, or returns after `interrupt`). */
  work(from: bigint): Promise<void>;
  /** Cuts short whatever `work` waits on: called on stop and when a renewal finds another owner. */
  interrupt(): Promise<void>;
  /** Failures that mean another process owns the job after all (besides LeaseLost): stand by, do not back off. */
  standsBy?(error: unknown): boolean;
  /** Renews the lease: false when another process owns it now. */
  renew(): Promise<boolean>;
  release(): Promise<void>;
  /** After the loop has ended, before the lease is released (e.g. storing a checkpoint held in memory). */
  finish?(): Promise<void>;
  /** The state changed (waiters, status fields). */
  stateChanged?(state: LeaseState): void;
  /** A failure that is not a lost lease, before the back-off: log it. */
  failed?(error: unknown): void;
  /** Any failure or loss, before standing by or backing off: drop state that may be ahead of the store. */
  reset?(): void;
}

/** "Equal jitter": a wait between half and all of `ceilingMs`, so processes that failed together do not retry in step. */
export function equalJitter(ceilingMs: number, random: () => number = Math.random): number {
  return Math.ceil(ceilingMs / 2 + (ceilingMs / 2) * random());
}

export interface LeaseLoopOptions {
  /**
   * First delay after a failure; doubles up to maxRetryDelayMs. Each wait is jittered ("equal jitter": between half
   * and all of the current delay), so nodes that failed together do not retry in step; so is the stand-by poll.
   */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  /** The jitter's source of randomness in [0, 1); tests fix it. */
  random?: () => number;
  /**
   * A failing job stays 'failing' until it calls `recovered` (default), or counts as running once prepared again. The
   * back-off resets only on `recovered` either way, so a job that fails on the same input does not retry at full speed.
   */
  failingUntilRecovered?: boolean;
  /**
   * The node's share of the jobs (src/platform/jobs/node-membership.ts): it hands the job off (stops it and releases
   * the lease) when another live node is to run it, and wakes it from its stand-by when it is this node's.
   */
  assignment?: JobAssignment | null;
}

export class LeaseLoop {
  private current: LeaseState = 'stopped';
  lastError: string | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;
  /** Set when a renewal found another owner: what `work` then fails with (or returns) is the lease's loss. */
  private lost = false;
  /** The next back-off after a failure. */
  private delay: number;
  /** The assignment asked to hand the job off: when `work` ends, the lease is released before standing by. */
  private handingOff = false;
  private detach: (() => void) | null = null;

  constructor(
    private readonly job: LeaseJob,
    private readonly options: LeaseLoopOptions,
  ) {
    this.delay = options.retryDelayMs;
  }

  get state(): LeaseState {
    return this.current;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** A renewal found another owner since the lease was taken: a job idle in `work` (a poll) should end. */
  get leaseLost(): boolean {
    return this.lost;
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.delay = this.options.retryDelayMs;
    const loop = this;
    this.detach = this.options.assignment?.attach(this.job.leaseName, {
      handOff: () => this.handOff(),
      wake: () => this.wakeFromStandby(),
      lose: () => this.lose(),
      get running() {
        return loop.current === 'running' || loop.current === 'starting' || loop.current === 'failing';
      },
    }) ?? null;
    this.loop = this.run();
  }

  /** Another live node is to run the job: stop working, release the lease, stand by (this node may get it back). */
  handOff(): void {
    if (this.stopping || this.handingOff || this.current === 'standby' || this.current === 'stopped') return;
    this.handingOff = true;
    this.lost = true;
    void this.job.interrupt().catch(() => undefined);
    this.wake?.();
  }

  /** The node's heartbeat found the lease held by another (this node paused past it): stop working, stand by. */
  private lose(): void {
    if (this.stopping || this.current !== 'running' || this.lost) return;
    this.lost = true;
    void this.job.interrupt().catch(() => undefined);
  }

  /** The job is this node's to run: a stand-by tries the lease now rather than at its next poll. */
  private wakeFromStandby(): void {
    if (this.current === 'standby') this.wake?.();
  }

  /** Ends the loop; the lease is renewed until the job has wound down, then released. */
  async stop(): Promise<void> {
    const loop = this.loop;
    this.stopping = true;
    this.wake?.();
    await this.job.interrupt().catch(() => undefined);
    await loop;
    if (this.loop === loop) this.loop = null;
    this.detach?.();
    this.detach = null;
    this.set('stopped');
  }

  /** The job made progress (a batch applied, a send acknowledged, an input decided): no longer failing, back-off reset. */
  recovered(): void {
    this.lastError = null;
    this.delay = this.options.retryDelayMs;
    if (this.current === 'failing') this.set('running');
  }

  /** Renews the lease every LEASE_MS/3 until stopRenewing: for one-off runs under the lease (rebuild, replay) too. */
  startRenewing(): void {
    this.stopRenewing();
    this.renewTimer = setInterval(() => {
      this.job.renew().then(
        (held) => {
          if (!held) {
            this.lost = true;
            void this.job.interrupt().catch(() => undefined);
          }
        },
        () => undefined,
      );
    }, leaseDuration() / 3);
    this.renewTimer.unref();
  }

  stopRenewing(): void {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  private set(state: LeaseState): void {
    if (this.current === state) return;
    this.current = state;
    this.job.stateChanged?.(state);
  }

  private random(): number {
    return (this.options.random ?? Math.random)();
  }

  private async run(): Promise<void> {
    const { maxRetryDelayMs, failingUntilRecovered = true } = this.options;
    while (!this.stopping) {
      let held = false;
      try {
        if (this.current !== 'failing') this.set('starting');
        this.lost = false;
        const from = await this.job.acquire();
        held = true;
        this.startRenewing();
        await this.job.prepare?.(from);
        // A stop or a lost renewal during the awaits above found nothing to interrupt yet: do not start working.
        if (this.stopping) break;
        if (this.lost) throw new LeaseLost(this.job.leaseName);
        if (this.current !== 'failing' || !failingUntilRecovered) this.set('running');
        await this.job.work(from);
        if (!this.stopping) throw new LeaseLost(this.job.leaseName);
      } catch (error) {
        this.stopRenewing();
        this.job.reset?.();
        if (this.stopping) break;
        const handedOff = this.handingOff;
        if (this.handingOff) {
          // Handed off: what is held in memory is stored, then the lease goes to whoever is to run the job.
          this.handingOff = false;
          await this.job.finish?.().catch(() => undefined);
          await this.job.release().catch(() => undefined);
        }
        const standsBy = error instanceof LeaseLost || this.lost || this.job.standsBy?.(error) === true;
        if (standsBy) {
          // A lease this loop held, lost other than by a hand-off, is counted where the operator sees it: a late write
          // fenced off (a checkpoint's owner, an engine stream's revision), or a renewal that found another owner.
          if (held && !handedOff) this.options.assignment?.lostLease(this.job.leaseName, this.lost ? 'renewal' : 'write_refused');
          this.set('standby');
          // Between 3/4 and all of a third of the lease: stand-by nodes do not all ask for a freed lease at once.
          await this.sleep(Math.ceil((leaseDuration() / 3) * (0.75 + 0.25 * this.random())));
          continue;
        }
        this.lastError = error instanceof Error ? error.message : String(error);
        this.set('failing');
        this.job.failed?.(error);
        const ceiling = this.delay;
        this.delay = Math.min(ceiling * 2, maxRetryDelayMs); // before the pause, so a recovery during it is kept
        await this.sleep(equalJitter(ceiling, () => this.random()));
      }
    }
    this.stopRenewing();
    await this.job.finish?.().catch(() => undefined);
    await this.job.release().catch(() => undefined);
  }

  /** A pause a stop cuts short: the loop's stand-by and back-off, and a job's own waits inside `work` (a poll). */
  sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done(): void {
        clearTimeout(timer);
        if (self.wake === done) self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}
