/**
 * The calling thread's CPU time (platform_thread_cpu_seconds_total, src/platform/observability/metrics.service.ts):
 * read from a /proc stat line, whose command name may hold spaces and parentheses, and on Linux the thread's own
 * time, not the process's (process.cpuUsage() counts every thread).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { cpuSecondsOfStat, threadStatPath } from '../../src/platform/observability/metrics.service';

/** A /proc/<pid>/task/<tid>/stat line with the given command name, utime and stime (the 14th and 15th fields). */
const statLine = (name: string, utime: number, stime: number): string =>
  `4242 (${name}) S 4200 4242 4200 0 -1 4194560 31005 0 12 0 ${utime} ${stime} 0 0 20 0 11 0 123456 1234567890 45678 18446744073709551615 1 1 0 0 0 0 0 16781312 134234626 0 0 0 17 3 0 0 0 0 0`;

describe('cpuSecondsOfStat', () => {
  it('given a stat line, then utime plus stime in seconds at 100 ticks a second', () => {
    expect(cpuSecondsOfStat(statLine('node', 250, 37))).toBeCloseTo(2.87, 10);
  });

  it('given a command name with spaces and parentheses, then the fields are counted after the last )', () => {
    expect(cpuSecondsOfStat(statLine('node (bg) 1) S 9 9', 1200, 300))).toBeCloseTo(15, 10);
  });

  it('given another clock tick rate, then the ticks are divided by it', () => {
    expect(cpuSecondsOfStat(statLine('node', 1000, 24), 1024)).toBeCloseTo(1, 10);
  });

  it('given a line of another shape (no name, cut short, a field not a count), then null', () => {
    expect(cpuSecondsOfStat('4242 S 4200 4242')).toBeNull();
    expect(cpuSecondsOfStat('4242 (node) S 4200 4242 4200 0 -1 4194560 31005 0 12 0 250')).toBeNull();
    expect(cpuSecondsOfStat(statLine('node', 250, 37).replace(' 250 37 ', ' 250 x '))).toBeNull();
    expect(cpuSecondsOfStat('')).toBeNull();
  });
});

const onLinux = existsSync('/proc/thread-self') ? describe : describe.skip;

onLinux('the calling thread on Linux', () => {
  const threadCpu = (): number => cpuSecondsOfStat(readFileSync(threadStatPath()!, 'utf8'))!;

  it('names this thread\'s entry under this process', () => {
    expect(threadStatPath()).toMatch(new RegExp(`^/proc/${process.pid}/task/\\d+/stat$`));
  });

  it('given another thread busy while this one waits, then this thread\'s time grows by far less than the process\'s', async () => {
    const before = threadCpu();
    const processBefore = process.cpuUsage();
    // A worker spinning until it has used 600 ms of CPU (not of wall time: on a loaded machine they differ), while
    // this thread only waits for it.
    const worker = new Worker(
      'const start = process.cpuUsage(); const used = () => { const u = process.cpuUsage(start); return (u.user + u.system) / 1e3; }; while (used() < 600) {}',
      { eval: true },
    );
    await new Promise((resolve, reject) => worker.on('exit', resolve).on('error', reject));
    const processUsed = process.cpuUsage(processBefore);
    const processSeconds = (processUsed.user + processUsed.system) / 1e6;
    expect(processSeconds).toBeGreaterThan(0.5);
    expect(threadCpu() - before).toBeLessThan(processSeconds - 0.4);
  });

  it('given this thread busy, then its time grows by about as much', () => {
    const before = threadCpu();
    const processBefore = process.cpuUsage();
    // Spin until the process has used 300 ms of CPU: with no other thread of this process busy, about all of it is
    // this thread's (the kernel's ticks are 10 ms).
    const used = (): number => {
      const u = process.cpuUsage(processBefore);
      return (u.user + u.system) / 1e6;
    };
    while (used() < 0.3) {
      // spin: CPU on this thread
    }
    expect(threadCpu() - before).toBeGreaterThan(0.2);
  });
});
