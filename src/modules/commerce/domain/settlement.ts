/**
 * Settlement intents: a merchant's request to move settled funds to a destination it names. Every intent of one
 * merchant and asset lives on one ledger stream (ledger.ts, with the transfers drawing on the same balance), which
 * holds what is reserved and paid out; a request is decided against the ledger's revision and appended with it, so
 * two requests can never spend the same balance. What has been settled to the merchant (its SETTLED payments) comes from the payments
 * read model and only grows: a lagging read can only understate the balance, never overspend it.
 *
 * | From | Transition | To | Who |
 * |---|---|---|---|
 * | (new) | request | REQUESTED | workspace owner or admin; the amount is reserved |
 * | REQUESTED | approve | APPROVED | the platform's treasury (admin) |
 * | APPROVED | submit | SUBMITTED | the rail |
 * | SUBMITTED | confirm | CONFIRMED | the rail; the reservation becomes a payout |
 * | APPROVED, SUBMITTED | fail | FAILED | the rail; the reservation is released |
 * | REQUESTED, APPROVED | cancel | CANCELLED | workspace owner or admin (OWNER_CANCELLED); released |
 *
 * `request_commitment`: SHA-256 over the JCS form of {merchant_uuid, network_id, asset, amount, destination, revision};
 * the revision grows with every change, so the commitment a cancel must present is always the latest one.
 */
import type { DecideContext } from '../../../platform/command/decider';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import { COMMERCE_NETWORKS, isAddressOf, money, parseMoney } from './money';

export const SETTLEMENT_STATES = ['REQUESTED', 'APPROVED', 'SUBMITTED', 'CONFIRMED', 'FAILED', 'CANCELLED'] as const;
export type SettlementState = (typeof SETTLEMENT_STATES)[number];
export const SETTLEMENT_TRANSITIONS = ['approve', 'submit', 'confirm', 'fail', 'cancel'] as const;
export type SettlementTransition = (typeof SETTLEMENT_TRANSITIONS)[number];
export const TREASURY_TRANSITIONS = ['approve', 'submit', 'confirm', 'fail'] as const;
export type TreasuryTransition = (typeof TREASURY_TRANSITIONS)[number];

type ChangeType = 'CommerceSettlementApproved' | 'CommerceSettlementSubmitted' | 'CommerceSettlementConfirmed' | 'CommerceSettlementFailed' | 'CommerceSettlementCancelled';
export const SETTLEMENT_RULES: Record<SettlementTransition, { from: readonly SettlementState[]; to: SettlementState; event: ChangeType }> = {
  approve: { from: ['REQUESTED'], to: 'APPROVED', event: 'CommerceSettlementApproved' },
  submit: { from: ['APPROVED'], to: 'SUBMITTED', event: 'CommerceSettlementSubmitted' },
  confirm: { from: ['SUBMITTED'], to: 'CONFIRMED', event: 'CommerceSettlementConfirmed' },
  fail: { from: ['APPROVED', 'SUBMITTED'], to: 'FAILED', event: 'CommerceSettlementFailed' },
  cancel: { from: ['REQUESTED', 'APPROVED'], to: 'CANCELLED', event: 'CommerceSettlementCancelled' },
};
/** States whose amount is held from the balance. */
const RESERVING: ReadonlySet<SettlementState> = new Set(['REQUESTED', 'APPROVED', 'SUBMITTED']);


export interface SettlementIntentCore {
  settlement_intent_uuid: string;
  merchant_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  network_id: string;
  asset: string;
  amount: string;
  destination: string;
  requested_by_profile_uuid: string;
  created: string;
}

export interface SettlementChange {
  settlement_intent_uuid: string;
  from: SettlementState;
  to: SettlementState;
  revision: number;
  request_commitment: string;
  by_profile_uuid: string | null;
  transaction_reference: string | null;
  failure_code: string | null;
  reason_code: string | null;
  at: string;
}

export type SettlementEvent =
  | { type: 'CommerceSettlementRequested'; data: { intent: SettlementIntentCore; revision: number; request_commitment: string } }
  | { type: ChangeType; data: SettlementChange };

export interface IntentState {
  intent: SettlementIntentCore;
  state: SettlementState;
  revision: number;
  request_commitment: string;
  updated: string;
  transaction_reference: string | null;
  failure_code: string | null;
  reason_code: string | null;
}

/** What settlement intents read and change of their ledger (ledger.ts holds the whole, transfers included). */
export interface SettlementLedger {
  intents: Record<string, IntentState>;
  /** Atoms held by intents and transfers not yet finished. */
  reserved: bigint;
  /** Atoms paid out by confirmed intents and transfers. */
  disbursed: bigint;
}

export type SettlementCommand =
  | { kind: 'RequestSettlement'; intent: SettlementIntentCore; /** Settled to the merchant so far (payments read model), in the asset. */ credited: string }
  | { kind: 'CancelSettlement'; settlement_intent_uuid: string; network_id: string; expected_request_commitment: string; by_profile_uuid: string }
  | { kind: 'TreasuryUpdate'; settlement_intent_uuid: string; transition: TreasuryTransition; by_profile_uuid: string; transaction_reference: string | null; failure_code: string | null };

export class SettlementIntentNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such settlement intent.');
  }
}

export function requestCommitment(intent: Pick<SettlementIntentCore, 'merchant_uuid' | 'network_id' | 'asset' | 'amount' | 'destination'>, revision: number): string {
  return sha256Hex(canonicalJson({ merchant_uuid: intent.merchant_uuid, network_id: intent.network_id, asset: intent.asset, amount: intent.amount, destination: intent.destination, revision }));
}

/** What the merchant may still request: credited − reserved − disbursed. */
export const availableOf = (state: { reserved: bigint; disbursed: bigint }, credited: bigint): bigint => credited - state.reserved - state.disbursed;

export function evolveSettlement<S extends SettlementLedger>(state: S, event: SettlementEvent): S {
  if (event.type === 'CommerceSettlementRequested') {
    const { intent, revision, request_commitment } = event.data;
    const entry: IntentState = { intent, state: 'REQUESTED', revision, request_commitment, updated: intent.created, transaction_reference: null, failure_code: null, reason_code: null };
    return { ...state, intents: { ...state.intents, [intent.settlement_intent_uuid]: entry }, reserved: state.reserved + parseMoney(intent.asset, intent.amount, 'amount') };
  }
  const d = event.data;
  const before = state.intents[d.settlement_intent_uuid];
  if (!before) return state;
  const amount = parseMoney(before.intent.asset, before.intent.amount, 'amount');
  const held = (s: SettlementState): bigint => (RESERVING.has(s) ? amount : 0n);
  const after: IntentState = {
    ...before,
    state: d.to,
    revision: d.revision,
    request_commitment: d.request_commitment,
    updated: d.at,
    transaction_reference: d.transaction_reference ?? before.transaction_reference,
    failure_code: d.failure_code,
    reason_code: d.reason_code,
  };
  return {
    ...state,
    intents: { ...state.intents, [d.settlement_intent_uuid]: after },
    reserved: state.reserved - held(d.from) + held(d.to),
    disbursed: state.disbursed + (d.to === 'CONFIRMED' ? amount : 0n),
  };
}

export function decideSettlement(command: SettlementCommand, state: SettlementLedger, ctx: DecideContext): SettlementEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'RequestSettlement') {
    const intent = command.intent;
    if (state.intents[intent.settlement_intent_uuid]) return [];
    const network = COMMERCE_NETWORKS[intent.network_id];
    if (!network || !network.assets.includes(intent.asset)) {
      throw new RuleViolation(`${intent.network_id} does not carry ${intent.asset}.`, [{ field: 'network_id', issue: `carries ${network ? network.assets.join(', ') : 'nothing commerce knows'}` }]);
    }
    if (!isAddressOf(intent.network_id, intent.destination)) throw new RuleViolation(`The destination is not an address on ${intent.network_id}.`, [{ field: 'destination', issue: 'not an address of this network' }]);
    const amount = parseMoney(intent.asset, intent.amount, 'amount');
    const available = availableOf(state, parseMoney(intent.asset, command.credited, 'credited', { allowZero: true }));
    if (amount > available) {
      throw new RuleViolation('Not enough settled funds for this settlement.', [{ field: 'amount', issue: `available ${money(available > 0n ? available : 0n, intent.asset)} ${intent.asset}` }]);
    }
    const normalized = { ...intent, amount: money(amount, intent.asset) };
    return [{ type: 'CommerceSettlementRequested', data: { intent: normalized, revision: 0, request_commitment: requestCommitment(normalized, 0) } }];
  }
  const entry = state.intents[command.settlement_intent_uuid];
  if (!entry) throw new SettlementIntentNotFound();
  const transition: SettlementTransition = command.kind === 'CancelSettlement' ? 'cancel' : command.transition;
  if (command.kind === 'CancelSettlement') {
    if (command.network_id !== entry.intent.network_id) {
      throw new StateConflict('The settlement intent is on another network.', { details: [{ field: 'network_id', issue: `intent is on ${entry.intent.network_id}` }] });
    }
    if (command.expected_request_commitment !== entry.request_commitment) {
      throw new StateConflict('The settlement intent changed since you read it: read it again for its latest request_commitment.', {
        details: [{ field: 'expected_request_commitment', issue: 'not the latest request_commitment' }],
      });
    }
  }
  const rule = SETTLEMENT_RULES[transition];
  if (!rule.from.includes(entry.state)) {
    throw new StateConflict(`A ${entry.state} settlement intent cannot be ${PAST[transition]}.`, { details: [{ field: 'state', issue: `is ${entry.state}; ${transition} needs ${rule.from.join(' or ')}` }] });
  }
  const revision = entry.revision + 1;
  return [
    {
      type: rule.event,
      data: {
        settlement_intent_uuid: entry.intent.settlement_intent_uuid,
        from: entry.state,
        to: rule.to,
        revision,
        request_commitment: requestCommitment(entry.intent, revision),
        by_profile_uuid: command.by_profile_uuid,
        transaction_reference: command.kind === 'TreasuryUpdate' ? command.transaction_reference : null,
        failure_code: command.kind === 'TreasuryUpdate' && transition === 'fail' ? (command.failure_code ?? 'RAIL_FAILED') : null,
        reason_code: command.kind === 'CancelSettlement' ? 'OWNER_CANCELLED' : null,
        at,
      },
    },
  ];
}

const PAST: Record<SettlementTransition, string> = { approve: 'approved', submit: 'submitted', confirm: 'confirmed', fail: 'failed', cancel: 'cancelled' };
