/**
 * The payment rail behind commerce: where a payment is authorized, submitted and settled, and where a settlement
 * intent's payout is sent. No real rail is connected to this platform, so no funds move (documents say
 * `funds_movement_available: false`): the adapter here is a simulation that is told when a payment or a payout waits
 * for it, and whose outcomes a platform admin (or a test) reports through the admin routes
 * (`POST /api/v1/commerce/admin/payments/{p}/rail`, `POST /api/v1/commerce/admin/settlement-intents/{s}/treasury`),
 * exactly as a real rail's callbacks would arrive. A real adapter implements the same port and reports its callbacks
 * through the same commands (ApplyPaymentRailUpdate, ApplyTreasuryUpdate).
 */
import { Injectable } from '@nestjs/common';
import type { PaymentCore } from './domain/invoice-records';
import type { SettlementIntentCore } from './domain/settlement';
import type { TransferCore } from './domain/transfer';

export interface PaymentRail {
  readonly name: string;
  /** Whether money actually moves through this rail. */
  readonly fundsMovementAvailable: boolean;
  /** A payment was created and waits for the rail's authorization. */
  paymentCreated(payment: PaymentCore): Promise<void>;
  /** A settlement intent was requested: the treasury will review it and the rail pay it out. */
  settlementRequested(intent: SettlementIntentCore): Promise<void>;
}

export const PAYMENT_RAIL = Symbol('PAYMENT_RAIL');

/**
 * The simulation: nothing leaves the platform, so being told changes nothing here; what waits for the rail is what
 * the read models show in AUTHORIZATION_REQUIRED (payments) and REQUESTED/APPROVED/SUBMITTED (settlements), and the
 * outcomes come through the admin routes.
 */
@Injectable()
export class SimulatedPaymentRail implements PaymentRail {
  readonly name = 'simulated';
  readonly fundsMovementAvailable = false;

  async paymentCreated(_payment: PaymentCore): Promise<void> {}

  async settlementRequested(_intent: SettlementIntentCore): Promise<void> {}
}

/**
 * Screening of transfers (sanctions, risk) and the governance that decides a transfer from a wallet several parties
 * control: ports like the rail. The simulations are told and do nothing; their outcomes come through the admin routes
 * (`POST /api/v1/transfers/admin/{t}/screening`, `…/governance`, `…/rail`), as a real provider's callbacks would.
 */
export interface TransferOversight {
  readonly name: string;
  /** A transfer waits for screening. */
  screeningRequested(transfer: TransferCore): Promise<void>;
  /** A transfer was bound to a governance proposal and an MPC signing request: their approvals are awaited. */
  governanceRequested(transfer: TransferCore, proposal_id: string, mpc_request_id: string): Promise<void>;
}

export const TRANSFER_OVERSIGHT = Symbol('TRANSFER_OVERSIGHT');

@Injectable()
export class SimulatedTransferOversight implements TransferOversight {
  readonly name = 'simulated';

  async screeningRequested(_transfer: TransferCore): Promise<void> {}

  async governanceRequested(_transfer: TransferCore, _proposal_id: string, _mpc_request_id: string): Promise<void> {}
}
