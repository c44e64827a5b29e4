/**
 * The mend of kafkajs's request queue (src/platform/kafka/kafkajs-request-queue.ts), on kafkajs's own RequestQueue:
 * unmended, a queue that has answered one request wakes every millisecond with nothing to do; mended, it schedules a
 * check only while requests wait, and still sends them when a throttle ends or a request in flight finishes.
 */
import { createRequire } from 'node:module';
import { MENDED_KAFKAJS_VERSION, mendKafkajsRequestQueue, scheduleCheckPendingRequests } from '../../src/platform/kafka/kafkajs-request-queue';

const load = createRequire(require.resolve('kafkajs'));
const RequestQueue = load('./src/network/requestQueue') as new (options: object) => Queue;
const original = (RequestQueue as unknown as { prototype: Queue }).prototype.scheduleCheckPendingRequests;

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  push(request: object): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
  scheduleCheckPendingRequests(): void;
}

const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
const newQueue = (maxInFlightRequests: number | null = null): Queue =>
  new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 'test', broker: 'b:9092', logger, instrumentationEmitter: null });

/** A request as kafkajs's Connection pushes one; `sent` records when its bytes would have gone out. */
function request(correlationId: number, sent: number[]): object {
  return {
    entry: { apiKey: 0, apiName: 'Produce', apiVersion: 7, correlationId, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: () => sent.push(correlationId),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const answer = (queue: Queue, correlationId: number): void => queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });

/** A queue with the given scheduling that has sent and been answered one request, 100 ms later: how often it checked meanwhile. */
async function answeredOnce(schedule: () => void): Promise<{ queue: Queue; sent: number[]; checks: () => number }> {
  const queue = newQueue();
  queue.scheduleCheckPendingRequests = schedule;
  let checks = 0;
  const check = queue.checkPendingRequests.bind(queue);
  queue.checkPendingRequests = () => {
    checks++;
    check();
  };
  const sent: number[] = [];
  queue.push(request(1, sent));
  answer(queue, 1);
  await sleep(100);
  return { queue, sent, checks: () => checks };
}

describe('kafkajs request-queue mend', () => {
  it('fits the pinned kafkajs, and puts the mended method on its RequestQueue', () => {
    expect(load('./package.json').version).toBe(MENDED_KAFKAJS_VERSION);
    expect(mendKafkajsRequestQueue()).toBe(true);
    expect((RequestQueue as unknown as { prototype: Queue }).prototype.scheduleCheckPendingRequests).toBe(scheduleCheckPendingRequests);
  });

  it('given kafkajs unmended, when a queue has answered a request, then it keeps waking with nothing to do (the bug)', async () => {
    const { queue, sent, checks } = await answeredOnce(original);
    queue.destroy();
    expect(sent).toEqual([1]);
    expect(checks()).toBeGreaterThan(10);
  });

  it('given the mend, when a queue has answered a request and nothing waits, then no check is scheduled', async () => {
    const { queue, sent, checks } = await answeredOnce(scheduleCheckPendingRequests);
    expect(sent).toEqual([1]);
    expect(checks()).toBe(1); // the one fulfillRequest runs itself
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('given the mend and a client-side throttle, when requests are pushed, then they wait for its end and are sent then', async () => {
    const queue = newQueue();
    queue.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
    const sent: number[] = [];
    queue.maybeThrottle(60);
    queue.push(request(1, sent));
    queue.push(request(2, sent));
    expect(sent).toEqual([]);
    expect(queue.throttleCheckTimeoutId).not.toBeNull();
    await sleep(20);
    expect(sent).toEqual([]);
    await sleep(80);
    expect(sent).toEqual([1, 2]);
    answer(queue, 1);
    answer(queue, 2);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });

  it('given the mend and a full in-flight window, when the request in flight is answered, then the waiting one is sent', async () => {
    const queue = newQueue(1);
    queue.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
    const sent: number[] = [];
    queue.push(request(1, sent));
    queue.push(request(2, sent));
    expect(sent).toEqual([1]);
    answer(queue, 1);
    expect(sent).toEqual([1, 2]);
    answer(queue, 2);
    await sleep(30);
    expect(queue.pending).toEqual([]);
    expect(queue.throttleCheckTimeoutId).toBeNull();
    queue.destroy();
  });
});
