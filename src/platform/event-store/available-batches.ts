/**
 * Groups an async iterable into batches of what is already available: a batch closes when it is full or when the
 * source would have to wait (an event-loop turn passes without a new item). Catch-up gets big transactions,
 * live traffic gets low latency.
 */
const IDLE = Symbol('idle');

export async function* availableBatches<T>(source: AsyncIterable<T>, maxSize: number): AsyncGenerator<T[], void, undefined> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | null = null;
  let batch: T[] = [];
  try {
    for (;;) {
      const next: Promise<IteratorResult<T>> = pending ?? iterator.next();
      pending = null;
      let result: IteratorResult<T> | typeof IDLE;
      if (batch.length === 0) {
        result = await next;
      } else {
        let timer: NodeJS.Immediate | undefined;
        const idle = new Promise<typeof IDLE>((resolve) => (timer = setImmediate(() => resolve(IDLE))));
        result = await Promise.race([next, idle]);
        clearImmediate(timer);
      }
      if (result === IDLE) {
        pending = next;
        yield batch;
        batch = [];
        continue;
      }
      if (result.done) {
        if (batch.length > 0) yield batch;
        return;
      }
      batch.push(result.value);
      if (batch.length >= maxSize) {
        yield batch;
        batch = [];
      }
    }
  } finally {
    // Not awaited: with a read still pending, the source's return() waits for it; the owner closes the source.
    void iterator.return?.()?.catch(() => undefined);
  }
}
