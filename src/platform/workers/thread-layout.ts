/**
 * Which thread of a process runs what (issue 48), as pure functions of the configuration. Each worker thread is a
 * member of the node membership of its own (`<node>.<role>`), so jobs move between threads with the leases and
 * fencing they move between nodes with; what a member accepts keeps each job on its thread's role.
 *
 * Today: the background thread runs every job but the matching engines (the projectors, the billing rater, the sweeps,
 * the audit checkpointer, the Kafka publishers); the main thread serves HTTP and runs the engines. Every append is made
 * by the main thread's store, the log's one writer (forwarded-appends.ts).
 */
import { createHash } from 'node:crypto';
import type { PlatformConfig } from '../config/platform-config';
import { acceptingJobs } from '../jobs/job-assignment';

export type ThreadRoleName = 'background';

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
export function workerThreadConfig(main: PlatformConfig, nodeId: string, role: ThreadRoleName, busId: string): PlatformConfig {
  return {
    ...main,
    nodeId: threadNodeId(nodeId, role),
    workerThreads: 0,
    thread: { role, busId },
    seedMarkets: false,
    adminEmail: undefined,
    adminPassword: undefined,
    matchingEngines: false,
  };
}

/** The matching engines' jobs (`engine:<market_uuid>`, engine-host.ts). */
const ENGINES = 'engine:*';

/**
 * What a member of this process's membership takes: a background thread every job but the engines, the main thread
 * the engines when a background thread runs the rest, and everything when it runs alone.
 */
export function acceptsJob(config: Pick<PlatformConfig, 'workerThreads' | 'thread'>): ((job: string) => boolean) | undefined {
  if (config.thread?.role === 'background') return acceptingJobs(['*', `!${ENGINES}`]);
  if (config.workerThreads > 0) return acceptingJobs([ENGINES]);
  return undefined;
}
