/** Prometheus metrics: process defaults, HTTP requests, appends, and per-projector checkpoint and lag. */
import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { ProjectionRunner } from '../projections/projection-runner';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../projections/node-identity';
import { NodeMembership } from '../jobs/node-membership';

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;

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
