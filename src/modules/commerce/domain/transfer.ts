/**
 * Transfers: a merchant's outbound transfer of settled funds, screened, carrying the travel-rule data (FATF
 * Recommendation 16, IVMS 101) encrypted for the receiving institution when the amount reaches the threshold, and
 * bound to a governance decision and a multi-party signing request when its source wallet requires one. A transfer
 * lives on its merchant's ledger stream for the asset (ledger.ts), beside the settlement intents: the two reserve the
 * same balance, decided on one revision, so they can never spend the same funds.
 *
 * | From | Trigger | To |
 * |---|---|---|
 * | (new) | request (funds reserved) | REQUESTED |
 * | REQUESTED | screening started | SCREENING |
 * | REQUESTED, SCREENING | screening: CLEAR | the next gate |
 * | REQUESTED, SCREENING | screening: FLAGGED | HELD |
 * | HELD | compliance review: CLEAR | the next gate |
 * | AWAITING_ENVELOPE | envelope authorized | the next gate |
 * | AWAITING_GOVERNANCE | proposal and MPC request both approved | READY |
 * | AWAITING_GOVERNANCE | governance rejected | FAILED (released) |
 * | READY | rail: submit | SUBMITTED |
 * | SUBMITTED | rail: confirm | CONFIRMED (paid out) |
 * | READY, SUBMITTED | rail: fail | FAILED (released) |
 * | any before SUBMITTED | compliance cancel | CANCELLED (released) |
 *
 * The next gate: AWAITING_ENVELOPE while the amount reaches the travel-rule threshold and no envelope is authorized,
 * then AWAITING_GOVERNANCE while the source wallet requires governance and it is not approved, then READY. Every move
 * is pinned to the transfer's version (0 when requested, +1 with each move).
 */
import type { DecideContext } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import { staleVersion } from './merchant';
import { COMMERCE_NETWORKS, isAddressOf, money, parseMoney } from './money';
import { availableOf } from './settlement';
import type { TransferEnvelope } from './transfer-envelope';

export const TRANSFER_STATES = ['REQUESTED', 'SCREENING', 'HELD', 'AWAITING_ENVELOPE', 'AWAITING_GOVERNANCE', 'READY', 'SUBMITTED', 'CONFIRMED', 'FAILED', 'CANCELLED'] as const;
export type TransferStateName = (typeof TRANSFER_STATES)[number];
const BEFORE_SUBMISSION: ReadonlySet<TransferStateName> = new Set(['REQUESTED', 'SCREENING', 'HELD', 'AWAITING_ENVELOPE', 'AWAITING_GOVERNANCE', 'READY']);
const RESERVING: ReadonlySet<TransferStateName> = new Set([...BEFORE_SUBMISSION, 'SUBMITTED']);

export const COMPLIANCE_REASON_CODES = ['SANCTIONS_MATCH', 'SUSPECTED_FRAUD', 'TRAVEL_RULE_INCOMPLETE', 'HIGH_RISK_JURISDICTION', 'CUSTOMER_REQUEST', 'OTHER'] as const;
export const GOVERNANCE_KINDS = ['PROPOSAL', 'MPC_REQUEST'] as const;
export type GovernanceKind = (typeof GOVERNANCE_KINDS)[number];

export interface TransferCore {
  transfer_uuid: string;
  merchant_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  source_wallet_uuid: string;
  network_id: string;
  asset: string;
  amount: string;
  destination: string;
  /** The amount reaches the travel-rule threshold in effect when requested: an envelope is required. */
  envelope_required: boolean;
  travel_rule_threshold: string;
  /** The source wallet requires a governance decision and an MPC signing request. */
  governance_required: boolean;
  requested_by_profile_uuid: string;
  created: string;
}

export interface TransferGovernance {
  proposal_id: string;
  mpc_request_id: string;
  proposal_approved: boolean;
  mpc_request_approved: boolean;
}

export interface TransferState {
  transfer: TransferCore;
  state: TransferStateName;
  version: number;
  updated: string;
  screening_reference: string | null;
  envelope: (TransferEnvelope & { manifest_commitment: string }) | null;
  governance: TransferGovernance | null;
  transaction_reference: string | null;
  failure_code: string | null;
  cancellation: { reason_code: string | null; evidence_commitment: string | null; by_profile_uuid: string; at: string } | null;
}

/** What every transfer move records beside its own facts. */
interface Move {
  transfer_uuid: string;
  from: TransferStateName;
  to: TransferStateName;
  version: number;
  at: string;
}

export type TransferEvent =
  | { type: 'CommerceTransferRequested'; data: { transfer: TransferCore } }
  | { type: 'CommerceTransferScreeningStarted'; data: Move }
  | { type: 'CommerceTransferScreened'; data: Move & { result: 'CLEAR' | 'FLAGGED'; screening_reference: string | null; by_profile_uuid: string | null } }
  | { type: 'CommerceTransferEnvelopeAuthorized'; data: Move & { envelope: TransferEnvelope & { manifest_commitment: string }; by_profile_uuid: string } }
  | { type: 'CommerceTransferGovernanceBound'; data: Move & { proposal_id: string; mpc_request_id: string; by_profile_uuid: string } }
  | { type: 'CommerceTransferGovernanceDecided'; data: Move & { kind: GovernanceKind; reference: string; outcome: 'APPROVED' | 'REJECTED' } }
  | { type: 'CommerceTransferSubmitted' | 'CommerceTransferConfirmed' | 'CommerceTransferFailed'; data: Move & { transaction_reference: string | null; failure_code: string | null } }
  | {
      type: 'CommerceTransferCancelled';
      data: Move & {
        reason_code: string | null;
        /** Any JSON the compliance officer attached: personal data (sealed in the log, never published in clear). */
        evidence: unknown;
        evidence_commitment: string | null;
        by_profile_uuid: string;
        /** Whose transfer it was: the person the evidence is about (its privacy subject). */
        requested_by_profile_uuid: string;
      };
    };

export type TransferCommand =
  | { kind: 'RequestTransfer'; transfer: TransferCore; credited: string }
  | { kind: 'StartScreening'; transfer_uuid: string }
  | { kind: 'ReportScreening'; transfer_uuid: string; expected_version: number; result: 'CLEAR' | 'FLAGGED'; screening_reference: string | null; by_profile_uuid: string | null }
  | { kind: 'AuthorizeEnvelope'; transfer_uuid: string; expected_version: number; envelope: TransferEnvelope & { manifest_commitment: string }; by_profile_uuid: string }
  | { kind: 'BindGovernance'; transfer_uuid: string; expected_version: number; proposal_id: string; mpc_request_id: string; by_profile_uuid: string }
  | { kind: 'DecideGovernance'; transfer_uuid: string; expected_version: number; governance_kind: GovernanceKind; outcome: 'APPROVED' | 'REJECTED' }
  | { kind: 'TransferRail'; transfer_uuid: string; expected_version: number; transition: 'submit' | 'confirm' | 'fail'; transaction_reference: string | null; failure_code: string | null }
  | { kind: 'ComplianceCancel'; transfer_uuid: string; expected_version: number; reason_code: string | null; evidence: unknown; evidence_commitment: string | null; by_profile_uuid: string };

export const TRANSFER_COMMAND_KINDS: ReadonlySet<string> = new Set(['RequestTransfer', 'StartScreening', 'ReportScreening', 'AuthorizeEnvelope', 'BindGovernance', 'DecideGovernance', 'TransferRail', 'ComplianceCancel']);

/** `ASSET=amount,…` (TRANSFER_TRAVEL_RULE_THRESHOLDS) as amounts per asset. */
export function parseThresholds(text: string): Record<string, string> {
  return Object.fromEntries(text.split(',').filter(Boolean).map((pair) => pair.split('=') as [string, string]));
}

/** Whether the amount needs an envelope: it reaches the asset's threshold, or the asset has none (always). */
export function envelopeRequired(asset: string, amount: bigint, thresholds: Record<string, string>): { required: boolean; threshold: string } {
  const threshold = thresholds[asset];
  if (threshold === undefined) return { required: true, threshold: '0' };
  return { required: amount >= parseMoney(asset, threshold, 'threshold', { allowZero: true }), threshold };
}

export class TransferNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such transfer.');
  }
}

/** What transfers read and change of their ledger. */
export interface TransferLedger {
  transfers: Record<string, TransferState>;
  reserved: bigint;
  disbursed: bigint;
}

/** A new transfer's state. */
export const transferOpened = (t: TransferCore): TransferState => ({
  transfer: t, state: 'REQUESTED', version: 0, updated: t.created, screening_reference: null, envelope: null, governance: null, transaction_reference: null, failure_code: null, cancellation: null,
});

/** One transfer after one of its moves (the ledger's evolve and the transfers read model apply the same). */
export function transferAfter(before: TransferState, event: Exclude<TransferEvent, { type: 'CommerceTransferRequested' }>): TransferState {
  const d = event.data;
  const after: TransferState = { ...before, state: d.to, version: d.version, updated: d.at };
  switch (event.type) {
    case 'CommerceTransferScreened':
      return { ...after, screening_reference: event.data.screening_reference ?? before.screening_reference };
    case 'CommerceTransferEnvelopeAuthorized':
      return { ...after, envelope: event.data.envelope };
    case 'CommerceTransferGovernanceBound':
      return { ...after, governance: { proposal_id: event.data.proposal_id, mpc_request_id: event.data.mpc_request_id, proposal_approved: false, mpc_request_approved: false } };
    case 'CommerceTransferGovernanceDecided':
      if (event.data.outcome === 'REJECTED') return { ...after, failure_code: 'GOVERNANCE_REJECTED' };
      return before.governance ? { ...after, governance: { ...before.governance, ...(event.data.kind === 'PROPOSAL' ? { proposal_approved: true } : { mpc_request_approved: true }) } } : after;
    case 'CommerceTransferSubmitted':
    case 'CommerceTransferConfirmed':
    case 'CommerceTransferFailed':
      return { ...after, transaction_reference: event.data.transaction_reference ?? before.transaction_reference, failure_code: event.data.failure_code };
    case 'CommerceTransferCancelled':
      return { ...after, cancellation: { reason_code: event.data.reason_code, evidence_commitment: event.data.evidence_commitment, by_profile_uuid: event.data.by_profile_uuid, at: event.data.at } };
    default:
      return after;
  }
}

export function evolveTransfer<S extends TransferLedger>(state: S, event: TransferEvent): S {
  if (event.type === 'CommerceTransferRequested') {
    const t = event.data.transfer;
    return { ...state, transfers: { ...state.transfers, [t.transfer_uuid]: transferOpened(t) }, reserved: state.reserved + parseMoney(t.asset, t.amount, 'amount') };
  }
  const d = event.data;
  const before = state.transfers[d.transfer_uuid];
  if (!before) return state;
  const amount = parseMoney(before.transfer.asset, before.transfer.amount, 'amount');
  const held = (s: TransferStateName): bigint => (RESERVING.has(s) ? amount : 0n);
  return {
    ...state,
    transfers: { ...state.transfers, [d.transfer_uuid]: transferAfter(before, event) },
    reserved: state.reserved - held(d.from) + held(d.to),
    disbursed: state.disbursed + (d.to === 'CONFIRMED' ? amount : 0n),
  };
}

/** Where a transfer goes once a gate is passed: the envelope it still needs, then the governance, then READY. */
export function nextGate(t: TransferState, envelope = t.envelope !== null, governance = t.governance?.proposal_approved === true && t.governance.mpc_request_approved): TransferStateName {
  if (t.transfer.envelope_required && !envelope) return 'AWAITING_ENVELOPE';
  if (t.transfer.governance_required && !governance) return 'AWAITING_GOVERNANCE';
  return 'READY';
}

export function decideTransfer(command: TransferCommand, state: TransferLedger, ctx: DecideContext): TransferEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'RequestTransfer') {
    const t = command.transfer;
    if (state.transfers[t.transfer_uuid]) return [];
    const network = COMMERCE_NETWORKS[t.network_id];
    if (!network || !network.assets.includes(t.asset)) {
      throw new RuleViolation(`${t.network_id} does not carry ${t.asset}.`, [{ field: 'network_id', issue: `carries ${network ? network.assets.join(', ') : 'nothing commerce knows'}` }]);
    }
    if (!isAddressOf(t.network_id, t.destination)) throw new RuleViolation(`The destination is not an address on ${t.network_id}.`, [{ field: 'destination', issue: 'not an address of this network' }]);
    const amount = parseMoney(t.asset, t.amount, 'amount');
    const available = availableOf(state, parseMoney(t.asset, command.credited, 'credited', { allowZero: true }));
    if (amount > available) throw new RuleViolation('Not enough settled funds for this transfer.', [{ field: 'amount', issue: `available ${money(available > 0n ? available : 0n, t.asset)} ${t.asset}` }]);
    return [{ type: 'CommerceTransferRequested', data: { transfer: { ...t, amount: money(amount, t.asset) } } }];
  }
  const entry = state.transfers[command.transfer_uuid];
  if (!entry) throw new TransferNotFound();
  const move = (to: TransferStateName): Move => ({ transfer_uuid: entry.transfer.transfer_uuid, from: entry.state, to, version: entry.version + 1, at });
  const needs = (...states: TransferStateName[]): void => {
    if (!states.includes(entry.state)) throw new StateConflict(`The transfer is ${entry.state}.`, { details: [{ field: 'state', issue: `is ${entry.state}; this needs ${states.join(' or ')}` }] });
  };
  if (command.kind === 'StartScreening') {
    if (entry.state !== 'REQUESTED') return [];
    return [{ type: 'CommerceTransferScreeningStarted', data: move('SCREENING') }];
  }
  if (command.expected_version !== entry.version) throw staleVersion('transfer', command.expected_version, entry.version);
  switch (command.kind) {
    case 'ReportScreening':
      // REQUESTED too: a crash between the request and its screening start must not strand the transfer.
      needs('REQUESTED', 'SCREENING', 'HELD');
      if (command.result === 'FLAGGED' && entry.state === 'HELD') throw new StateConflict('The transfer is already held for review.', { details: [{ field: 'result', issue: 'already FLAGGED' }] });
      return [{ type: 'CommerceTransferScreened', data: { ...move(command.result === 'FLAGGED' ? 'HELD' : nextGate(entry)), result: command.result, screening_reference: command.screening_reference, by_profile_uuid: command.by_profile_uuid } }];
    case 'AuthorizeEnvelope':
      needs('AWAITING_ENVELOPE');
      return [{ type: 'CommerceTransferEnvelopeAuthorized', data: { ...move(nextGate(entry, true)), envelope: command.envelope, by_profile_uuid: command.by_profile_uuid } }];
    case 'BindGovernance':
      needs('AWAITING_GOVERNANCE');
      if (entry.governance) throw new StateConflict('The transfer is already bound to a governance proposal.', { details: [{ field: 'proposalId', issue: `bound to ${entry.governance.proposal_id}` }] });
      return [{ type: 'CommerceTransferGovernanceBound', data: { ...move('AWAITING_GOVERNANCE'), proposal_id: command.proposal_id, mpc_request_id: command.mpc_request_id, by_profile_uuid: command.by_profile_uuid } }];
    case 'DecideGovernance': {
      needs('AWAITING_GOVERNANCE');
      const g = entry.governance;
      if (!g) throw new StateConflict('The transfer is not bound to a governance proposal yet.', { details: [{ field: 'governance', issue: 'not bound' }] });
      const reference = command.governance_kind === 'PROPOSAL' ? g.proposal_id : g.mpc_request_id;
      if (command.outcome === 'REJECTED') return [{ type: 'CommerceTransferGovernanceDecided', data: { ...move('FAILED'), kind: command.governance_kind, reference, outcome: 'REJECTED' } }];
      const approved = { proposal: g.proposal_approved || command.governance_kind === 'PROPOSAL', mpc: g.mpc_request_approved || command.governance_kind === 'MPC_REQUEST' };
      return [{ type: 'CommerceTransferGovernanceDecided', data: { ...move(approved.proposal && approved.mpc ? 'READY' : 'AWAITING_GOVERNANCE'), kind: command.governance_kind, reference, outcome: 'APPROVED' } }];
    }
    case 'TransferRail': {
      const rule = { submit: { from: ['READY'], to: 'SUBMITTED', type: 'CommerceTransferSubmitted' }, confirm: { from: ['SUBMITTED'], to: 'CONFIRMED', type: 'CommerceTransferConfirmed' }, fail: { from: ['READY', 'SUBMITTED'], to: 'FAILED', type: 'CommerceTransferFailed' } }[command.transition] as {
        from: TransferStateName[];
        to: TransferStateName;
        type: 'CommerceTransferSubmitted' | 'CommerceTransferConfirmed' | 'CommerceTransferFailed';
      };
      needs(...rule.from);
      return [{ type: rule.type, data: { ...move(rule.to), transaction_reference: command.transaction_reference, failure_code: command.transition === 'fail' ? (command.failure_code ?? 'RAIL_FAILED') : null } }];
    }
    case 'ComplianceCancel':
      needs(...BEFORE_SUBMISSION);
      return [
        {
          type: 'CommerceTransferCancelled',
          data: {
            ...move('CANCELLED'), reason_code: command.reason_code, evidence: command.evidence ?? null, evidence_commitment: command.evidence_commitment, by_profile_uuid: command.by_profile_uuid,
            requested_by_profile_uuid: entry.transfer.requested_by_profile_uuid,
          },
        },
      ];
  }
}
