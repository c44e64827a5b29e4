/** Settlement intent commands: request (reserving settled funds), cancel, the treasury's and the rail's reports. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Principal } from '../../../platform/auth/principal';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { RuleViolation } from '../../../platform/errors';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';
import { MERCHANTS } from '../../../../projections/commerce-merchants/commerce-merchants.read-model';
import { SETTLEMENT_INTENTS } from '../../../../projections/commerce-settlements/commerce-settlements.read-model';
import { merchantDecider, MerchantNotFound, merchantStream } from '../domain/merchant';
import { ledgerDecider, ledgerStream } from '../domain/ledger';
import { SettlementIntentNotFound, type TreasuryTransition } from '../domain/settlement';
import { CommerceAccess } from '../commerce-access';
import type { CancelSettlementIntentRequest, CreateSettlementIntentRequest } from '../dto/commerce.dto';
import { PAYMENT_RAIL, type PaymentRail } from '../rail';
import { settledTotal } from '../queries';
import type { Created } from './merchants';

export class RequestSettlement {
  constructor(readonly principal: Principal, readonly body: CreateSettlementIntentRequest) {}
}

@CommandHandler(RequestSettlement)
export class RequestSettlementHandler implements ICommandHandler<RequestSettlement, Created> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly access: CommerceAccess,
    private readonly db: ReadModelDatabase,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENT_RAIL) private readonly rail: PaymentRail,
  ) {}

  async execute({ principal, body }: RequestSettlement): Promise<Created> {
    const { record } = await this.access.record(principal, MERCHANTS, body.merchant_uuid, 'manage', () => new MerchantNotFound());
    // The merchant's status from its stream: one suspended a moment ago settles nothing.
    const { state: merchant } = await this.commands.load(merchantStream(body.merchant_uuid), merchantDecider);
    if (merchant.status !== 'ACTIVE') throw new RuleViolation('Only an ACTIVE merchant settles.', [{ field: 'merchant_uuid', issue: `merchant is ${merchant.status}` }]);
    const settlement_intent_uuid = nextId();
    const intent = {
      settlement_intent_uuid, merchant_uuid: body.merchant_uuid, workspace_uuid: record.workspace_uuid, tenant_uuid: record.tenant_uuid, network_id: body.network_id,
      asset: body.asset, amount: body.amount, destination: body.destination, requested_by_profile_uuid: principal.profile_uuid, created: this.clock().toISOString(),
    };
    const credited = await settledTotal(this.db, body.merchant_uuid, body.asset);
    const outcome = await this.commands.execute(ledgerStream(body.merchant_uuid, body.asset), ledgerDecider, { kind: 'RequestSettlement', intent, credited });
    const entry = outcome.state.intents[settlement_intent_uuid];
    if (entry && outcome.events.length > 0) await this.rail.settlementRequested(entry.intent);
    return { id: settlement_intent_uuid };
  }
}

async function intentLedger(access: CommerceAccess, principal: Principal | null, id: string): Promise<string> {
  const record = await access.actedOn(principal, SETTLEMENT_INTENTS, id, () => new SettlementIntentNotFound());
  return ledgerStream(record.merchant_uuid, record.asset);
}

export class CancelSettlement {
  constructor(readonly principal: Principal, readonly settlement_intent_uuid: string, readonly body: CancelSettlementIntentRequest) {}
}

@CommandHandler(CancelSettlement)
export class CancelSettlementHandler implements ICommandHandler<CancelSettlement, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, settlement_intent_uuid, body }: CancelSettlement): Promise<Created> {
    const stream = await intentLedger(this.access, principal, settlement_intent_uuid);
    await this.commands.execute(stream, ledgerDecider, {
      kind: 'CancelSettlement', settlement_intent_uuid, network_id: body.network_id, expected_request_commitment: body.expected_request_commitment, by_profile_uuid: principal.profile_uuid,
    });
    return { id: settlement_intent_uuid };
  }
}

export class ApplyTreasuryUpdate {
  constructor(readonly principal: Principal, readonly settlement_intent_uuid: string, readonly transition: TreasuryTransition, readonly transaction_reference: string | null, readonly failure_code: string | null) {}
}

@CommandHandler(ApplyTreasuryUpdate)
export class ApplyTreasuryUpdateHandler implements ICommandHandler<ApplyTreasuryUpdate, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, settlement_intent_uuid, transition, transaction_reference, failure_code }: ApplyTreasuryUpdate): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    const stream = await intentLedger(this.access, null, settlement_intent_uuid);
    await this.commands.execute(stream, ledgerDecider, { kind: 'TreasuryUpdate', settlement_intent_uuid, transition, by_profile_uuid: principal.profile_uuid, transaction_reference, failure_code });
    return { id: settlement_intent_uuid };
  }
}
