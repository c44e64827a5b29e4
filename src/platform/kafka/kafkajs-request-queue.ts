/**
 * A mend of kafkajs 2.2.4's request queue (the pinned version; kafkajs is no longer released).
 *
 * After every response, `RequestQueue.checkPendingRequests` schedules itself again through
 * `scheduleCheckPendingRequests`, whose delay is `throttledUntil - Date.now()`: with no client-side throttle that is
 * `-1 - Date.now()`, so each broker connection the process has used wakes the event loop every millisecond for as
 * long as it lives, with nothing to do (tulios/kafkajs#1704), and Node.js 24 warns about the negative delay
 * (`TimeoutNegativeWarning`, tulios/kafkajs#1751). The mended method schedules a check only when requests are
 * waiting: then at the throttle's end, or after kafkajs's own 10 ms interval when the queue waits for a request in
 * flight to finish. Nothing else needs the timer: `push` sends at once or enqueues and schedules, and
 * `fulfillRequest` and a request's timeout check the queue themselves.
 */
import { createRequire } from 'node:module';

/** The kafkajs version this mend was written against: on any other the method is left as it is. */
export const MENDED_KAFKAJS_VERSION = '2.2.4';
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

export function scheduleCheckPendingRequests(this: RequestQueueLike): void {
  if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
  const untilUnthrottled = this.throttledUntil - Date.now();
  this.throttleCheckTimeoutId = setTimeout(
    () => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    },
    untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
  );
}

let mended: boolean | null = null;

/** Puts the mended method on kafkajs's RequestQueue (once per process); true when kafkajs is the version it fits. */
export function mendKafkajsRequestQueue(): boolean {
  if (mended !== null) return mended;
  const load = createRequire(require.resolve('kafkajs'));
  const version = (load('./package.json') as { version: string }).version;
  mended = version === MENDED_KAFKAJS_VERSION;
  if (mended) {
    const RequestQueue = load('./src/network/requestQueue') as { prototype: RequestQueueLike };
    RequestQueue.prototype.scheduleCheckPendingRequests = scheduleCheckPendingRequests;
  }
  return mended;
}
