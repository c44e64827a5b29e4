/**
 * Which thread of a process runs what (issue 48), as pure functions of the configuration. Each worker thread is a
 * member of the node membership of its own (`<node>.<role>`), so jobs move between threads with the leases and
 * fencing they move between nodes with; what a member accepts keeps each job on its thread's role.
 *
 * The background thread runs every job but the matching engines (the projectors, the billing rater, the sweeps, the
 * audit checkpointer, the Kafka publishers). With one worker thread the main thread serves HTTP and runs the engines;
 * with more, the engines are spread over engine threads (`engines-1`, `engines-2`, …: the membership shares the
 * markets among them as among nodes) and the main thread serves HTTP alone. Every append is made by the main thread's
 * store, the log's one writer (forwarded-appends.ts).
 */
import { createHash } from 'node:crypto';
import type { PlatformConfig } from '../config/platform-config';
import { acceptingJobs } from '../jobs/job-assignment';

export type ThreadRoleName = 'background' | `engines-${number}`;

/** The worker threads of a process of `workerThreads` (WORKER_THREADS, resolved): the background thread first. */
export function threadRoles(workerThreads: number): ThreadRoleName[] {
  if (workerThreads <= 0) return [];
  return ['background', ...Array.from({ length: workerThreads - 1 }, (_, i): ThreadRoleName => `engines-${i + 1}`)];
}

/** The node id a worker thread joins the membership under: `<node>.<role>`, within NODE_ID's 64 characters. */
export function threadNodeId(nodeId: string, role: ThreadRoleName): string {
  const id = `${nodeId}.${role}`;
  if (id.length <= 64) return id;
  // Distinct per node id still: a hash of the whole in place of its tail.
  const hash = createHash('sha256').update(nodeId).digest('hex').slice(0, 12);
  return `${nodeId.slice(0, 64 - role.length - hash.length - 2)}-${hash}.${role}`;
}

/**
 * The configuration a worker thread boots with: the main thread's, as a member of its own that starts nothing only the
 * main thread does (markets seeded, the first admin, the engines) and no threads of its own.
 */
export function workerThreadConfig(main: PlatformConfig, nodeId: string, role: ThreadRoleName, busId: string, writeLock?: SharedArrayBuffer): PlatformConfig {
  const thread = { role, busId, threads: main.workerThreads, writeLock };
  const base = { ...main, nodeId: threadNodeId(nodeId, role), workerThreads: 0, thread, seedMarkets: false, adminEmail: undefined, adminPassword: undefined };
  if (role === 'background') return { ...base, matchingEngines: false };
  // An engine thread: the engines of its share of the markets, and nothing else started.
  return { ...base, matchingEngines: main.matchingEngines, projectionsAutostart: false, kafkaPublisher: false, auditCheckpoints: false };
}

/** The matching engines' jobs (`engine:<market_uuid>`, engine-host.ts). */
const ENGINES = 'engine:*';

/**
 * What a member of this process's membership takes: a background thread every job but the engines; an engine thread
 * the engines; the main thread the engines when no engine thread runs them, nothing when one does, and everything when
 * it runs alone.
 */
export function acceptsJob(config: Pick<PlatformConfig, 'workerThreads' | 'thread'>): ((job: string) => boolean) | undefined {
  if (config.thread?.role === 'background') return acceptingJobs(['*', `!${ENGINES}`]);
  if (config.thread) return acceptingJobs([ENGINES]);
  if (config.workerThreads === 1) return acceptingJobs([ENGINES]);
  if (config.workerThreads > 1) return acceptingJobs([]);
  return undefined;
}
