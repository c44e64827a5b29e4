/** Prometheus metrics: process defaults, HTTP requests, appends, and per-projector checkpoint and lag. */
import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.port';
import { ProjectionRunner } from '../projections/projection-runner';

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'route' | 'status'>;

  constructor(@Inject(EVENT_STORE) store: EventStore, runner: ProjectionRunner) {
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
