/**
 * A merchant's ledger for one asset: one stream (`commerce-settlement-<merchant_uuid>-<asset>`) holding every
 * settlement intent (settlement.ts) and every transfer (transfer.ts) drawing on what has been settled to the merchant
 * in that asset, and what they hold and paid out. Both are decided on the stream's revision and appended with it, so
 * no two requests, of either kind, spend the same funds.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { decideSettlement, evolveSettlement, type SettlementCommand, type SettlementEvent, type SettlementLedger } from './settlement';
import { decideTransfer, evolveTransfer, TRANSFER_COMMAND_KINDS, type TransferCommand, type TransferEvent, type TransferLedger } from './transfer';

export type LedgerState = SettlementLedger & TransferLedger;
export type LedgerEvent = SettlementEvent | TransferEvent;
export type LedgerCommand = SettlementCommand | TransferCommand;

/** The stream name keeps the settlement prefix it was born with: the ledger came first as the settlements'. */
export const ledgerStream = (merchant_uuid: string, asset: string): string => `commerce-settlement-${merchant_uuid}-${asset.toLowerCase()}`;

function initialState(): LedgerState {
  return { intents: {}, transfers: {}, reserved: 0n, disbursed: 0n };
}

const isTransferEvent = (e: LedgerEvent): e is TransferEvent => e.type.startsWith('CommerceTransfer');
const isTransferCommand = (c: LedgerCommand): c is TransferCommand => TRANSFER_COMMAND_KINDS.has(c.kind);

function evolve(state: LedgerState, event: LedgerEvent): LedgerState {
  return isTransferEvent(event) ? evolveTransfer(state, event) : evolveSettlement(state, event);
}

function decide(command: LedgerCommand, state: LedgerState, ctx: DecideContext): LedgerEvent[] {
  return isTransferCommand(command) ? decideTransfer(command, state, ctx) : decideSettlement(command, state, ctx);
}

export const ledgerDecider: Decider<LedgerCommand, LedgerState, LedgerEvent> = { initialState, evolve, decide };
