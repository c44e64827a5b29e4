/** Which thread runs what (src/platform/workers/thread-layout.ts), given the configuration. */
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { acceptsJob, threadNodeId, threadRoles, workerThreadConfig } from '../../src/platform/workers/thread-layout';
import { commitMessage, READ_EVERY, UNREAD_MAX } from '../../src/platform/workers/worker-threads.service';

const base = { NODE_ENV: 'test', DATA_DIR: '/tmp/thread-layout' };

describe('thread layout', () => {
  it('names a worker thread\'s member <node>.<role>, within NODE_ID\'s 64 characters and distinct per node', () => {
    expect(threadNodeId('node-a', 'background')).toBe('node-a.background');
    const long = 'n'.repeat(60);
    const other = `${'n'.repeat(59)}m`;
    expect(threadNodeId(long, 'background')).toHaveLength(64);
    expect(threadNodeId(long, 'background')).toMatch(/\.background$/);
    expect(threadNodeId(long, 'background')).not.toBe(threadNodeId(other, 'background'));
    expect(threadNodeId(long, 'background')).toMatch(/^[A-Za-z0-9._-]{1,64}$/);
  });

  it('gives a worker thread the main thread\'s configuration, minus what only the main thread starts', () => {
    const main = loadPlatformConfig({ ...base, WORKER_THREADS: '1', SEED_MARKETS: 'true', ADMIN_EMAIL: 'ops@platform.test', ADMIN_PASSWORD: 'Root-Passw0rd-2026!' });
    const worker = workerThreadConfig(main, 'node-a', 'background', 'bus-1');
    expect(worker).toMatchObject({ nodeId: 'node-a.background', workerThreads: 0, thread: { role: 'background', busId: 'bus-1' }, seedMarkets: false, matchingEngines: false });
    // The jobs it may run keep the main thread's switches: which of them it runs is the membership's to say.
    expect([worker.kafkaPublisher, worker.auditCheckpoints]).toEqual([main.kafkaPublisher, main.auditCheckpoints]);
    expect(worker.adminEmail).toBeUndefined();
    expect(worker.adminPassword).toBeUndefined();
    expect(worker.dataDir).toBe(main.dataDir);
    expect(worker.projectionsAutostart).toBe(true);
  });

  it('keeps the engines on the main thread and every other job on the background thread; alone, a node takes all', () => {
    const main = acceptsJob({ workerThreads: 1, thread: undefined })!;
    const background = acceptsJob({ workerThreads: 0, thread: { role: 'background', busId: 'b', threads: 1 } })!;
    const jobs = ['trading-orders', 'billing:rater', 'billing-period-close', 'engine:6f1c'];
    expect(jobs.map(main)).toEqual([false, false, false, true]);
    expect(jobs.map(background)).toEqual([true, true, true, false]);
    expect(acceptsJob({ workerThreads: 0, thread: undefined })).toBeUndefined();
  });

  it('with more threads, spreads the engines over engine threads and leaves the main thread to HTTP', () => {
    expect(threadRoles(0)).toEqual([]);
    expect(threadRoles(1)).toEqual(['background']);
    expect(threadRoles(3)).toEqual(['background', 'engines-1', 'engines-2']);
    const jobs = ['trading-orders', 'billing:rater', 'engine:6f1c'];
    expect(jobs.map(acceptsJob({ workerThreads: 3, thread: undefined })!)).toEqual([false, false, false]);
    expect(jobs.map(acceptsJob({ workerThreads: 0, thread: { role: 'engines-2', busId: 'b', threads: 3 } })!)).toEqual([false, false, true]);
    expect(jobs.map(acceptsJob({ workerThreads: 0, thread: { role: 'background', busId: 'b', threads: 3 } })!)).toEqual([true, true, false]);
    const main = loadPlatformConfig({ ...base, WORKER_THREADS: '3' });
    const engines = workerThreadConfig(main, 'node-a', 'engines-1', 'bus-1');
    expect(engines).toMatchObject({ nodeId: 'node-a.engines-1', matchingEngines: true, projectionsAutostart: false, kafkaPublisher: false, auditCheckpoints: false, thread: { role: 'engines-1', threads: 3 } });
  });

  it('reads WORKER_THREADS: auto by default, a count, and none on shared stores or an API-only node', () => {
    // auto by default: at least the background thread, on the embedded stores of a node that runs jobs.
    expect(loadPlatformConfig({ ...base }).workerThreads).toBeGreaterThanOrEqual(1);
    expect(loadPlatformConfig({ ...base, PROJECTIONS_AUTOSTART: 'false' }).workerThreads).toBe(0);
    expect(loadPlatformConfig({ ...base, WORKER_THREADS: '0' }).workerThreads).toBe(0);
    expect(loadPlatformConfig({ ...base, WORKER_THREADS: '3' }).workerThreads).toBe(3);
    expect(loadPlatformConfig({ ...base, WORKER_THREADS: 'auto' }).workerThreads).toBeGreaterThanOrEqual(1);
    expect(loadPlatformConfig({ ...base, WORKER_THREADS: 'auto', DATABASE_URL: 'postgres://127.0.0.1/x' }).workerThreads).toBe(0);
    expect(() => loadPlatformConfig({ ...base, WORKER_THREADS: 'many' })).toThrow(/WORKER_THREADS must be auto or a number/);
    expect(() => loadPlatformConfig({ ...base, WORKER_THREADS: '65' })).toThrow(/WORKER_THREADS: at most 64/);
    expect(() => loadPlatformConfig({ ...base, WORKER_THREADS: '2', EVENT_STORE_URL: 'postgres://127.0.0.1/x' })).toThrow(/embedded SQLite stores only/);
  });
});

describe('the log channel\'s back-pressure', () => {
  it('tells a worker where the log ends while it keeps up, and nothing once it is too far behind', () => {
    expect(commitMessage(7n, 1, 0)).toEqual({ moved: 7n, seq: 1 });
    expect(commitMessage(7n, UNREAD_MAX, 0)).toEqual({ moved: 7n, seq: UNREAD_MAX });
    expect(commitMessage(7n, UNREAD_MAX + 1, 0)).toBeNull();
    // Once it says it has read on, it is told again.
    expect(commitMessage(7n, UNREAD_MAX + 1, READ_EVERY)).toEqual({ moved: 7n, seq: UNREAD_MAX + 1 });
  });
});
