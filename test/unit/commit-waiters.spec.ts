/**
 * CommitWaiters (src/platform/event-store/log-subscription.ts): a commit wakes its waiters one per turn of the event
 * loop, so what arrives on the sockets between two subscribers' steps is served before the next step, not after all.
 */
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { CommitWaiters, type LogSubscription } from '../../src/platform/event-store/log-subscription';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CommitWaiters', () => {
  it('wakes the first waiter at once and each next one after the loop has polled its sockets again', async () => {
    // A real loopback socket: what a request arriving during a commit's wake-up is to the event loop.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => client.once('connect', resolve));
    const peer = await accepted;
    try {
      const waiters = new CommitWaiters();
      const order: string[] = [];
      const waits = ['a', 'b', 'c'].map((name) => {
        const w = waiters.wait(60_000);
        void w.promise.then(() => order.push(name));
        return w;
      });
      peer.on('data', () => order.push('request'));
      // As the store does: the wake-up runs in a turn of its own (after a commit), while bytes wait on a socket.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          client.write('x');
          const until = Date.now() + 20;
          while (Date.now() < until); // the bytes reach the peer's socket meanwhile
          waiters.wake();
          expect(waiters.size).toBe(0);
          resolve();
        }),
      );
      await Promise.all(waits.map((w) => w.promise));
      expect(order).toEqual(['a', 'request', 'b', 'c']);
      expect(waiters.generation).toBe(1);
    } finally {
      client.destroy();
      peer.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('wakes the subscriptions something waits for first, and the others after them, one per turn', async () => {
    const waiters = new CommitWaiters();
    const order: string[] = [];
    const owner = (awaited: boolean) => ({ isAwaited: () => awaited, passesOver: () => false }) as unknown as LogSubscription;
    const waits = (
      [
        ['idle-1', false],
        ['awaited-1', true],
        ['idle-2', false],
        ['awaited-2', true],
      ] as const
    ).map(([name, awaited]) => {
      const w = waiters.wait(60_000, owner(awaited));
      void w.promise.then(() => order.push(name));
      return w;
    });
    waiters.wake([{ type: 'OrderAccepted', position: 1n, occurred_at: '2026-11-28T00:00:00.000Z' }]);
    await Promise.resolve();
    expect(order).toEqual(['awaited-1']);
    await Promise.all(waits.map((w) => w.promise));
    expect(order).toEqual(['awaited-1', 'awaited-2', 'idle-1', 'idle-2']);
  });

  it('asks again each turn: a subscription something came to wait for after the commit goes before the idle ones', async () => {
    const waiters = new CommitWaiters();
    const order: string[] = [];
    const flags = { late: false };
    const owner = (awaited: () => boolean) => ({ isAwaited: awaited, passesOver: () => false }) as unknown as LogSubscription;
    const waits = (
      [
        ['idle-1', () => false],
        ['idle-2', () => false],
        ['late', () => flags.late],
      ] as const
    ).map(([name, awaited]) => {
      const w = waiters.wait(60_000, owner(awaited));
      void w.promise.then(() => order.push(name));
      return w;
    });
    waiters.wake();
    await Promise.resolve();
    expect(order).toEqual(['idle-1']);
    flags.late = true; // a request's read-your-writes, begun once its append resolved
    await Promise.all(waits.map((w) => w.promise));
    expect(order).toEqual(['idle-1', 'late', 'idle-2']);
  });

  it('wakes every waiter even when one is cancelled between the turns', async () => {
    const waiters = new CommitWaiters();
    const woken: number[] = [];
    const waits = [0, 1, 2].map((i) => {
      const w = waiters.wait(60_000);
      void w.promise.then(() => woken.push(i));
      return w;
    });
    waiters.wake();
    waits[2].cancel(); // resolves it at once, as a cancel does
    await Promise.all(waits.map((w) => w.promise));
    await turn();
    await turn();
    expect(woken.sort()).toEqual([0, 1, 2]);
  });

  it('ends a wait after its poll timeout without a commit', async () => {
    const waiters = new CommitWaiters();
    const started = Date.now();
    await waiters.wait(30).promise;
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(waiters.size).toBe(0);
  });
});
