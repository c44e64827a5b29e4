/**
 * The matching engines' snapshot thread (engine-snapshots.ts is the host's side): receives an engine's captured state
 * in slices, then images it and makes the EngineSnapshotTaken event's canonical texts (snapshotTexts: the function
 * `MarketEngine.snapshot()` uses, then the event store's own `canonicalTexts`). The texts are therefore exactly what
 * appending the snapshot object on the request thread would store and commit to; only where the work runs differs.
 * Answers `{ id, texts }`, or `{ id, failure }` when the state could not be made into an event (nothing is appended).
 */
import { parentPort } from 'node:worker_threads';
import type { EngineCapture } from './engine/market-engine';
import { snapshotTexts, type SnapshotAnswer, type SnapshotBegin, type SnapshotRequest } from './engine-snapshots';

const port = parentPort!;
const building = new Map<number, { begin: SnapshotBegin; capture: EngineCapture }>();

port.on('message', (m: SnapshotRequest) => {
  if (m.kind === 'begin') {
    building.set(m.id, { begin: m, capture: { ...m.head, bids: [], asks: [], stops: [], positions: [] } });
    return;
  }
  const b = building.get(m.id);
  if (m.kind === 'drop' || !b) {
    building.delete(m.id);
    return;
  }
  if (m.kind === 'slice') {
    const into = b.capture[m.part] as unknown[];
    for (const item of m.items) into.push(item);
    return;
  }
  building.delete(m.id);
  let answer: SnapshotAnswer;
  try {
    const { data, committed, metadata } = snapshotTexts(b.begin, b.capture);
    answer = { id: m.id, texts: committed === data ? { data, metadata } : { data, committed, metadata } };
  } catch (error) {
    answer = { id: m.id, failure: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(answer);
});
