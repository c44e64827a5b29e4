/**
 * The workload both event-store-against-Emmett benchmarks append (postgres- and sqlite-event-store.bench.ts): one
 * event shape, one store interface over either library, and the scenarios, so the two compare the same work.
 */
import type { EventMetadata } from '../../src/platform/event-store/event-store.port';
import { clock, seconds } from './report';

export const metadata: EventMetadata = { tenant_uuid: null, workspace_uuid: null, actor: { type: 'system', reference: 'bench' }, correlation_id: 'c'.repeat(32), causation_id: null, request_id: null, schema_version: 1 };
export const payload = (i: number) => ({ amount: `${i}.50`, currency: 'EUR', note: 'benchmark credit of a ledger account', reference: `ref-${i}` });

/** An event store as the scenarios drive it; `expected` is our revision (null: the stream must not exist). */
export interface BenchStore {
  appendOne(stream: string, i: number, expected: bigint | null): Promise<void>;
  appendBatch(stream: string, n: number): Promise<void>;
  close(): Promise<void>;
}

/** `writers` concurrent writers, each appending `perWriter` single events to its own stream with exact expectations. */
export async function concurrentSingles(store: BenchStore, tag: string, writers: number, perWriter: number): Promise<number> {
  const started = clock();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `single-${tag}-${w}`;
      for (let i = 0; i < perWriter; i++) await store.appendOne(stream, i, i === 0 ? null : BigInt(i - 1));
    }),
  );
  return (writers * perWriter) / seconds(started);
}

/** `count` sequential 100-event appends, each to a new stream. */
export async function batches(store: BenchStore, tag: string, count: number): Promise<number> {
  const started = clock();
  for (let b = 0; b < count; b++) await store.appendBatch(`batch-${tag}-${b}`, 100);
  return (count * 100) / seconds(started);
}
