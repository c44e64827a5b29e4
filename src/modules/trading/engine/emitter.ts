/** Collects one decision's engine events, with the fields every one of them carries. */
import { CANCEL_REASONS, type EngineCancelCode, type EngineEvent } from '../domain/engine-events';
import { formatDecimal } from '../../../platform/decimal/fixed18';

export class Emitter {
  readonly events: EngineEvent[] = [];
  /** Every event of this decision carries these (listed, not spread: V8 spreads into large literals slowly). */
  readonly input_position: string;
  private trades = 0;
  constructor(
    readonly market_uuid: string,
    readonly position: bigint,
  ) {
    this.input_position = position.toString();
  }

  nextTradeIndex(): number {
    return this.trades++;
  }

  push(e: EngineEvent): void {
    this.events.push(e);
  }

  cancelled(order_uuid: string, profile_uuid: string, reason: EngineCancelCode, remaining: bigint): void {
    this.events.push({
      type: 'OrderCancelled',
      data: { market_uuid: this.market_uuid, input_position: this.input_position, order_uuid, profile_uuid, reason, cancel_reason: CANCEL_REASONS[reason], remaining: formatDecimal(remaining) },
    });
  }
}
