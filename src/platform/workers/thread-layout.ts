/**
 * Which thread of a process runs what (issue 48), as pure functions of the configuration. Each worker thread is a
 * member of the node membership of its own (`<node>.<role>`), so jobs move between threads with the leases and
 * fencing they move between nodes with; what a member accepts keeps each job on its thread's role.
 *
 * Today: the background thread runs the projectors; the main thread serves HTTP and runs every other job (engines,
 * rater, sweeps, checkpointer, publishers), whose appends stay on the one thread that writes the log.
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
 * The configuration a worker thread boots with: the main thread's, as a member of its own that starts nothing the main
 * thread does (markets seeded, the first admin, engines, the checkpointer, the publishers) and no threads of its own.
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
    kafkaPublisher: false,
    auditCheckpoints: false,
  };
}

/**
 * What a member of this process's membership takes: a background thread the projectors (by name), the main thread
 * every other job when a background thread runs them, and everything when it runs alone.
 */
export function acceptsJob(config: Pick<PlatformConfig, 'workerThreads' | 'thread'>, projectors: ReadonlySet<string>): ((job: string) => boolean) | undefined {
  if (config.thread?.role === 'background') return acceptingJobs([...projectors]);
  if (config.workerThreads > 0) return acceptingJobs(['*', ...[...projectors].map((name) => `!${name}`)]);
  return undefined;
}
