/**
 * A server process's CPU thread by thread over a window (threads.bench.ts): /proc/<pid>/task/<tid>/stat of every task,
 * named by its `comm`, and, where the platform exposes `platform_thread_cpu_seconds_total{thread=…}` on GET /metrics,
 * its JavaScript threads named as the platform names them (main, bg, eng-1…). Node 20 names none of its threads (every
 * `comm` is `node`), so without the metric only the main thread (tid = pid) is known by name.
 */
import { fmtMicros } from './order-load';
import { tasks } from './proc-cpu';
import type { ServerNode } from './server-process';

export type TaskCpu = Map<number, { comm: string; cpu: number }>;

/** The metric's series by `thread` label, in µs; null when the node does not expose it (or /metrics fails). */
export async function jsThreadCpu(node: ServerNode): Promise<Map<string, number> | null> {
  let text: string;
  try {
    const r = await fetch(`${node.url}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (r.status !== 200) return null;
    text = await r.text();
  } catch {
    return null;
  }
  const series = new Map<string, number>();
  for (const m of text.matchAll(/^platform_thread_cpu_seconds_total\{([^}]*)\} (\S+)$/gm)) {
    const thread = /(?:^|,)thread="([^"]*)"/.exec(m[1])?.[1] ?? m[1];
    series.set(thread, Number(m[2]) * 1e6);
  }
  return series.size === 0 ? null : series;
}

/** A process's tasks and its JavaScript threads' CPU read together (the metric first: its scrape runs on main). */
export interface ThreadSample {
  tasks: TaskCpu;
  js: Map<string, number> | null;
}

export async function sampleThreads(node: ServerNode): Promise<ThreadSample> {
  const js = await jsThreadCpu(node);
  return { js, tasks: tasks(node.child!.pid!) };
}

/**
 * Which tid each JavaScript thread is: the task whose CPU so far equals the metric's (both are the same kernel counter,
 * read a moment apart), within 30 ms. Read on an idle server (after settling) so the two readings agree; the main
 * thread is the task whose tid is the pid whatever the metric says.
 */
export function nameThreads(pid: number, sample: ThreadSample): Map<number, string> {
  const names = new Map<number, string>([[pid, 'main']]);
  if (!sample.js) return names;
  for (const [thread, us] of sample.js) {
    if (thread === 'main') continue;
    let best: number | null = null;
    for (const [tid, t] of sample.tasks)
      if (!names.has(tid) && Math.abs(t.cpu - us) <= 30_000 && (best === null || Math.abs(t.cpu - us) < Math.abs(sample.tasks.get(best)!.cpu - us))) best = tid;
    if (best !== null) names.set(best, thread);
  }
  return names;
}

export interface ThreadUse {
  /** µs of the whole process (every task) over the window. */
  total: number;
  /** Each task's µs, busiest first, labelled by the metric's name where known, else its comm. */
  byTask: Array<{ tid: number; label: string; used: number }>;
  /** The same grouped by comm. */
  byComm: Array<{ comm: string; tasks: number; used: number }>;
  /** The metric's µs by JavaScript thread over the window; null without the metric. */
  js: Array<{ thread: string; used: number }> | null;
}

/**
 * What each thread used between two samples. A task that started in between counts whole; one that ended in between
 * is lost (said by the caller through the task counts).
 */
export function threadUse(before: ThreadSample, after: ThreadSample, names: Map<number, string>): ThreadUse {
  const byTask: ThreadUse['byTask'] = [];
  const comms = new Map<string, { tasks: number; used: number }>();
  let total = 0;
  for (const [tid, t] of after.tasks) {
    const used = Math.max(0, t.cpu - (before.tasks.get(tid)?.cpu ?? 0));
    total += used;
    byTask.push({ tid, label: names.get(tid) ?? t.comm, used });
    const c = comms.get(t.comm) ?? { tasks: 0, used: 0 };
    comms.set(t.comm, { tasks: c.tasks + 1, used: c.used + used });
  }
  byTask.sort((x, y) => y.used - x.used);
  const js =
    before.js && after.js ? [...after.js].map(([thread, us]) => ({ thread, used: Math.max(0, us - (before.js!.get(thread) ?? 0)) })).sort((x, y) => y.used - x.used) : null;
  return { total, byTask, byComm: [...comms].map(([comm, c]) => ({ comm, ...c })).sort((x, y) => y.used - x.used), js };
}

/** One line per view, in µs per order: the busiest tasks, the comm groups, the JavaScript threads. */
export function threadLines(use: ThreadUse, orders: number, top = 5): string[] {
  const per = (us: number): string => fmtMicros(us / orders);
  const shown = use.byTask.slice(0, top).map((t) => `${t.label} (tid ${t.tid}) ${per(t.used)}`);
  const rest = use.byTask.slice(top);
  if (rest.length > 0) shown.push(`${rest.length} other tasks ${per(rest.reduce((a, t) => a + t.used, 0))}`);
  return [
    `busiest tasks: ${shown.join(', ')}; total ${per(use.total)}`,
    `by thread name (comm): ${use.byComm.map((c) => `${c.comm} ×${c.tasks} ${per(c.used)}`).join(', ')}`,
    use.js === null
      ? 'JavaScript threads: no platform_thread_cpu_seconds_total on /metrics (only the main thread, tid = pid, is known by name)'
      : `JavaScript threads (platform_thread_cpu_seconds_total): ${use.js.map((j) => `${j.thread} ${per(j.used)}`).join(', ')}`,
  ];
}
