/**
 * The worker threads of this process (issue 48, WORKER_THREADS) and the links between them. On the main thread it
 * starts each worker thread (src/worker-main.ts boots the same modules there, without HTTP), restarts one that dies
 * (it resumes from its checkpoints: its leases pass to its next incarnation at once, as a restarted node's do), stops
 * them before the main thread's stores close, and keeps /health/ready down while one is not running. On both sides it
 * carries the log's commits from the one thread that writes them to the others (ThreadBus), so their subscriptions
 * read them from memory when they land.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { Logger } from 'nestjs-pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import { PLATFORM_CONFIG, type PlatformConfig } from '../config/platform-config';
import { RAW_EVENT_STORE } from '../privacy/sealing-event-store';
import { SubjectKeyStore } from '../privacy/subject-keys';
import type { EventStore } from '../event-store/event-store.port';
import { SqliteEventStore } from '../event-store/sqlite/sqlite.event-store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../projections/node-identity';
import { equalJitter } from '../projections/lease-loop';
import { MetricsService } from '../observability/metrics.service';
import { ReadinessRegistry, type ReadinessCheck } from '../observability/readiness';
import type { ProjectorStatus } from '../projections/projection-runner';
import { startModuleWorker } from './module-worker';
import type { ProcessWriteLock } from './process-write-lock';
import { answerAppend, ForwardingEventStore, type AppendAnswer, type AppendCall } from './forwarded-appends';
import type { ThreadBus } from './thread-bus';
import { threadRoles, workerThreadConfig, type ThreadRoleName } from './thread-layout';

export const THREAD_BUS = Symbol('THREAD_BUS');
/** The read models' write lock of the process (process-write-lock.ts), or null (one thread, PostgreSQL). */
export const WRITE_LOCK = Symbol('WRITE_LOCK');
/** Where the main thread writes its worker threads' log lines (the app's log stream). */
export const PLATFORM_LOG_STREAM = Symbol('PLATFORM_LOG_STREAM');

/**
 * The bus channel of what the log's readers must learn in order: where the log ends after each commit (the thread that
 * committed tells; each worker reads the new rows once, SqliteEventStore.heardUpTo), and each erasure of a data
 * subject's keys (every thread's key cache forgets them at once). One channel, so an erasure is never overtaken by a
 * commit told after it.
 */
export const LOG_CHANNEL = 'log';
export type LogMessage = { moved: bigint; seq: number } | Erasure;
type Erasure = { erased: { subject: string; kids: string[] } };
/**
 * The bus channel from the worker threads to the main thread (which does not listen on LOG_CHANNEL): their erasures,
 * and how far they have read the log channel.
 */
export const FROM_WORKERS_CHANNEL = 'from-workers';
type FromWorkers = Erasure | { read: number; from: string };
/**
 * Back-pressure on the log channel: a worker thread says how far it has read every READ_EVERY commits; while it is more
 * than UNREAD_MAX behind, the main thread stops telling it (its subscriptions find the commits at their next poll and
 * read the file a batch at a time), so a thread that falls behind cannot make the messages queued for it grow.
 */
export const READ_EVERY = 64;
export const UNREAD_MAX = 1024;

/**
 * The log channel's message for the commit numbered `seq` that ends at `position`, the workers having read up to
 * `read`, or none. Only the position: the rows are read once on the worker thread (SqliteEventStore.heardUpTo), which
 * costs it less than their structured clone cost the main thread (about 90 µs an order, measured).
 */
export function commitMessage(position: bigint, seq: number, read: number): LogMessage | null {
  return seq - read > UNREAD_MAX ? null : { moved: position, seq };
}

/** A module's export by file, for a worker thread to load (classes and functions do not cross threads). */
export interface ModuleExport {
  path: string;
  name: string;
}

/** What an app adds beyond the platform's own modules, for its worker threads to add too (the tests' ledger). */
export interface ThreadExtras {
  /** Files loaded first, for what they declare (an event type's privacy classes). */
  imports: string[];
  modules: ModuleExport[];
  readModels: ModuleExport[];
}
export const THREAD_EXTRAS = Symbol('THREAD_EXTRAS');

/** What a worker thread is started with. */
export interface WorkerThreadBoot {
  config: PlatformConfig;
  extras: ThreadExtras | null;
}

/** Main → worker. */
export type ToWorkerThread = { stop: true } | { ask: number; what: keyof ThreadAnswers };
/** Worker → main. */
export type FromWorkerThread = { ready: true } | { failed: string } | { log: string } | { stopped: true } | { answer: number; value: unknown } | AppendCall;
type MetricFamily = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

/** What the main thread asks a worker thread, and what it answers. */
export interface ThreadAnswers {
  /** Its registry, for the process's /metrics. */
  metrics: MetricFamily[];
  /** Its projectors' states and its modules' readiness checks, for the process's /health/ready. */
  health: { projections: ProjectorStatus[]; checks: Record<string, ReadinessCheck> };
}

/** How long a scrape or a readiness check waits for a worker thread's answer (one that does not answer is down). */
const ANSWER_TIMEOUT_MS = 500;

/** src/worker-main(.js|.ts), from this file's place in src/platform/workers (and in dist/src/platform/workers). */
const WORKER_ENTRY = join(__dirname, '..', '..', 'worker-main');
/** A worker thread that does not stop within this long is terminated. */
const STOP_TIMEOUT_MS = 15_000;
/** Restart back-off: doubles from the first to the last while a thread keeps dying; reset once it has run a minute. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;
const STABLE_AFTER_MS = 60_000;

type ThreadState = 'starting' | 'running' | 'restarting' | 'stopped';

/** One worker thread, supervised: started, restarted when it dies, stopped. */
class SupervisedThread {
  state: ThreadState = 'stopped';
  restarts = 0;
  /** The thread that runs now (or boots); `live` also holds one still ending. */
  private worker: Worker | null = null;
  private readonly live = new Set<Worker>();
  private stopping = false;
  private backoffMs = RESTART_FIRST_MS;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly ended = new Map<Worker, () => void>();
  private readonly asked = new Map<number, (value: unknown) => void>();
  private nextQuestion = 0;

  constructor(
    readonly role: ThreadRoleName,
    private readonly boot: WorkerThreadBoot,
    private readonly events: {
      log(line: string): void;
      append(call: AppendCall): Promise<AppendAnswer>;
      warn(obj: object, msg: string): void;
      restarted(role: ThreadRoleName): void;
      /** A thread ended (its connections closed with it): what it held of the process's locks is freed. */
      ended(threadId: number): void;
    },
  ) {}

  /**
   * Starts the thread; resolves once its modules run, rejects if it fails or exits before. A thread that dies after
   * it ran is restarted from its exit (the one place that decides it); one that fails to boot, from this rejection.
   */
  start(): Promise<void> {
    this.state = this.restarts > 0 ? 'restarting' : 'starting';
    return new Promise<void>((resolve, reject) => {
      let booting = true;
      let runningSince = 0;
      const failed = (error: Error): void => {
        if (!booting) return;
        booting = false;
        reject(error);
      };
      const worker = startModuleWorker(WORKER_ENTRY, this.boot);
      this.worker = worker;
      this.live.add(worker);
      worker.on('message', (message: FromWorkerThread) => {
        if ('log' in message) return this.events.log(message.log);
        if ('append' in message) {
          void this.events.append(message).then((answer) => worker.postMessage(answer));
          return;
        }
        if ('ready' in message) {
          booting = false;
          runningSince = Date.now();
          if (!this.stopping && this.worker === worker) this.state = 'running';
          return resolve();
        }
        if ('failed' in message) return failed(new Error(`the ${this.role} worker thread failed to start: ${message.failed}`));
        if ('stopped' in message) this.ended.get(worker)?.();
        if ('answer' in message) {
          this.asked.get(message.answer)?.(message.value);
          this.asked.delete(message.answer);
        }
      });
      worker.on('error', (err) => {
        if (booting) failed(err);
        else this.events.warn({ err, thread: this.role }, 'worker thread failed');
      });
      const id = worker.threadId;
      worker.on('exit', (code) => {
        this.events.ended(id);
        this.live.delete(worker);
        this.ended.get(worker)?.();
        if (booting) return failed(new Error(`the ${this.role} worker thread exited (code ${code}) before it was ready`));
        if (this.worker !== worker || this.stopping) return;
        this.worker = null;
        // A thread that had run a while starts its back-off over; one dying again soon after its restart doubles it.
        if (Date.now() - runningSince > STABLE_AFTER_MS) this.backoffMs = RESTART_FIRST_MS;
        this.restartSoon(code);
      });
    });
  }

  private restartSoon(code: number): void {
    if (this.restartTimer || this.stopping) return;
    this.state = 'restarting';
    this.restarts += 1;
    this.events.restarted(this.role);
    const delay = equalJitter(this.backoffMs);
    this.backoffMs = Math.min(RESTART_MAX_MS, this.backoffMs * 2);
    this.events.warn({ thread: this.role, code, restart_in_ms: Math.round(delay) }, 'worker thread exited; restarting it');
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.start().catch((err: unknown) => {
        this.events.warn({ err, thread: this.role }, 'worker thread restart failed');
        this.restartSoon(1);
      });
    }, delay);
  }

  /** The thread's answer, or null when it is not running or does not answer in time. */
  ask<K extends keyof ThreadAnswers>(what: K): Promise<ThreadAnswers[K] | null> {
    const worker = this.worker;
    if (!worker || this.state !== 'running') return Promise.resolve(null);
    const id = ++this.nextQuestion;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asked.delete(id);
        resolve(null);
      }, ANSWER_TIMEOUT_MS);
      this.asked.set(id, (value) => {
        clearTimeout(timer);
        resolve(value as ThreadAnswers[K]);
      });
      worker.postMessage({ ask: id, what } satisfies ToWorkerThread);
    });
  }

  /** Ends the thread as a crash would (tests): it is restarted. */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Asks every thread of this role to stop its jobs and close its stores; terminates one that does not in time. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.state = 'stopped';
    this.worker = null;
    await Promise.all([...this.live].map((worker) => this.stopOne(worker)));
  }

  private async stopOne(worker: Worker): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void worker.terminate().then(() => resolve()), STOP_TIMEOUT_MS);
      this.ended.set(worker, () => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ stop: true } satisfies ToWorkerThread);
    });
    this.ended.delete(worker);
    await worker.terminate();
  }
}

@Injectable()
export class WorkerThreads implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly threads = new Map<ThreadRoleName, SupervisedThread>();
  private unlink: (() => void) | null = null;

  constructor(
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(NODE_IDENTITY) private readonly identity: LeaseOwnerIdentity,
    @Inject(THREAD_BUS) private readonly bus: ThreadBus | null,
    @Inject(RAW_EVENT_STORE) private readonly store: EventStore,
    private readonly keys: SubjectKeyStore,
    @Inject(PLATFORM_LOG_STREAM) private readonly logStream: NodeJS.WritableStream | null,
    @Inject(THREAD_EXTRAS) private readonly extras: ThreadExtras | null,
    @Inject(WRITE_LOCK) private readonly writeLock: ProcessWriteLock | null,
    readiness: ReadinessRegistry,
    private readonly metrics: MetricsService,
    private readonly logger: Logger,
  ) {
    if (config.workerThreads > 0) readiness.register('worker_threads', () => this.readinessCheck());
  }

  async onApplicationBootstrap(): Promise<void> {
    this.link();
    if (this.config.workerThreads === 0 || !this.bus) return;
    const threads = this.threads;
    new Gauge({
      name: 'platform_worker_thread_up',
      help: 'Whether a worker thread of this process runs (1) or is starting or restarting (0).',
      labelNames: ['thread'],
      registers: [this.metrics.registry],
      collect() {
        for (const t of threads.values()) this.set({ thread: t.role }, t.state === 'running' ? 1 : 0);
      },
    });
    const restarts = new Counter({ name: 'platform_worker_thread_restarts_total', help: 'Worker threads restarted after they died.', labelNames: ['thread'], registers: [this.metrics.registry] });
    for (const role of threadRoles(this.config.workerThreads)) {
      restarts.inc({ thread: role }, 0);
      const thread = new SupervisedThread(role, { config: workerThreadConfig(this.config, this.identity.nodeId, role, this.bus.id, this.writeLock?.buffer), extras: this.extras }, {
        log: (line) => (this.logStream ?? process.stdout).write(line),
        append: (call) => answerAppend(this.store, call),
        warn: (obj, msg) => this.logger.warn(obj, msg),
        restarted: (r) => restarts.inc({ thread: r }),
        ended: (threadId) => this.writeLock?.releaseHeldBy(threadId),
      });
      this.threads.set(role, thread);
    }
    await Promise.all([...this.threads.values()].map((t) => t.start()));
  }

  /**
   * After HTTP has closed (the projectors keep serving read-your-writes until then), before the main thread's stores
   * close (PlatformModule's own hook runs after its providers'): the threads release their leases and close theirs.
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.threads.values()].map((t) => t.stop()));
    this.unlink?.();
    this.bus?.close();
  }

  /** Whether this process runs worker threads. */
  get running(): boolean {
    return this.threads.size > 0;
  }

  /** Every running worker thread's metric families (for the main thread's /metrics: thread-metrics.ts). */
  async threadMetrics(): Promise<MetricFamily[][]> {
    const answers = await Promise.all([...this.threads.values()].map((t) => t.ask('metrics')));
    return answers.filter((a): a is MetricFamily[] => a !== null);
  }

  /** Every worker thread's projectors and readiness checks; null for a thread that is down or does not answer. */
  threadHealth(): Promise<Array<ThreadAnswers['health'] | null>> {
    return Promise.all([...this.threads.values()].map((t) => t.ask('health')));
  }

  /** A worker thread, by role (tests kill one to see its jobs resume). */
  thread(role: ThreadRoleName): { kill(): Promise<void>; readonly state: ThreadState; readonly restarts: number } | undefined {
    return this.threads.get(role);
  }

  /** The log's commits, from the thread that writes them to the threads that follow them. */
  private link(): void {
    const bus = this.bus;
    if (!bus) return;
    const store = this.store instanceof SqliteEventStore ? this.store : this.store instanceof ForwardingEventStore ? this.store.local : null;
    // The main thread writes the log (a worker thread's appends are made there: forwarded-appends.ts) and tells; the
    // worker threads listen. (A BroadcastChannel also delivers to the other channels of its own thread: the main thread
    // does not listen to its own.) Erasures are told both ways: the closure sweep runs on a worker, an admin's on main.
    const links: Array<() => void> = [];
    const erasure = (subject: string, kids: string[]): Erasure => ({ erased: { subject, kids } });
    if (this.config.thread) {
      const role = this.config.thread.role;
      const heard = bus.listen<LogMessage>(LOG_CHANNEL, (message) => {
        if ('erased' in message) return this.keys.forget(message.erased.subject, message.erased.kids);
        store?.heardUpTo(message.moved);
        if (message.seq % READ_EVERY === 0) bus.notify(FROM_WORKERS_CHANNEL, { read: message.seq, from: role } satisfies FromWorkers);
      });
      // Another worker's erasures (the closure sweep runs on the background thread) reach this key cache too.
      const erased = bus.listen<FromWorkers>(FROM_WORKERS_CHANNEL, (message) => {
        if ('erased' in message) this.keys.forget(message.erased.subject, message.erased.kids);
      });
      links.push(() => heard.stop(), () => erased.stop(), this.keys.onErased((subject, kids) => bus.notify(FROM_WORKERS_CHANNEL, erasure(subject, kids))));
    } else {
      let seq = 0;
      // How far each worker thread has read; the slowest sets what the others are sent.
      const readBy = new Map<string, number>();
      const read = (): number => (readBy.size < this.threads.size ? 0 : Math.min(...readBy.values()));
      const fromWorkers = bus.listen<FromWorkers>(FROM_WORKERS_CHANNEL, (message) => {
        if ('erased' in message) this.keys.forget(message.erased.subject, message.erased.kids);
        else readBy.set(message.from, message.read);
      });
      links.push(() => fromWorkers.stop(), this.keys.onErased((subject, kids) => bus.notify(LOG_CHANNEL, erasure(subject, kids))));
      if (store) {
        links.push(
          store.onCommitted((rows) => {
            seq += 1;
            const message = commitMessage(rows[rows.length - 1].position, seq, read());
            if (message) bus.notify(LOG_CHANNEL, message);
          }),
        );
      }
    }
    this.unlink = () => links.forEach((stop) => stop());
  }

  private readinessCheck(): { status: 'up' | 'down'; detail?: string } {
    const down = [...this.threads.values()].filter((t) => t.state !== 'running');
    if (this.threads.size === 0) return { status: 'down', detail: 'starting' };
    return down.length === 0 ? { status: 'up', detail: `${this.threads.size} running` } : { status: 'down', detail: down.map((t) => `${t.role} ${t.state}`).join(', ') };
  }
}
