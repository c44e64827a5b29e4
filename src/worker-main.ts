/**
 * A worker thread of the platform (issue 48; src/platform/workers/worker-threads.service.ts starts it): the same
 * modules as the main thread, booted as an application context without HTTP, with the configuration of its role. Its
 * log lines go to the main thread, which writes them where its own go.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { Writable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { AppModule } from './app.module';
import { createPlatformLogger } from './platform/logging/logger.config';
import { MetricsService } from './platform/observability/metrics.service';
import { moduleWorkerData } from './platform/workers/module-worker';
import type { FromWorkerThread, ModuleExport, ThreadAnswers, ToWorkerThread, WorkerThreadBoot } from './platform/workers/worker-threads.service';
import { ProjectionRunner } from './platform/projections/projection-runner';
import { ReadinessRegistry } from './platform/observability/readiness';
import type { ReadModelDefinition } from './platform/read-model/read-model.definition';
import type { INestApplicationContext, Type } from '@nestjs/common';

function post(message: FromWorkerThread): void {
  parentPort!.postMessage(message);
}

async function boot(): Promise<void> {
  const { config, extras } = moduleWorkerData<WorkerThreadBoot>();
  // Control messages are heard from the start: a stop sent while the modules boot is kept for when they have.
  let app: INestApplicationContext | null = null;
  let stopAsked = false;
  const stop = (): void => {
    if (!app) {
      stopAsked = true;
      return;
    }
    // Jobs stop and release their leases, the stores close; then the thread may end.
    void app
      .close()
      .catch((err: unknown) => logger.warn({ err }, 'worker thread did not close cleanly'))
      .finally(() => {
        post({ stopped: true });
        parentPort!.close();
      });
  };
  parentPort!.on('message', (message: ToWorkerThread) => {
    if ('stop' in message) return stop();
    if ('ask' in message && app) {
      const context = app;
      void answer(context, message.what).then(
        (value) => post({ answer: message.ask, value }),
        (err: unknown) => logger.warn({ err }, 'worker thread could not answer the main thread'),
      );
    }
    // Anything else is another listener's (forwarded-appends.ts: the answers to appends).
  });
  for (const path of extras?.imports ?? []) require(path);
  const load = <T>(e: ModuleExport): T => (require(e.path) as Record<string, T>)[e.name];
  const lines = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      post({ log: chunk.toString() });
      done();
    },
  });
  const logger = createPlatformLogger(config.logLevel, lines).child({ thread: config.thread?.role });
  const context = await NestFactory.createApplicationContext(
    AppModule.forRoot({ config, logger, modules: extras?.modules.map(load<Type>), readModels: extras?.readModels.map(load<ReadModelDefinition>) }),
    { bufferLogs: true, abortOnError: false },
  );
  context.useLogger(context.get(Logger));
  context.get(MetricsService).setThreadName(config.thread?.role ?? 'worker');
  await context.init();
  app = context;
  post({ ready: true });
  if (stopAsked) stop();
}

/** What the main thread asks of this thread (its /metrics and /health/ready count this thread's part). */
async function answer<K extends keyof ThreadAnswers>(app: INestApplicationContext, what: K): Promise<ThreadAnswers[K]> {
  const value: ThreadAnswers[keyof ThreadAnswers] =
    what === 'metrics'
      ? await app.get(MetricsService).registry.getMetricsAsJSON()
      : { projections: app.get(ProjectionRunner).status(), checks: app.get(ReadinessRegistry).evaluate() };
  return value as ThreadAnswers[K];
}

boot().catch((error: unknown) => {
  post({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
