/**
 * The platform's one lease loop (src/platform/projections/lease-loop.ts), given a job whose steps the test controls:
 * the states it reports, standing by for a lost lease, backing off from a failure, staying 'failing' until the job
 * recovers, and stopping at any point without waiting for more work.
 */
import { LeaseLost } from '../../src/platform/projections/checkpoint.store';
import { LeaseLoop, type LeaseJob, type LeaseState } from '../../src/platform/projections/lease-loop';
import { until } from '../support/traders';

/** A job that records what the loop asked of it; `work` runs until interrupted unless a step says otherwise. */
function job(over: Partial<LeaseJob> = {}): LeaseJob & { calls: string[]; states: LeaseState[] } {
  const calls: string[] = [];
  const states: LeaseState[] = [];
  let interrupted: (() => void) | null = null;
  return {
    calls,
    states,
    leaseName: 'test-job',
    acquire: async () => {
      calls.push('acquire');
      return 7n;
    },
    work: (from) => {
      calls.push(`work ${from}`);
      return new Promise<void>((resolve) => {
        interrupted = resolve;
      });
    },
    interrupt: async () => {
      calls.push('interrupt');
      interrupted?.();
    },
    renew: async () => true,
    release: async () => {
      calls.push('release');
    },
    finish: async () => {
      calls.push('finish');
    },
    stateChanged: (s) => states.push(s),
    ...over,
  };
}


describe('LeaseLoop', () => {
  it('takes the lease, works from where the lease says, and on stop interrupts, finishes and releases, in that order', async () => {
    const j = job();
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    loop.start();
    await until(async () => loop.state, (st) => st === 'running');
    await loop.stop();
    expect(j.calls).toEqual(['acquire', 'work 7', 'interrupt', 'finish', 'release']);
    expect(j.states).toEqual(['starting', 'running', 'stopped']);
  });

  it('stands by while another process holds the lease, and a stop ends the wait at once', async () => {
    const j = job({
      acquire: async () => {
        throw new LeaseLost('test-job');
      },
    });
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    loop.start();
    await until(async () => loop.state, (st) => st === 'standby');
    await loop.stop(); // the stand-by wait is 10 s: this test's 5 s timeout catches a stop that waits it out
    expect(j.calls).toEqual(['interrupt', 'finish', 'release']);
  }, 5_000);

  /** Runs a failing job until `count` back-off pauses were taken; answers their lengths. */
  async function backOffs(random: () => number, count = 4): Promise<number[]> {
    const j = job();
    j.work = async () => {
      throw new Error('boom');
    };
    const loop = new LeaseLoop(j, { retryDelayMs: 40, maxRetryDelayMs: 160, random });
    const sleeps: number[] = [];
    loop.sleep = async (ms: number) => {
      sleeps.push(ms);
      // Yield to the timers so the loop does not spin in microtasks (and `until` gets to look).
      await new Promise((resolve) => setImmediate(resolve));
    };
    loop.start();
    await until(async () => sleeps.length, (n) => n >= count);
    await loop.stop();
    return sleeps.slice(0, count);
  }

  it('jitters each back-off between half and all of the doubling delay, so nodes do not retry in step', async () => {
    expect(await backOffs(() => 0.999999)).toEqual([40, 80, 160, 160]);
    expect(await backOffs(() => 0)).toEqual([20, 40, 80, 80]);
    // Ten nodes failing together: their first retries spread over the window instead of landing at one instant.
    const firsts = await Promise.all(Array.from({ length: 10 }, () => backOffs(Math.random, 1)));
    for (const [wait] of firsts) expect(wait).toBeGreaterThanOrEqual(20), expect(wait).toBeLessThanOrEqual(40);
    expect(new Set(firsts.map(([wait]) => wait)).size).toBeGreaterThan(1);
  }, 5_000);

  it('doubles the back-off up to its maximum, and starts again from the first delay once the job recovers', async () => {
    const j = job();
    j.work = async () => {
      throw new Error('boom');
    };
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20, random: () => 0.999999 });
    const sleeps: number[] = [];
    const sleep = loop.sleep.bind(loop);
    loop.sleep = (ms: number) => {
      sleeps.push(ms);
      return sleep(ms);
    };
    loop.start();
    await until(async () => sleeps.length, (n) => n >= 4);
    expect(sleeps.slice(0, 4)).toEqual([5, 10, 20, 20]);
    const before = sleeps.length;
    loop.recovered(); // e.g. a batch applied between two failures
    await until(async () => sleeps.length, (n) => n > before);
    expect(sleeps[before]).toBe(5);
    await loop.stop();
  }, 5_000);

  it('a stop cuts short a pause the job takes inside its work (a poll)', async () => {
    const j = job();
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    j.work = async () => {
      while (!loop.isStopping) await loop.sleep(60_000);
    };
    loop.start();
    await until(async () => loop.state, (st) => st === 'running');
    await loop.stop();
    expect(loop.state).toBe('stopped');
  }, 5_000);

  it('backs off from a failure and stays failing until the job says it recovered', async () => {
    let attempts = 0;
    const failed: string[] = [];
    const j = job({ failed: (e) => failed.push((e as Error).message) });
    const work = j.work;
    j.work = async (from) => {
      attempts += 1;
      if (attempts <= 2) throw new Error(`boom ${attempts}`);
      return work(from);
    };
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    loop.start();
    await until(async () => attempts, (n) => n === 3);
    expect(failed).toEqual(['boom 1', 'boom 2']);
    expect(loop.state).toBe('failing'); // working again, but nothing has proved it yet
    expect(loop.lastError).toBe('boom 2');
    loop.recovered();
    expect(loop.state).toBe('running');
    expect(loop.lastError).toBeNull();
    await loop.stop();
  });

  it('counts as running once prepared again when the job says so (an engine rebuilt from its stream)', async () => {
    let attempts = 0;
    const j = job({
      prepare: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error('restore failed');
      },
    });
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20, failingUntilRecovered: false });
    loop.start();
    await until(async () => loop.state, (st) => st === 'running');
    expect(j.states).toEqual(['starting', 'failing', 'running']);
    await loop.stop();
  });

  it('stands by, not fails, on what the job names as another owner, and resets its state on any loss', async () => {
    const resets: number[] = [];
    const j = job({
      work: async () => {
        throw new Error('appended by another node');
      },
      standsBy: (e) => (e as Error).message === 'appended by another node',
      reset: () => resets.push(1),
    });
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    loop.start();
    await until(async () => loop.state, (st) => st === 'standby');
    expect(resets).toHaveLength(1);
    await loop.stop();
  });

  it('does not start working when stopped while the lease was being taken', async () => {
    let grant: (v: bigint) => void = () => undefined;
    const j = job({
      acquire: () =>
        new Promise<bigint>((resolve) => {
          grant = resolve;
        }),
    });
    const loop = new LeaseLoop(j, { retryDelayMs: 5, maxRetryDelayMs: 20 });
    loop.start();
    const stopped = loop.stop();
    grant(7n);
    await stopped;
    expect(j.calls).toEqual(['interrupt', 'finish', 'release']);
    expect(loop.state).toBe('stopped');
  });
});
