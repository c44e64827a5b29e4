import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '../event-store/event-store.port';

/**
 * A projector folds domain events into one read model. `apply` runs inside the runner's transaction, which also
 * stores the projector's checkpoint: a row and the checkpoint that covers it commit together or not at all.
 */
export interface Projector {
  readonly name: string;
  /** Event types this projector reads; others only advance its checkpoint. */
  readonly handles: readonly string[];
  /**
   * Optional: the projector reads every event of the log, whatever its type (`handles` is then not consulted), each
   * exactly once and in position order: nothing is passed over. For a read model of the log itself (the audit Merkle
   * tree, whose leaf i is the i-th event). Such a projector is no part of a command's read-your-writes (`projectorsFor`):
   * no command's answer reads it, and every command would otherwise wait for it.
   */
  readonly handlesAll?: boolean;
  apply(event: RecordedEvent, tx: EntityManager): Promise<void>;
  /**
   * Optional: the batch's events for this projector at once, in log order, in place of `apply` on each: for a
   * projector that folds many events into one row (a billing account under a burst of usage) and writes it once.
   * Same transaction, same outcome as applying them one by one.
   */
  applyBatch?(events: RecordedEvent[], tx: EntityManager): Promise<void>;
  /** Deletes every row of the read model (rebuild from zero). */
  reset(tx: EntityManager): Promise<void>;
}

export const PROJECTORS = Symbol('PROJECTORS');
