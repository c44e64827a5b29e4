/**
 * CPU time from /proc (Linux), for the benchmarks that run servers as processes: every process's CPU over a window
 * (so a shared machine's other load shows instead of silently skewing the figures), a process's threads one by one,
 * and waiting until a server has settled. CPU per unit of work stays comparable where rates are not: time taken by
 * other programs is not counted in it. Shared by scale-out.bench.ts and threads.bench.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clock, log, seconds } from './report';

/** utime + stime of a /proc stat line, in µs (clock ticks of 10 ms), and its command name. */
function parseStat(stat: string): { comm: string; cpu: number; ppid: string } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cpu: (Number(fields[11]) + Number(fields[12])) * 10_000, ppid: fields[1] };
}

/**
 * Every user-space process's name and CPU so far (µs), from one pass over /proc. Kernel threads (children of kthreadd,
 * pid 2) are left out: they do the I/O the bench's own commits cause (the journal, the block device's work), and
 * count as no other program's load.
 */
function processes(): Map<number, { comm: string; cpu: number }> {
  const all = new Map<number, { comm: string; cpu: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || entry === '2') continue;
    try {
      const { comm, cpu, ppid } = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (ppid === '2') continue;
      all.set(Number(entry), { comm, cpu });
    } catch {
      // gone meanwhile
    }
  }
  return all;
}

/** A process's CPU so far (µs, all its threads); null when it is gone. */
export function processCpu(pid: number): number | null {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpu;
  } catch {
    return null;
  }
}

/** Each thread (task) of a process: its name (`comm`) and CPU so far (µs), by tid. Empty when the process is gone. */
export function tasks(pid: number): Map<number, { comm: string; cpu: number }> {
  const all = new Map<number, { comm: string; cpu: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return all;
  }
  for (const tid of tids) {
    try {
      const { comm, cpu } = parseStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
      all.set(Number(tid), { comm, cpu });
    } catch {
      // ended meanwhile
    }
  }
  return all;
}

/**
 * Waits until a server process has settled (below 0.1 core over two consecutive 250-ms windows), so a measured run is
 * not charged for the previous one's background tail. Gives up (and says so) after `timeoutMs`.
 */
export async function settleProcess(pid: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (quiet < 2) {
    const before = processCpu(pid);
    await new Promise((resolve) => setTimeout(resolve, 250));
    const after = processCpu(pid);
    if (before === null || after === null) return;
    quiet = after - before < 25_000 ? quiet + 1 : 0;
    if (Date.now() > deadline) {
      log(`   (the server did not settle within ${timeoutMs / 1000} s; measuring anyway)`);
      return;
    }
  }
}

export interface CpuUse {
  seconds: number;
  /** µs of the node processes (null when one of them is gone). */
  nodes: number | null;
  /** µs of every PostgreSQL process (postmaster, backends, WAL writer, checkpointer…). */
  postgres: number;
  /** The same by PostgreSQL process. */
  postgresByPid: Map<number, number>;
  /** Cores this bench (its main thread and client threads) kept busy. */
  selfCores: number;
  /**
   * Cores every other process kept busy: on a shared machine another program's load shows here instead of silently
   * in the figures.
   */
  otherCores: number;
  /** The other processes' CPU (µs) by pid, to name the busiest. */
  otherByPid: Map<number, { comm: string; used: number }>;
}

/**
 * Reads every process's CPU now; `close()` answers what each group spent since. A process that started in between
 * counts whole (its CPU is all in the window); one that ended in between is lost (the nodes' PostgreSQL connections
 * are pooled, so few do).
 */
export function cpuWindow(nodePids: number[]): { close(): CpuUse } {
  const started = clock();
  const before = processes();
  return {
    close() {
      const elapsed = seconds(started);
      const after = processes();
      let nodes: number | null = nodePids.every((pid) => before.has(pid) && after.has(pid)) ? 0 : null;
      let postgres = 0;
      const postgresByPid = new Map<number, number>();
      let self = 0;
      let other = 0;
      const otherByPid = new Map<number, { comm: string; used: number }>();
      for (const [pid, { comm, cpu }] of after) {
        const used = Math.max(0, cpu - (before.get(pid)?.cpu ?? 0));
        if (nodePids.includes(pid)) nodes = nodes === null ? null : nodes + used;
        else if (pid === process.pid) self += used;
        else if (comm === 'postgres') {
          postgres += used;
          postgresByPid.set(pid, used);
        } else if (used > 0) {
          other += used;
          otherByPid.set(pid, { comm, used });
        }
      }
      return { seconds: elapsed, nodes, postgres, postgresByPid, selfCores: self / (elapsed * 1e6), otherCores: other / (elapsed * 1e6), otherByPid };
    },
  };
}

/** Cores the node processes kept busy over the window ('—' when one is gone). */
export const idleNode = (cpu: CpuUse): string => (cpu.nodes === null ? '—' : (cpu.nodes / (cpu.seconds * 1e6)).toFixed(2));

/** Above this many cores of other work, a figure is flagged as disturbed. */
const BUSY_ELSEWHERE = 0.1;
/** The figures measured while something else kept the machine busy: said where measured and again under the table. */
export const disturbed: string[] = [];
export function flagDisturbed(what: string, cpu: CpuUse): void {
  if (cpu.otherCores <= BUSY_ELSEWHERE) return;
  disturbed.push(`${what} (${cpu.otherCores.toFixed(2)} cores)`);
  // The busiest of them by command line (while it still runs), so the reader knows what it was.
  const busiest = [...cpu.otherByPid]
    .sort((x, y) => y[1].used - x[1].used)
    .slice(0, 3)
    .map(([pid, { comm, used }]) => {
      let command = comm;
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 80) || comm;
      } catch {
        // gone since
      }
      return `${command} ${(used / (cpu.seconds * 1e6)).toFixed(2)}`;
    });
  log(`   WARNING: something else kept ${cpu.otherCores.toFixed(2)} cores busy meanwhile (${busiest.join('; ')}); this figure is disturbed`);
}
