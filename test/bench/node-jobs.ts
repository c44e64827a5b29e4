/**
 * Which node holds which single-writer jobs (projectors, matching engines, sweeps, rater, publisher), from each node's
 * GET /metrics: for the scale-out benchmark's spread and failover figures.
 */
import { log } from './report';
import { guard, type ServerNode } from './server-process';

export type JobSource = 'platform_jobs_held' | 'platform_projection_up + platform_matching_engine_up';

interface Jobs {
  count: number;
  names: string[];
  source: JobSource;
}

/**
 * The jobs a node holds, from its /metrics: the gauges `platform_jobs_held` and `platform_job_held{job=…}` where the
 * node has them; otherwise the running projectors and matching engines (all that the older metrics show).
 */
export async function jobsOf(node: ServerNode, timeoutMs = 10_000): Promise<Jobs> {
  const r = await fetch(`${node.url}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await r.text();
  const held = /^platform_jobs_held(?:\{\})? (\d+(?:\.\d+)?)$/m.exec(text);
  if (held) {
    const names = [...text.matchAll(/^platform_job_held\{job="([^"]+)"\} 1$/gm)].map((m) => m[1]);
    return { count: Number(held[1]), names, source: 'platform_jobs_held' };
  }
  const names = [...text.matchAll(/^platform_(projection|matching_engine)_up\{(?:projection|market_uuid)="([^"]+)",state="running"\} 1$/gm)].map((m) => `${m[1]}:${m[2]}`);
  return { count: names.length, names, source: 'platform_projection_up + platform_matching_engine_up' };
}

export interface JobSpread {
  perNode: Array<{ node: string; count: number }>;
  total: number;
  largestShare: number;
  sources: Set<JobSource>;
  /** Jobs that two nodes both said they run (should be none). */
  doubled: number;
}

export async function jobSpread(nodes: ServerNode[]): Promise<JobSpread> {
  const jobs = await Promise.all(nodes.map((n) => guard(jobsOf(n))));
  const total = jobs.reduce((sum, j) => sum + j.count, 0);
  const names = jobs.flatMap((j) => j.names);
  return {
    perNode: nodes.map((n, i) => ({ node: n.name, count: jobs[i].count })),
    total,
    largestShare: total === 0 ? NaN : Math.max(...jobs.map((j) => j.count)) / total,
    sources: new Set(jobs.map((j) => j.source)),
    doubled: names.length - new Set(names).size,
  };
}

export const spreadText = (s: JobSpread): string => s.perNode.map((p) => `${p.node} ${p.count} (${s.total === 0 ? '—' : pct(p.count / s.total)})`).join(', ');
export const pct = (r: number): string => `${Math.round(r * 100)}%`;

export function printSpread(s: JobSpread): void {
  log(`   jobs held: ${spreadText(s)}; largest share ${pct(s.largestShare)}${s.doubled > 0 ? `; ${s.doubled} held by two nodes at once` : ''} [from ${[...s.sources].join(', ')}]`);
}
