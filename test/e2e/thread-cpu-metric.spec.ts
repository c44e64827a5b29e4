/**
 * GET /metrics reports the CPU time of the thread the registry belongs to (platform_thread_cpu_seconds_total), the
 * benchmark's "CPU per order per thread": `thread="main"` for the HTTP thread, or the name a worker thread gives.
 * Linux only (/proc); elsewhere the series is absent and the scrape still answers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpuSecondsOfStat, MetricsService, threadStatPath } from '../../src/platform/observability/metrics.service';
import { startTestApp, type TestApp } from '../support/app';

const series = (body: string, thread: string): number | null => {
  const match = new RegExp(`^platform_thread_cpu_seconds_total\\{thread="${thread}"\\} (\\S+)$`, 'm').exec(body);
  return match ? Number(match[1]) : null;
};

describe('platform_thread_cpu_seconds_total', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  const scrape = async (): Promise<string> => {
    const r = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(r.statusCode).toBe(200);
    return r.body;
  };

  if (existsSync('/proc/thread-self')) {
    it('given the HTTP thread, then GET /metrics reports its CPU seconds, positive and growing', async () => {
      const first = series(await scrape(), 'main');
      expect(first).toBeGreaterThan(0);
      // Spin until this thread has used 200 ms of CPU by its own account (by wall time, a loaded machine gives less).
      const stat = threadStatPath()!;
      const start = cpuSecondsOfStat(readFileSync(stat, 'utf8'))!;
      while (cpuSecondsOfStat(readFileSync(stat, 'utf8'))! < start + 0.2) {
        // spin: CPU on this (the app's) thread
      }
      expect(series(await scrape(), 'main')).toBeGreaterThan(first! + 0.1);
    });

    it('given a thread name set, then the series is labelled with it alone', async () => {
      t.app.get(MetricsService).setThreadName('eng-1');
      try {
        const body = await scrape();
        expect(series(body, 'eng-1')).toBeGreaterThan(0);
        expect(series(body, 'main')).toBeNull();
      } finally {
        t.app.get(MetricsService).setThreadName('main');
      }
    });
  } else {
    it('given no /proc, then the scrape answers without the series', async () => {
      expect(await scrape()).not.toMatch(/^platform_thread_cpu_seconds_total\{/m);
    });
  }
});
