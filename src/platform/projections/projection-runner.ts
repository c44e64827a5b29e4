/**
 * The one projection runner. Each projector consumes the global log from its checkpoint; every batch of events is
 * applied and the checkpoint advanced in one read-model transaction, so a crash never leaves a row ahead of or
 * behind its checkpoint. Command handlers wait on `waitFor` for read-your-writes.
 */
import type { EventStore, PassOver, RecordedEvent } from '../event-store/event-store.port';
import type { ReadModelDatabase } from '../read-model/read-model.datasource';
import { currentContext, newId } from '../context/request-context';
import { outboxesOf, publicationsOf, type Publication } from '../outbox/outbox';
import { CheckpointStore, LeaseLost } from './checkpoint.store';
import { LeaseLoop } from './lease-loop';
import { RemoteCheckpoints } from './remote-checkpoints';
import type { Projector } from './projector';
import type { LeaseOwnerIdentity } from './node-identity';
import { markStage } from '../observability/server-timing';

export type ProjectorState = 'stopped' | 'starting' | 'running' | 'standby' | 'failing' | 'rebuilding';

export interface ProjectorStatus {
  name: string;
  state: ProjectorState;
  checkpoint: bigint;
  last_error: string | null;
  last_applied_at: string | null;
}

export interface RunnerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const silentLogger: RunnerLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

interface Waiter {
  position: bigint;
  names: string[];
  resolve(reached: boolean): void;
  timer: NodeJS.Timeout;
}

interface Running {
  projector: Projector;
  /** Waits (read-your-writes) that name this projector: while any, a commit wakes it first (SubscribeOptions.awaited). */
  awaitedBy: number;
  /** The event types it reads (every type for a projector that `handlesAll`). */
  handles: { has(type: string): boolean };
  status: ProjectorStatus;
  subscription: { close(): Promise<void> } | null;
  /** The projector's lease and its loop (the platform's one lease loop). */
  lease: LeaseLoop;
  /** The checkpoint as stored; `status.checkpoint` runs ahead of it over batches with nothing for this projector. */
  saved: bigint;
  /** Pending write of a checkpoint that moved over such batches only. */
  saveTimer: NodeJS.Timeout | null;
  /** This projector's read-model transactions, one at a time (batches and checkpoint-only writes). */
  queue: Promise<void>;
}

/**
 * A checkpoint that moved only over events the projector ignores is written at most this long after it moved (a
 * restart in between replays those events, which changes nothing); other nodes waiting on it see it that late.
 */
const IDLE_CHECKPOINT_MS = 250;

/** The event types of a projector that reads every event (Projector.handlesAll). */
const EVERY_TYPE = { has: (_type: string): boolean => true };

export interface ProjectionRunnerOptions {
  batchSize?: number;
  logger?: RunnerLogger;
  /** Delay before a failing projector retries (doubles up to 30 s). */
  retryDelayMs?: number;
  /** Rows per transaction when a publishing projector seeds its topic (tests use small pages). */
  seedPageSize?: number;
  /** Whose leases: the node's identity in the server; a random one otherwise (the CLI, tests). */
  identity?: LeaseOwnerIdentity;
}

export class ProjectionRunner {
  readonly checkpoints: CheckpointStore;
  private readonly running = new Map<string, Running>();
  private readonly waiters = new Set<Waiter>();
  private readonly batchSize: number;
  private readonly logger: RunnerLogger;
  private readonly retryDelayMs: number;
  private readonly seedPageSize: number;
  /** The checkpoints of projectors other nodes run (remote-checkpoints.ts). */
  private readonly remote: RemoteCheckpoints;

  constructor(
    private readonly store: EventStore,
    private readonly db: ReadModelDatabase,
    projectors: Projector[],
    options: ProjectionRunnerOptions = {},
  ) {
    this.checkpoints = new CheckpointStore(db, options.identity);
    this.batchSize = options.batchSize ?? 500;
    this.logger = options.logger ?? silentLogger;
    this.retryDelayMs = options.retryDelayMs ?? 500;
    this.seedPageSize = options.seedPageSize ?? 500;
    for (const projector of projectors) {
      if (this.running.has(projector.name)) throw new Error(`two projectors are named ${projector.name}`);
      const r: Running = {
        projector,
        awaitedBy: 0,
        handles: projector.handlesAll ? EVERY_TYPE : new Set(projector.handles),
        status: { name: projector.name, state: 'stopped', checkpoint: 0n, last_error: null, last_applied_at: null },
        subscription: null,
        lease: null as unknown as LeaseLoop,
        saved: 0n,
        saveTimer: null,
        queue: Promise.resolve(),
      };
      r.lease = this.leaseLoop(r);
      this.running.set(projector.name, r);
    }
    this.remote = new RemoteCheckpoints(
      this.checkpoints,
      {
        remote: (names) => names.filter((n) => this.running.has(n) && !this.isLocal(n)),
        show: (name, position, announced) => this.showRemote(name, position, announced),
        checkpoint: (name) => this.running.get(name)?.status.checkpoint ?? 0n,
      },
      () => this.names,
    );
  }

  get names(): string[] {
    return [...this.running.keys()];
  }

  /** Starts every projector in the background. */
  start(): void {
    this.followAnnouncements();
    for (const r of this.running.values()) r.lease.start();
  }

  /** Listens for the checkpoints other nodes announce, so read-your-writes waits for them without polling. */
  followAnnouncements(): void {
    this.remote.follow();
  }

  async stop(): Promise<void> {
    this.remote.stop();
    await Promise.all([...this.running.values()].map((r) => r.lease.stop()));
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      this.removeWaiter(w);
      w.resolve(false);
    }
  }

  status(): ProjectorStatus[] {
    return [...this.running.values()].map((r) => ({ ...r.status }));
  }

  /** Names of the projectors that read any of these event types (but those of every event: Projector.handlesAll). */
  projectorsFor(eventTypes: Iterable<string>): string[] {
    const types = [...eventTypes];
    return [...this.running.values()].filter((r) => !r.projector.handlesAll && types.some((t) => r.handles.has(t))).map((r) => r.projector.name);
  }

  /**
   * Projectors this process runs: their checkpoints are known here without asking the database. Only 'running' ones:
   * a node standing by passes through 'starting' each time it tries the lease (every LEASE_MS/3), and a wait that
   * began then would have followed an in-memory checkpoint nobody advances (a 503 for X-Min-Position on a node that
   * does not hold the projector, seen with three nodes). Whoever holds it writes the stored checkpoint.
   */
  private isLocal(name: string): boolean {
    return this.running.get(name)?.status.state === 'running';
  }

  /**
   * Resolves true once every named projector (default: all) has passed `position`, false after `timeoutMs`.
   * Projectors run here are followed in memory; those another node runs (standby here, or a node started with
   * PROJECTIONS_AUTOSTART=false) through their checkpoints in the shared read-model database.
   */
  async waitFor(position: bigint, names: string[] = this.names, timeoutMs = 2000): Promise<boolean> {
    const remote = names.filter((n) => this.running.has(n) && !this.isLocal(n));
    const local = this.waitLocal(position, names.filter((n) => !remote.includes(n)), timeoutMs);
    if (remote.length === 0) return local;
    return (await this.remote.waitFor(remote, position, Date.now() + timeoutMs)) && local;
  }

  /**
   * Read-your-writes inside a handler that reads back what its own command wrote (the pipeline does the same
   * after the handler): waits until the projectors fed by this request's appends have passed them.
   */
  waitForOwnWrites(timeoutMs = 2000): Promise<boolean> {
    const ctx = currentContext();
    if (!ctx || ctx.commit_position === null) return Promise.resolve(true);
    return this.waitFor(ctx.commit_position, this.projectorsFor(ctx.appended_types), timeoutMs);
  }

  /**
   * A command's answer read back from the read models once they hold the command's own writes. Past the wait the
   * command has still succeeded, so the answer is `pending()` (what the command itself knows) and the response goes
   * out as 202 with X-Position (PLATFORM.md section 1): never a 404 for what was just written, never a lost secret.
   */
  async readBack<T>(read: () => Promise<T>, pending: () => T | Promise<T>, timeoutMs: number): Promise<T> {
    if (await this.waitForOwnWrites(timeoutMs)) {
      const answer = await read();
      markStage('read-back');
      return answer;
    }
    // The status follows the body: were the read models to catch up before the answer is sent, it must still be a 202.
    const ctx = currentContext();
    if (ctx) ctx.read_back_pending = true;
    return pending();
  }

  /** Refreshes the checkpoints of projectors other nodes run (for lag metrics and health on this node). */
  refreshRemote(): Promise<void> {
    return this.remote.refresh();
  }

  /**
   * Shows the checkpoint of a projector another node runs (stored, or announced: only forward). One this node started
   * running meanwhile keeps its own: it is ahead of what it stored (idle checkpoints are saved lazily).
   */
  private showRemote(name: string, position: bigint, announced: boolean): void {
    const r = this.running.get(name);
    if (r && !this.isLocal(name) && (!announced || position > r.status.checkpoint)) r.status.checkpoint = position;
  }

  private waitLocal(position: bigint, names: string[], timeoutMs: number): Promise<boolean> {
    if (this.reached(position, names)) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        position,
        names,
        resolve,
        timer: setTimeout(() => {
          this.removeWaiter(waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      for (const n of names) {
        const r = this.running.get(n);
        if (r) r.awaitedBy += 1;
      }
    });
  }

  private removeWaiter(waiter: Waiter): void {
    if (!this.waiters.delete(waiter)) return;
    for (const n of waiter.names) {
      const r = this.running.get(n);
      if (r) r.awaitedBy -= 1;
    }
  }

  private reached(position: bigint, names: string[]): boolean {
    return names.every((n) => (this.running.get(n)?.status.checkpoint ?? position) >= position);
  }

  private notify(): void {
    for (const w of this.waiters) {
      if (this.reached(w.position, w.names)) {
        clearTimeout(w.timer);
        this.removeWaiter(w);
        w.resolve(true);
      }
    }
  }

  /**
   * A projector on the lease loop: take the lease in turn with a checkpoint-only write still in flight (so it lands, or
   * fails on the lease, first), seed the outbox, then consume from the checkpoint. A failing projector stays
   * 'failing' until a batch applies again, so health checks see it.
   */
  private leaseLoop(r: Running): LeaseLoop {
    const name = r.projector.name;
    return new LeaseLoop(
      {
        leaseName: name,
        acquire: async () => {
          const checkpoint = await this.exclusive(r, () => this.checkpoints.acquire(name));
          r.status.checkpoint = checkpoint;
          r.saved = checkpoint;
          return checkpoint;
        },
        prepare: async (checkpoint) => {
          await this.syncOutbox(r, checkpoint);
          this.notify();
        },
        work: (checkpoint) => this.consume(r, checkpoint),
        interrupt: async () => {
          await r.subscription?.close();
        },
        renew: () => this.checkpoints.renew(name),
        release: () => this.checkpoints.release(name),
        finish: () => this.saveIdleCheckpoint(r),
        stateChanged: (state) => {
          r.status.state = state;
          if (state === 'running' || state === 'standby') this.notify();
        },
        failed: (error) => {
          r.status.last_error = error instanceof Error ? error.message : String(error);
          this.logger.error({ projection: name, err: error }, 'projection batch failed; retrying from its checkpoint');
        },
      },
      { retryDelayMs: this.retryDelayMs, maxRetryDelayMs: 30_000, assignment: this.checkpoints.assignment },
    );
  }

  /**
   * A publishing projector's outbox, before any batch: seeded with every current row if it has not been kept since a
   * known position (Kafka switched on late, or a node without Kafka ran the projector), or marked as not kept when
   * this process does not write it. Page by page, each in a transaction under the lease (advance proves it), so the
   * seed precedes every later change and a stop can cut in between pages (the next start resumes).
   */
  private async syncOutbox(r: Running, checkpoint: bigint): Promise<void> {
    for (const publication of publicationsOf(r.projector)) await this.syncPublication(r, publication, checkpoint);
  }

  private async syncPublication(r: Running, { outbox, published }: Publication, checkpoint: bigint): Promise<void> {
    let seeded = 0;
    try {
      for (;;) {
        if (r.lease.isStopping) return;
        const step = await this.exclusive(r, () =>
          this.db.transaction(async (tx) => {
            await this.checkpoints.advance(tx, r.projector.name, checkpoint);
            return outbox.seedStep(tx, published, checkpoint, newId, this.seedPageSize);
          }),
        );
        seeded += step.rows;
        if (step.done) break;
      }
      if (seeded > 0) this.logger.info({ projection: r.projector.name, topic: outbox.readModel, rows: seeded, position: checkpoint.toString() }, 'projection topic seeded with the current rows');
    } catch (error) {
      // Without Kafka the step only forgets the record: that must not be skipped (a retry follows, as for a batch).
      if (error instanceof LeaseLost || !outbox.enabled) throw error;
      // The read model matters more than its topic: project on. The seed is not recorded as kept, so the next start
      // resumes it (a seed taken later is still the rows' newest state, so it may follow their changes on the topic).
      this.logger.error({ projection: r.projector.name, topic: outbox.readModel, err: error }, 'projection topic not seeded; projecting on, the seed is tried again at the next start');
    }
  }

  private async consume(r: Running, from: bigint): Promise<void> {
    // Commits with nothing for the projector are passed over where the store can (SubscribeOptions.passOver); a stopping
    // projector leaves its checkpoint where the batches left it, as it takes no batch then either.
    // A projector of every event (Projector.handlesAll) has nothing to pass over: it gets every event.
    const passOver: PassOver | undefined = r.projector.handlesAll
      ? undefined
      : {
          types: new Set(r.projector.handles),
          passed: (position, occurredAt) => {
            if (!r.lease.isStopping) this.passed(r, position, occurredAt);
          },
        };
    const subscription = this.store.subscribeToAll({ after: from, passOver, awaited: () => r.awaitedBy > 0 });
    r.subscription = subscription;
    try {
      for await (const batch of subscription.batches(this.batchSize)) {
        if (r.lease.isStopping) break;
        const applying = this.applyBatch(r, batch);
        if (applying) await applying;
      }
    } finally {
      r.subscription = null;
      await subscription.close();
    }
    if (!r.lease.isStopping) throw new LeaseLost(r.projector.name);
  }

  /** Synchronous (no promise) for a batch with nothing for the projector, as most are after a commit. */
  private applyBatch(r: Running, batch: RecordedEvent[]): Promise<void> | undefined {
    if (!batch.some((event) => r.handles.has(event.type))) {
      // Most batches carry nothing for most projectors: no transaction, the read model has passed them as it is.
      const last = batch[batch.length - 1];
      this.passed(r, last.position, last.occurred_at);
      return undefined;
    }
    const last = batch[batch.length - 1].position;
    const mine = batch.filter((event) => r.handles.has(event.type));
    return this.exclusive(r, () =>
      this.checkpoints.commitBatch(r.projector.name, last, async (tx) => {
        if (r.projector.applyBatch) await r.projector.applyBatch(mine, tx);
        else for (const event of mine) await r.projector.apply(event, tx);
      }),
    ).then(() => {
      r.saved = last;
      this.applied(r, last, batch[batch.length - 1].occurred_at);
    });
  }

  /** Events with nothing for the projector, up to `position`: the read model is past them as it is. */
  private passed(r: Running, position: bigint, occurredAt: string): void {
    this.saveIdleCheckpointSoon(r);
    this.applied(r, position, occurredAt);
    this.checkpoints.announcePassed(r.projector.name, position);
  }

  private applied(r: Running, position: bigint, occurredAt: string): void {
    r.status.checkpoint = position;
    r.status.last_error = null;
    r.status.last_applied_at = occurredAt;
    r.lease.recovered();
    this.notify();
  }

  private exclusive<T>(r: Running, work: () => Promise<T>): Promise<T> {
    const run = r.queue.then(work);
    r.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private saveIdleCheckpointSoon(r: Running): void {
    if (r.saveTimer) return;
    r.saveTimer = setTimeout(() => {
      r.saveTimer = null;
      // A lost lease shows at the next batch; any other failure is tried again, or the stored checkpoint would stay
      // behind for as long as the log is quiet (other nodes wait on it).
      this.saveIdleCheckpoint(r).catch((error: unknown) => {
        if (!(error instanceof LeaseLost) && !r.lease.isStopping) this.saveIdleCheckpointSoon(r);
      });
    }, IDLE_CHECKPOINT_MS);
    r.saveTimer.unref();
  }

  /** Stores the checkpoint where batches with nothing for this projector have moved it (under the lease, in turn). */
  private async saveIdleCheckpoint(r: Running): Promise<void> {
    if (r.saveTimer) clearTimeout(r.saveTimer);
    r.saveTimer = null;
    await this.exclusive(r, async () => {
      const position = r.status.checkpoint;
      if (position <= r.saved) return;
      await this.checkpoints.commitBatch(r.projector.name, position, async () => undefined);
      r.saved = position;
    });
  }

  /**
   * Rebuilds one read model from zero: deletes its rows and checkpoint, then replays the log up to the head as it
   * was when the rebuild began. Holds the projector's lease throughout, so a server running it stands by.
   */
  async rebuild(name: string, onProgress?: (position: bigint, head: bigint) => void): Promise<{ events: number; head: bigint }> {
    const r = this.running.get(name);
    if (!r) throw new Error(`unknown projection ${name}; known: ${this.names.join(', ')}`);
    if (r.lease.state !== 'stopped') throw new Error(`projection ${name} is running in this process; stop it first`);
    r.status.state = 'rebuilding';
    await this.checkpoints.acquire(name);
    r.lease.startRenewing();
    try {
      await this.db.transaction(async (tx) => {
        await r.projector.reset(tx);
        await this.checkpoints.reset(tx, name);
        // Rebuilt rows may differ (changed projector code) and the rebuild writes no outbox: the topic needs a new seed.
        for (const outbox of outboxesOf(r.projector)) await outbox.forget(tx);
      });
      r.status.checkpoint = 0n;
      r.saved = 0n;
      const head = await this.store.headPosition();
      let after = 0n;
      let events = 0;
      while (after < head) {
        const page = await this.store.readAll({ after, maxCount: this.batchSize });
        if (page.length === 0) break;
        await this.applyBatch(r, page);
        after = page[page.length - 1].position;
        events += page.length;
        onProgress?.(after, head);
      }
      await this.saveIdleCheckpoint(r);
      return { events, head };
    } finally {
      r.lease.stopRenewing();
      r.status.state = 'stopped';
      await this.checkpoints.release(name);
    }
  }
}
