/** One /metrics for a process of several threads (src/platform/observability/thread-metrics.ts). */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { mergeThreadMetrics, metricsText } from '../../src/platform/observability/thread-metrics';

type Family = MetricObjectWithValues<MetricValue<string>>;
// As a registry's getMetricsAsJSON gives them (its type field is prom-client's string enum).
const family = (name: string, type: 'counter' | 'gauge', values: Array<[Record<string, string | number>, number]>): Family =>
  ({ name, help: `${name} help`, type, aggregator: 'sum', values: values.map(([labels, value]) => ({ labels, value })) }) as unknown as Family;

describe('thread metrics', () => {
  const main = [
    family('process_cpu_seconds_total', 'counter', [[{}, 10]]),
    family('platform_thread_cpu_seconds_total', 'counter', [[{ thread: 'main' }, 4]]),
    family('platform_jobs_held', 'gauge', [[{}, 3]]),
    family('platform_projection_lag', 'gauge', [[{ projection: 'orders' }, 40]]),
    family('platform_matching_engine_up', 'gauge', [[{ market: 'm' }, 1]]),
    family('platform_audit_checkpointer_up', 'gauge', [[{ state: 'standby' }, 1]]),
  ];
  const worker = [
    family('process_cpu_seconds_total', 'counter', [[{}, 10]]),
    family('platform_thread_cpu_seconds_total', 'counter', [[{ thread: 'background' }, 5]]),
    family('platform_jobs_held', 'gauge', [[{}, 27]]),
    family('platform_projection_lag', 'gauge', [[{ projection: 'orders' }, 0]]),
    family('platform_matching_engine_up', 'gauge', [[{ market: 'm' }, 0]]),
    family('platform_worker_only', 'gauge', [[{}, 7]]),
    family('platform_audit_checkpointer_up', 'gauge', [[{ state: 'failing' }, 0]]),
    family('platform_billing_rater_position', 'gauge', [[{}, 42]]),
  ];
  const merged = new Map(mergeThreadMetrics(main, [worker]).map((f) => [f.name, f.values.map((v) => [v.labels, v.value])]));

  it('adds up what each thread counts of its own, one series per label set', () => {
    expect(merged.get('platform_thread_cpu_seconds_total')).toEqual([[{ thread: 'main' }, 4], [{ thread: 'background' }, 5]]);
    expect(merged.get('platform_jobs_held')).toEqual([[{}, 30]]);
  });

  it('takes the projectors\' figures from the thread that runs them, the rest from the main thread alone', () => {
    expect(merged.get('platform_projection_lag')).toEqual([[{ projection: 'orders' }, 0]]);
    // The jobs' own: a checkpointer failing on the worker is not hidden by the main thread's standby.
    expect(merged.get('platform_audit_checkpointer_up')).toEqual([[{ state: 'failing' }, 0]]);
    expect(merged.get('platform_billing_rater_position')).toEqual([[{}, 42]]);
    // The process's own figures are not counted twice; what the main thread runs is its to say.
    expect(merged.get('process_cpu_seconds_total')).toEqual([[{}, 10]]);
    expect(merged.get('platform_matching_engine_up')).toEqual([[{ market: 'm' }, 1]]);
    expect(merged.get('platform_worker_only')).toEqual([[{}, 7]]);
  });

  it('keeps the main thread\'s figures when no worker answers, and prints valid exposition text', async () => {
    expect(mergeThreadMetrics(main, [])).toEqual(main);
    const text = await metricsText(mergeThreadMetrics(main, [worker]));
    expect(text.match(/^# TYPE platform_thread_cpu_seconds_total counter$/gm)).toHaveLength(1);
    expect(text).toMatch(/^platform_thread_cpu_seconds_total\{thread="background"\} 5$/m);
    expect(text).toMatch(/^platform_jobs_held 30$/m);
  });
});
