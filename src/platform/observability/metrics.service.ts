/** Prometheus metrics: process defaults, HTTP requests, appends, per-projector checkpoint and lag, and this thread's CPU. */
import { readFileSync, readlinkSync } from 'node:fs';
import { isMainThread, threadId } from 'node:worker_threads';
import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { ProjectionRunner } from '../projections/projection-runner';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../projections/node-identity';
import { NodeMembership } from '../jobs/node-membership';

/**
 * Clock ticks per second of /proc's CPU times (USER_HZ, what `getconf CLK_TCK` prints): part of Linux's interface to
 * user space, 100 on every architecture Node runs on, so a constant rather than a process spawned to ask.
 */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * A thread's CPU seconds (user + system) from its /proc/<pid>/task/<tid>/stat line: utime and stime, the 14th and 15th
 * fields. Counted after the last ')': the command name before it, in parentheses, may hold spaces and parentheses of
 * its own. Null for a line of another shape.
 */
export function cpuSecondsOfStat(line: string, ticksPerSecond = CLOCK_TICKS_PER_SECOND): number | null {
  const close = line.lastIndexOf(')');
  if (close < 0) return null;
  // The fields after the name start at the 3rd (state): utime and stime are the 12th and 13th of them.
  const [utime, stime] = line.slice(close + 1).trim().split(/\s+/).slice(11, 13).map((f) => (/^\d+$/.test(f) ? Number(f) : NaN));
  return Number.isFinite(utime) && Number.isFinite(stime) ? (utime + stime) / ticksPerSecond : null;
}

/**
 * Where the calling thread's CPU times are (Linux): /proc/thread-self names it as `<pid>/task/<tid>`. Resolved on the
 * thread itself, synchronously (an asynchronous read would run on a libuv pool thread and see that one). Null without
 * /proc (macOS, Windows, a container without it).
 */
export function threadStatPath(): string | null {
  try {
    return `/proc/${readlinkSync('/proc/thread-self')}/stat`;
  } catch {
    return null;
  }
}

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;
  /** platform_thread_cpu_seconds_total's `thread`: `main`, or what a worker thread calls itself (setThreadName). */
  private thread = isMainThread ? 'main' : `worker-${threadId}`;

  /** Names the thread this registry reports for (`bg`, `eng-1`): a worker thread's, as it boots the modules. */
  setThreadName(name: string): void {
    this.thread = name;
  }

  constructor(@Inject(EVENT_STORE) store: EventStore, runner: ProjectionRunner, @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity) {
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Histogram({
      name: 'platform_http_request_duration_seconds',
      help: 'HTTP requests by route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    new Gauge({
      name: 'platform_event_store_head_position',
      help: 'Position of the newest event in the global log.',
      registers: [this.registry],
      async collect() {
        this.set(Number(await store.headPosition()));
      },
    });
    new Gauge({
      name: 'platform_projection_checkpoint_position',
      help: 'Last global position each projector has applied.',
      labelNames: ['projection'],
      registers: [this.registry],
      collect() {
        for (const s of runner.status()) this.set({ projection: s.name }, Number(s.checkpoint));
      },
    });
    new Gauge({
      name: 'platform_projection_lag',
      help: 'Global-log positions between the head and each projector checkpoint (events, on SQLite).',
      labelNames: ['projection'],
      registers: [this.registry],
      async collect() {
        await runner.refreshRemote().catch(() => undefined);
        const head = await store.headPosition();
        for (const s of runner.status()) this.set({ projection: s.name }, Number(head > s.checkpoint ? head - s.checkpoint : 0n));
      },
    });
    const membership = identity.jobs instanceof NodeMembership ? identity.jobs : null;
    new Gauge({
      name: 'platform_jobs_held',
      help: 'Single-writer jobs (projectors, market engines, the rater, sweeps, the checkpointer, Kafka publishers) whose lease this node holds now.',
      registers: [this.registry],
      collect() {
        this.set(membership?.heldJobs().length ?? 0);
      },
    });
    new Gauge({
      name: 'platform_job_held',
      help: '1 for each single-writer job whose lease this node holds now, by lease name (engine:<market_uuid> for a market).',
      labelNames: ['job'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const job of membership?.heldJobs() ?? []) this.set({ job }, 1);
      },
    });
    new Counter({
      name: 'platform_leases_lost_total',
      help: 'Leases this node held and lost other than by a hand-off: how=write_refused, a late write fenced off (another node holds the job now); how=renewal, a renewal that found another owner.',
      labelNames: ['how', 'job'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [key, count] of membership?.lostLeases() ?? []) {
          const [how, job] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
          this.inc({ how, job }, count); // after the reset: the membership keeps the running count
        }
      },
    });
    new Gauge({
      name: 'platform_nodes_live',
      help: 'Live nodes sharing the single-writer jobs, as this node last saw them (its heartbeat).',
      registers: [this.registry],
      collect() {
        this.set(membership?.view().nodes.length ?? 1);
      },
    });
    // process_cpu_seconds_total (the defaults) is process.cpuUsage(): every thread of the process together, so it
    // cannot say what one thread (HTTP, the background jobs, an engine) costs. This reads the thread's own times.
    const statPath = threadStatPath();
    const service = this;
    new Counter({
      name: 'platform_thread_cpu_seconds_total',
      help: 'CPU seconds (user + system) the thread this registry belongs to has used, by thread (main: the HTTP thread; bg, eng-<n>: worker threads). Linux only.',
      labelNames: ['thread'],
      registers: [this.registry],
      collect() {
        this.reset();
        let seconds: number | null = null;
        try {
          seconds = statPath === null ? null : cpuSecondsOfStat(readFileSync(statPath, 'utf8'));
        } catch {
          // The entry went (it cannot while the thread runs) or /proc is not readable: no series rather than a failed scrape.
        }
        if (seconds !== null) this.inc({ thread: service.thread }, seconds); // after the reset: the kernel keeps the running total
      },
    });
    new Gauge({
      name: 'platform_projection_up',
      help: '1 when the projector is running (or stands by for another node), 0 when stopped or failing.',
      labelNames: ['projection', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const s of runner.status()) this.set({ projection: s.name, state: s.state }, s.state === 'running' || s.state === 'standby' ? 1 : 0);
      },
    });
  }
}
