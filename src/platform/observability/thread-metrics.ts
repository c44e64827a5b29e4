/**
 * One /metrics for a process of several threads (issue 48): each worker thread keeps a registry of its own (its jobs,
 * its CPU), and the main thread answers the scrape with its own series merged with theirs. Pure: tested alone.
 */
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

type Family = MetricObjectWithValues<MetricValue<string>>;

/** Families each thread counts its own share of: the process's figure is their sum, one series per label set. */
const SUMMED = new Set(['platform_thread_cpu_seconds_total', 'platform_jobs_held', 'platform_job_held', 'platform_leases_lost_total']);

/**
 * Families about the jobs the worker threads run (the projectors, the rater, the checkpointer, the publisher): the
 * thread that runs them reports them as they are; the main thread, where they stand by, defers to it while it answers.
 */
const RUN_ELSEWHERE = new Set([
  'platform_projection_checkpoint_position',
  'platform_projection_lag',
  'platform_projection_up',
  'platform_billing_rater_position',
  'platform_audit_checkpoint_position',
  'platform_audit_checkpointer_up',
  'platform_kafka_publisher_position',
  'platform_kafka_publisher_up',
]);

/**
 * The main thread's families, with the workers' shares added (SUMMED), the projectors' taken from the workers that
 * answered (RUN_ELSEWHERE), and any family only a worker has. Everything else (the process's defaults, HTTP, what only
 * the main thread runs) is the main thread's alone: a worker's copy would count the process twice.
 */
export function mergeThreadMetrics(main: Family[], workers: Family[][]): Family[] {
  const merged = new Map(main.map((f) => [f.name, { ...f, values: [...f.values] }]));
  for (const families of workers) {
    for (const family of families) {
      const mine = merged.get(family.name);
      if (!mine) merged.set(family.name, { ...family, values: [...family.values] });
      else if (SUMMED.has(family.name)) mine.values = sumByLabels([...mine.values, ...family.values]);
    }
  }
  for (const name of RUN_ELSEWHERE) {
    const theirs = workers.flatMap((families) => families.filter((f) => f.name === name).flatMap((f) => f.values));
    const mine = merged.get(name);
    if (mine && theirs.length > 0) mine.values = theirs;
  }
  return [...merged.values()];
}

/** Prometheus text of merged families. */
export async function metricsText(families: Family[]): Promise<string> {
  // aggregate() of a single set rebuilds the families as they are (the 'sum' of one value is the value).
  return AggregatorRegistry.aggregate([families]).metrics();
}

function sumByLabels(values: Array<MetricValue<string>>): Array<MetricValue<string>> {
  const byKey = new Map<string, MetricValue<string>>();
  for (const v of values) {
    const key = JSON.stringify(Object.entries(v.labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    const seen = byKey.get(key);
    byKey.set(key, seen ? { ...seen, value: seen.value + v.value } : { ...v });
  }
  return [...byKey.values()];
}
