/**
 * Which live node runs each single-writer job: a pure function of the membership and the leases as they stand, so
 * every node computes the same answer from the same rows (node-membership.ts reads them at each heartbeat).
 *
 * - Balanced per class: the matching engines (`engine:<market>`, the heavy jobs, markets the unit to spread) and the
 *   rest are shared out separately, each node taking at most its share, ceil(jobs of the class / nodes that can run
 *   them), so with three nodes none runs more than a third of either (plus one).
 * - Sticky: a job stays with the live node that holds it while that node is within its share, so a node joining or
 *   leaving moves only what must move.
 * - The rest by rendezvous hashing (highest score of job and node): the same node is preferred for a job whatever
 *   else changes, so hand-offs do not cascade.
 */
import { createHash } from 'node:crypto';

export interface Member {
  /** The lease owner it holds leases as (`<node id>#<incarnation>`). */
  owner: string;
  /** The jobs it can run (its configuration decides: MATCHING_ENGINES, KAFKA_PUBLISHER, …). */
  jobs: readonly string[];
}

/** The class a job is balanced within: the markets' engines, or every other job. */
export const jobClass = (job: string): 'engine' | 'other' => (job.startsWith('engine:') ? 'engine' : 'other');

/**
 * A member's `accepts` (NodeMembershipOptions) from job patterns, as a worker thread is told which jobs are its kind:
 * a job's name (`billing-rater`), a prefix ending in `*` (`engine:*`; `*` alone: every job), or either after `!` to
 * refuse it. A job is accepted when a plain pattern matches it and no refusal does, so `['*', '!engine:*']` is every job
 * but the engines and `[]` none (the HTTP thread's member).
 */
export function acceptingJobs(patterns: readonly string[]): (job: string) => boolean {
  const parsed = patterns.map((text) => {
    const refuses = text.startsWith('!');
    const body = refuses ? text.slice(1) : text;
    // A `*` elsewhere is a mistake in a setting, not a name: said at start rather than matching nothing.
    if (body === '' || body.slice(0, -1).includes('*')) throw new Error(`job pattern ${JSON.stringify(text)}: a job's name, or a prefix ending in *`);
    const matches = body.endsWith('*') ? (job: string) => job.startsWith(body.slice(0, -1)) : (job: string) => job === body;
    return { refuses, matches };
  });
  return (job) => parsed.some((p) => !p.refuses && p.matches(job)) && !parsed.some((p) => p.refuses && p.matches(job));
}

/** Rendezvous score of a job on a node: higher is preferred. */
export function preference(job: string, owner: string): number {
  return createHash('sha1').update(job).update('\u0000').update(owner).digest().readUIntBE(0, 6);
}

/**
 * Job → the owner that should run it, over `members` (the live nodes), given who holds each lease now (`holders`,
 * null or absent: free). A job no live member can run is not assigned.
 */
export function assignJobs(members: readonly Member[], holders: ReadonlyMap<string, string | null>): Map<string, string> {
  const sorted = [...members].sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : 0));
  const assigned = new Map<string, string>();
  for (const cls of ['engine', 'other'] as const) {
    const candidates = new Map<string, string[]>();
    for (const m of sorted) {
      for (const job of new Set(m.jobs)) {
        if (jobClass(job) !== cls) continue;
        const list = candidates.get(job);
        if (list) list.push(m.owner);
        else candidates.set(job, [m.owner]);
      }
    }
    if (candidates.size === 0) continue;
    const jobs = [...candidates.keys()].sort();
    const eligible = new Set(jobs.flatMap((job) => candidates.get(job)!));
    const share = Math.ceil(jobs.length / eligible.size);
    const load = new Map<string, number>([...eligible].map((owner) => [owner, 0]));
    const give = (job: string, owner: string): void => {
      assigned.set(job, owner);
      load.set(owner, load.get(owner)! + 1);
    };
    // Kept where they run, within the holder's share.
    for (const job of jobs) {
      const holder = holders.get(job);
      if (holder && candidates.get(job)!.includes(holder) && load.get(holder)! < share) give(job, holder);
    }
    // The rest to the preferred node with room; when every candidate is full (they cannot all run everything), the least loaded.
    for (const job of jobs) {
      if (assigned.has(job)) continue;
      const ranked = candidates.get(job)!.map((owner) => ({ owner, score: preference(job, owner) })).sort((a, b) => b.score - a.score);
      const roomy = ranked.find((c) => load.get(c.owner)! < share);
      const chosen = roomy ?? ranked.reduce((best, c) => (load.get(c.owner)! < load.get(best.owner)! ? c : best));
      give(job, chosen.owner);
    }
  }
  return assigned;
}
