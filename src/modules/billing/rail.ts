/**
 * The payment rail behind billing's top-ups: billing's own port (billing imports no other module, so it does not
 * borrow commerce's rail; a deployment wires both to the same provider). No real rail is connected, so the adapter
 * here is a simulation that is told when a top-up waits for payment, and whose outcome a platform admin (or a test)
 * reports through `POST /api/v1/billing/admin/topups/{topup_id}/rail`, exactly as a real rail's callback would arrive.
 * Credits are granted only on SETTLED; a REVERSED report after that flags the top-up for review.
 */
import { Injectable } from '@nestjs/common';
import type { Topup } from './domain/account';

export interface BillingPaymentRail {
  readonly name: string;
  /** A top-up was requested and waits for its payment. */
  topupRequested(topup: Omit<Topup, 'status' | 'requested_at'> & { tenant_uuid: string }): Promise<void>;
}

export const BILLING_PAYMENT_RAIL = Symbol('BILLING_PAYMENT_RAIL');

@Injectable()
export class SimulatedBillingRail implements BillingPaymentRail {
  readonly name = 'simulated';

  async topupRequested(): Promise<void> {}
}
