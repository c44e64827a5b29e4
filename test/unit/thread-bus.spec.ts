/** The in-process bus between a platform's threads (src/platform/workers/thread-bus.ts). */
import { ThreadBus } from '../../src/platform/workers/thread-bus';

const next = <T>(bus: ThreadBus, channel: string): Promise<T> =>
  new Promise((resolve) => {
    const l = bus.listen<T>(channel, (m) => {
      l.stop();
      resolve(m);
    });
  });

describe('ThreadBus', () => {
  it('delivers a message, rows with bigints included, to the listeners of its channel, in order', async () => {
    const a = new ThreadBus('bus-1');
    const b = new ThreadBus('bus-1');
    const seen: unknown[] = [];
    const l = b.listen('log', (m) => seen.push(m));
    a.notify('log', { commit: [{ position: 1n }] });
    a.notify('log', { commit: [{ position: 2n }] });
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([{ commit: [{ position: 1n }] }, { commit: [{ position: 2n }] }]);
    expect(l.listening).toBe(true);
    l.stop();
    expect(l.listening).toBe(false);
    a.close();
    b.close();
  });

  it('never crosses between two buses (two platforms in one process) or two channels', async () => {
    const a = new ThreadBus('bus-a');
    const other = new ThreadBus('bus-b');
    const seen: unknown[] = [];
    other.listen('log', (m) => seen.push(['other bus', m]));
    const b = new ThreadBus('bus-a');
    b.listen('checkpoints', (m) => seen.push(['other channel', m]));
    const got = next<string>(b, 'log');
    a.notify('log', 'hello');
    expect(await got).toBe('hello');
    await new Promise((r) => setTimeout(r, 20));
    expect(seen).toEqual([]);
    for (const bus of [a, b, other]) bus.close();
  });
});
