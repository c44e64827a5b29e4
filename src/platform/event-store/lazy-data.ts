/**
 * Large event data (an engine snapshot: a megabyte of JSON, 4 ms of JSON.parse) is parsed when a reader first reads
 * `data`, not when the event is read: most readers pass such an event by on its type (the billing rater, a projector
 * that was not waiting at its commit), and parsing it for them stopped the event loop once per snapshot. The stores'
 * `toRecorded` makes these events; readers see a plain `data` member either way.
 */
import type { JsonObject } from '../commitments/json';
import type { RecordedEvent } from './event-store.port';

/** Characters of data text above which it is parsed on first read. */
export const LAZY_DATA_CHARS = 64 * 1024;

/** The text of each lazy event whose data no one has read yet. */
const unparsed = new WeakMap<object, string>();

/** `e` with `data` parsed from `text` on first read (or replaced by a write), then a plain member. */
export function withLazyData(e: Omit<RecordedEvent, 'data'> & { data?: unknown }, text: string): RecordedEvent {
  unparsed.set(e, text);
  const settle = (value: JsonObject): JsonObject => {
    unparsed.delete(e);
    Object.defineProperty(e, 'data', { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(e, 'data', {
    enumerable: true,
    configurable: true,
    get: () => settle(JSON.parse(text) as JsonObject),
    set: settle,
  });
  return e as RecordedEvent;
}

/** The data's JSON text (canonical, as stored) while it is still unparsed; undefined otherwise. */
export function unparsedData(e: object): string | undefined {
  return unparsed.get(e);
}
