/**
 * Cancelling: a cancel is a request on the order's stream (OrderCancelRequested, at most one per order), which the
 * market's engine decides in log order against fills: the order is cancelled, or it was already filled or cancelled
 * (OrderCancelRejected). The handler waits (bounded) for the engine's decision and the order list to show it, so
 * the answer tells the outcome; past the bound it answers "requested" truthfully.
 *
 * Entries follow the seeds: variant A for an order the engine had taken (OPEN), variant B — a new cancel instance
 * in the event manager — for an order still NEW; unknown, foreign and final orders get `success: false`.
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { CommandExecutor } from '../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { recordAppend } from '../../platform/context/request-context';
import { PlatformError } from '../../platform/errors';
import { markStage } from '../../platform/observability/server-timing';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port';
import { ProjectionRunner } from '../../platform/projections/projection-runner';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { orderDecider, orderStream, type CancelRequestReason } from './domain/order';
import { MatchingEngineHost } from './engine-host';

export type CancelOutcomeKind = 'CANCELLED' | 'REQUESTED' | 'NOT_FOUND' | 'ALREADY_FINAL' | 'ALREADY_REQUESTED';

export interface CancelOutcome {
  order_uuid: string;
  kind: CancelOutcomeKind;
  ok: boolean;
  /** A for an order the engine held when asked, B for one still NEW (a new event-manager instance); null on failure. */
  variant: 'A' | 'B' | null;
  /** Status in the order list when the answer was made (null for unknown/foreign orders). */
  status: string | null;
  market_id: number;
  market_uuid: string | null;
  engine_id: string | null;
  /** The cancel request event (variant B's event manager instance). */
  request_event_id: string | null;
  requested_at: string | null;
  /** Global position of the cancel request (internal: what the engine must pass). */
  request_position: bigint | null;
  exec_time_ms: number;
  message: string;
}

interface OrderFacts {
  order_uuid: string;
  profile_uuid: string;
  status: string;
  market_uuid: string;
  market_id: number;
  engine_id: string | null;
}

export class CancelOrders {
  constructor(
    readonly principal: Principal,
    /** Explicit ids, or null for every NEW and OPEN order of the caller (optionally in one market). */
    readonly orderIds: string[] | null,
    readonly reason: CancelRequestReason,
    readonly note: string | null = null,
    readonly marketSymbol: string | null = null,
  ) {}
}

const FINAL = new Set(['FILLED', 'CANCELLED']);

@CommandHandler(CancelOrders)
export class CancelOrdersHandler implements ICommandHandler<CancelOrders, CancelOutcome[]> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly db: ReadModelDatabase,
    private readonly runner: ProjectionRunner,
    private readonly engines: MatchingEngineHost,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
  ) {}

  async execute(c: CancelOrders): Promise<CancelOutcome[]> {
    const started = performance.now();
    const timeout = this.config.readYourWritesTimeoutMs;
    let ids: string[];
    if (c.orderIds === null) {
      // Cancel-all covers every order accepted before it: let the order list catch up with the log first.
      if (!(await this.runner.waitFor(await this.store.headPosition(), ['trading-orders'], timeout))) {
        throw new PlatformError('SERVICE_UNAVAILABLE', 'The order list is behind; retry the cancel-all.', { retryAfter: 1 });
      }
      ids = await this.liveOrderIds(c.principal.profile_uuid, c.marketSymbol);
    } else ids = [...new Set(c.orderIds)];

    const before = await this.facts(ids);
    const outcomes = await Promise.all(ids.map((id) => this.request(c, id, before.get(id), started)));

    // Wait for each market's engine to decide the requests, then for the order list to show the decisions.
    const byMarket = new Map<string, bigint>();
    for (const o of outcomes) {
      if (o.kind !== 'REQUESTED' || !o.market_uuid) continue;
      const p = o.request_position!;
      if ((byMarket.get(o.market_uuid) ?? -1n) < p) byMarket.set(o.market_uuid, p);
    }
    const deadline = Date.now() + timeout;
    const progress = await Promise.all([...byMarket].map(([market, position]) => this.engines.waitForEngine(market, position, Math.max(0, deadline - Date.now()))));
    const appended = progress.reduce<bigint | null>((max, p) => (p?.appended_position != null && (max === null || p.appended_position > max) ? p.appended_position : max), null);
    if (appended !== null) {
      recordAppend(appended, ['OrderCancelled']);
      await this.runner.waitFor(appended, ['trading-orders'], Math.max(0, deadline - Date.now()));
    }
    markStage('engine');
    const after = await this.facts(outcomes.filter((o) => o.kind === 'REQUESTED').map((o) => o.order_uuid));
    for (const o of outcomes) {
      const now = after.get(o.order_uuid);
      if (o.kind !== 'REQUESTED' || !now) continue;
      o.status = now.status;
      o.engine_id = now.engine_id;
      o.exec_time_ms = Math.round(performance.now() - started);
      if (now.status === 'CANCELLED') {
        o.kind = 'CANCELLED';
        o.message = 'The order was cancelled.';
      } else if (now.status === 'FILLED') {
        o.kind = 'ALREADY_FINAL';
        o.ok = false;
        o.message = 'The order was filled before the cancellation reached the matching engine.';
      }
    }
    return outcomes;
  }

  private async request(c: CancelOrders, order_uuid: string, facts: OrderFacts | undefined, started: number): Promise<CancelOutcome> {
    const out: CancelOutcome = {
      order_uuid,
      kind: 'NOT_FOUND',
      ok: false,
      variant: null,
      status: null,
      market_id: 0,
      market_uuid: null,
      engine_id: null,
      request_event_id: null,
      requested_at: null,
      request_position: null,
      exec_time_ms: 0,
      message: 'No such order.',
    };
    const mine = facts !== undefined && facts.profile_uuid === c.principal.profile_uuid;
    if (mine) {
      Object.assign(out, { status: facts.status, market_id: facts.market_id, market_uuid: facts.market_uuid, engine_id: facts.engine_id });
      if (FINAL.has(facts.status)) {
        out.kind = 'ALREADY_FINAL';
        out.message = `The order is already ${facts.status}.`;
      }
    }
    if (out.kind !== 'ALREADY_FINAL') {
      try {
        // The order stream is the authority on ownership (an order the list does not show yet is still found).
        const outcome = await this.commands.execute(orderStream(order_uuid), orderDecider, { kind: 'RequestCancel', profile_uuid: c.principal.profile_uuid, reason: c.reason, note: c.note });
        const placed = outcome.state.placement!;
        const event = outcome.events[0];
        Object.assign(out, {
          kind: 'REQUESTED',
          ok: true,
          variant: out.status === null || out.status === 'NEW' ? 'B' : 'A',
          status: out.status ?? 'NEW',
          market_id: placed.market_id,
          market_uuid: placed.market_uuid,
          request_event_id: event.event_id,
          requested_at: event.occurred_at,
          request_position: outcome.position,
          message: 'Cancellation requested.',
        });
      } catch (error) {
        if (!(error instanceof PlatformError)) throw error;
        if (error.code === 'STATE_CONFLICT') {
          out.kind = 'ALREADY_REQUESTED';
          out.message = error.message;
        } else if (error.code === 'NOT_FOUND') {
          Object.assign(out, { status: null, market_id: 0, market_uuid: null, engine_id: null, message: 'No such order.' });
        } else throw error;
      }
    }
    out.exec_time_ms = Math.round(performance.now() - started);
    return out;
  }

  private async facts(ids: string[]): Promise<Map<string, OrderFacts>> {
    const found = new Map<string, OrderFacts>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      if (chunk.length === 0) continue;
      const rows: OrderFacts[] = await this.db.reader.query(
        this.db.sql(`SELECT order_uuid, profile_uuid, status, market_uuid, market_id, engine_id FROM mtf_orders WHERE order_uuid IN (${chunk.map(() => '?').join(', ')})`),
        chunk,
      );
      for (const r of rows) found.set(r.order_uuid, { ...r, market_id: Number(r.market_id) });
    }
    return found;
  }

  private async liveOrderIds(profile_uuid: string, marketSymbol: string | null): Promise<string[]> {
    const where = ["profile_uuid = ?", "status IN ('NEW', 'OPEN')", 'cancel_requested = 0'];
    const params: unknown[] = [profile_uuid];
    if (marketSymbol !== null) {
      where.push('market_symbol = ?');
      params.push(marketSymbol);
    }
    const rows: Array<{ order_uuid: string }> = await this.db.reader.query(this.db.sql(`SELECT order_uuid FROM mtf_orders WHERE ${where.join(' AND ')} ORDER BY position`), params);
    return rows.map((r) => r.order_uuid);
  }
}

/** Not found is a 404 for the single-order canonical cancel; the MTF map reports it per entry instead. */
export function throwUnlessCancelled(o: CancelOutcome): void {
  if (o.kind === 'NOT_FOUND') throw new PlatformError('NOT_FOUND', 'No such order.');
  if (o.kind === 'ALREADY_FINAL' || o.kind === 'ALREADY_REQUESTED') throw new PlatformError('STATE_CONFLICT', o.message);
}
