/**
 * What a binding has committed, kept up to date event by event so that a decision costs the same with ten intents or
 * a hundred thousand: running totals per asset and UTC day / month of the reservations that hold, the open ones'
 * expiries in a min-heap, and reservation times for velocity. Before it, every decision re-read and re-parsed every
 * intent the binding ever had (63 ms per decision at 10,000 intents).
 *
 * A reservation stops counting the instant it expires, before any event records that; totals count it until the
 * event, so `committed` takes back the few that are overdue, found at the top of the heap. It answers exactly what
 * `sumReservations` answers over all of the binding's reservations (a property test holds the two together).
 */

/** A reservation that holds: pending approval, policy-approved or approved (until it expires), or settled (for good). */
interface Holding {
  asset: string;
  atoms: bigint;
  day: string;
  month: string;
  settled: boolean;
  /** Epoch ms; null never expires. */
  expires_ms: number | null;
}

interface Expiry {
  expires_ms: number;
  intent_uuid: string;
}

export interface BudgetIndex {
  holding: Map<string, Holding>;
  /** `<asset> <YYYY-MM-DD>` and `<asset> <YYYY-MM>` → atoms of holding reservations (overdue ones included). */
  day: Map<string, bigint>;
  month: Map<string, bigint>;
  /** Asset → holding reservations not settled (overdue ones included). */
  active: Map<string, number>;
  /** Min-heap on expires_ms of open reservations; entries go stale (settled, released, re-timed) and are skipped. */
  expiries: Expiry[];
  /** Creation times (ms) of reserved intents, ascending, for velocity; older than the longest window are dropped. */
  reserved_at: number[];
}

export const emptyBudgetIndex = (): BudgetIndex => ({ holding: new Map(), day: new Map(), month: new Map(), active: new Map(), expiries: [], reserved_at: [] });

const add = <K>(m: Map<K, bigint>, k: K, v: bigint): void => {
  const next = (m.get(k) ?? 0n) + v;
  if (next === 0n) m.delete(k);
  else m.set(k, next);
};
const count = <K>(m: Map<K, number>, k: K, v: number): void => {
  const next = (m.get(k) ?? 0) + v;
  if (next === 0) m.delete(k);
  else m.set(k, next);
};

function push(heap: Expiry[], e: Expiry): void {
  heap.push(e);
  for (let i = heap.length - 1; i > 0; ) {
    const parent = (i - 1) >> 1;
    if (heap[parent].expires_ms <= heap[i].expires_ms) break;
    [heap[parent], heap[i]] = [heap[i], heap[parent]];
    i = parent;
  }
}

function pop(heap: Expiry[]): void {
  const last = heap.pop()!;
  if (heap.length === 0) return;
  heap[0] = last;
  for (let i = 0; ; ) {
    const l = 2 * i + 1;
    const r = l + 1;
    let min = i;
    if (l < heap.length && heap[l].expires_ms < heap[min].expires_ms) min = l;
    if (r < heap.length && heap[r].expires_ms < heap[min].expires_ms) min = r;
    if (min === i) return;
    [heap[min], heap[i]] = [heap[i], heap[min]];
    i = min;
  }
}

const live = (ix: BudgetIndex, e: Expiry): Holding | undefined => {
  const h = ix.holding.get(e.intent_uuid);
  return h && !h.settled && h.expires_ms === e.expires_ms ? h : undefined;
};

/** Drops stale entries from the top of the heap (the rest are skipped when met). */
function tidy(ix: BudgetIndex): void {
  while (ix.expiries.length > 0 && !live(ix, ix.expiries[0])) pop(ix.expiries);
}

export function reserve(ix: BudgetIndex, intent_uuid: string, r: { asset: string; atoms: bigint; day: string; month: string; created_ms: number; expires_ms: number | null }, keepVelocityMs: number): void {
  ix.holding.set(intent_uuid, { asset: r.asset, atoms: r.atoms, day: r.day, month: r.month, settled: false, expires_ms: r.expires_ms });
  add(ix.day, `${r.asset} ${r.day}`, r.atoms);
  add(ix.month, `${r.asset} ${r.month}`, r.atoms);
  count(ix.active, r.asset, 1);
  if (r.expires_ms !== null) push(ix.expiries, { expires_ms: r.expires_ms, intent_uuid });
  const times = ix.reserved_at;
  let i = times.length;
  while (i > 0 && times[i - 1] > r.created_ms) i--;
  times.splice(i, 0, r.created_ms);
  const horizon = times[times.length - 1] - keepVelocityMs;
  let drop = 0;
  while (drop < times.length && times[drop] < horizon) drop++;
  if (drop > 0) times.splice(0, drop);
}

/** An approval re-times an open reservation (an approved intent holds for its lifetime). */
export function retime(ix: BudgetIndex, intent_uuid: string, expires_ms: number | null): void {
  const h = ix.holding.get(intent_uuid);
  if (!h || h.settled) return;
  h.expires_ms = expires_ms;
  if (expires_ms !== null) push(ix.expiries, { expires_ms, intent_uuid });
  tidy(ix);
}

/** Rejected or expired: the reservation no longer counts. */
export function release(ix: BudgetIndex, intent_uuid: string): void {
  const h = ix.holding.get(intent_uuid);
  if (!h) return;
  ix.holding.delete(intent_uuid);
  add(ix.day, `${h.asset} ${h.day}`, -h.atoms);
  add(ix.month, `${h.asset} ${h.month}`, -h.atoms);
  if (!h.settled) count(ix.active, h.asset, -1);
  tidy(ix);
}

/** Settled: counts for good, no longer open. */
export function settle(ix: BudgetIndex, intent_uuid: string): void {
  const h = ix.holding.get(intent_uuid);
  if (!h || h.settled) return;
  h.settled = true;
  count(ix.active, h.asset, -1);
  tidy(ix);
}

/** Reserved amounts of `asset` in the UTC day and month of `now` that hold at `now`, and the open ones among them. */
export function committedAt(ix: BudgetIndex, asset: string, day: string, month: string, now_ms: number): { day: bigint; month: bigint; active: number } {
  let d = ix.day.get(`${asset} ${day}`) ?? 0n;
  let m = ix.month.get(`${asset} ${month}`) ?? 0n;
  let active = ix.active.get(asset) ?? 0;
  // Overdue but not yet recorded as expired: every heap entry at or before now (a subtree past now is skipped whole).
  const heap = ix.expiries;
  const seen = new Set<string>();
  const stack = heap.length > 0 ? [0] : [];
  while (stack.length > 0) {
    const i = stack.pop()!;
    const e = heap[i];
    if (e.expires_ms > now_ms) continue;
    const h = live(ix, e);
    if (h && h.asset === asset && !seen.has(e.intent_uuid)) {
      seen.add(e.intent_uuid);
      if (h.day === day) d -= h.atoms;
      if (h.month === month) m -= h.atoms;
      active -= 1;
    }
    if (2 * i + 1 < heap.length) stack.push(2 * i + 1);
    if (2 * i + 2 < heap.length) stack.push(2 * i + 2);
  }
  return { day: d, month: m, active };
}

/** Reservations made after `since_ms` (velocity). */
export function reservedSince(ix: BudgetIndex, since_ms: number): number {
  const times = ix.reserved_at;
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] > since_ms) hi = mid;
    else lo = mid + 1;
  }
  return times.length - lo;
}
