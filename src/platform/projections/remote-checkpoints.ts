/**
 * The checkpoints of projectors other nodes run, as this node follows them for read-your-writes: announced as their
 * batches commit (PostgreSQL NOTIFY, CheckpointStore.onAdvance), and read from the shared table when no announcement
 * can be had (SQLite, a listener that is down) or none came in time (one may have been lost).
 */
import type { CheckpointStore } from './checkpoint.store';

/** How long a wait trusts announcements alone before it reads the stored checkpoints. */
const ANNOUNCED_WAIT_MS = 250;
/** How often a wait reads them where nothing is announced. */
const POLL_MS = 20;

export interface RemoteProjectors {
  /** The projectors of `names` that another node runs now. */
  remote(names: readonly string[]): string[];
  /** Shows a checkpoint: `announced` ones only move it forward; stored ones are shown as they are. */
  show(name: string, position: bigint, announced: boolean): void;
  /** Where the runner shows the projector now. */
  checkpoint(name: string): bigint;
}

export class RemoteCheckpoints {
  private advances: { stop(): void; readonly listening: boolean } | null = null;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly checkpoints: CheckpointStore,
    private readonly projectors: RemoteProjectors,
    private readonly all: () => string[],
  ) {}

  /** Listens for the checkpoints other nodes announce (PostgreSQL), then reads once what was announced before. */
  follow(): void {
    if (this.advances) return;
    this.advances = this.checkpoints.onAdvance((name, position) => {
      this.projectors.show(name, position, true);
      const waiters = [...this.waiters];
      this.waiters.clear();
      for (const wake of waiters) wake();
    });
    // An idle projector announces nothing new: what it stored before this node listened is read once.
    if (this.advances) void this.refresh().catch(() => undefined);
  }

  stop(): void {
    this.advances?.stop();
    this.advances = null;
  }

  /** Reads the stored checkpoints of every projector another node runs (lag metrics, health, a wait's fallback). */
  async refresh(names: string[] = this.projectors.remote(this.all())): Promise<void> {
    for (const [name, position] of await this.checkpoints.positions(names)) if (this.projectors.remote([name]).length > 0) this.projectors.show(name, position, false);
  }

  /** True once every one of `names` (run elsewhere) has passed `position`, false at `deadline` (ms since the epoch). */
  async waitFor(names: string[], position: bigint, deadline: number): Promise<boolean> {
    const passed = (): boolean => names.every((n) => this.projectors.checkpoint(n) >= position);
    // Announced checkpoints only move forward: past the position, or announced so within a moment, no read.
    for (let heard = this.advances?.listening === true; heard && !passed(); ) heard = await this.next(Math.min(ANNOUNCED_WAIT_MS, deadline - Date.now()));
    while (!passed()) {
      await this.refresh(names);
      // Woken by the next announcement; read again when none comes.
      for (let heard = true; heard && !passed(); ) {
        const left = deadline - Date.now();
        if (left <= 0) return passed();
        heard = await this.next(Math.min(this.advances?.listening ? ANNOUNCED_WAIT_MS : POLL_MS, left));
      }
    }
    return true;
  }

  /** True at the next announcement, false after `ms`. */
  private next(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        resolve(false);
      }, Math.max(0, ms));
      const done = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.waiters.add(done);
    });
  }
}
