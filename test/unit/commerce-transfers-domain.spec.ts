/** Transfers on the merchant's ledger, given/when/then on the ledger decider: gates, versions, reservations, evidence. */
import { PlatformError } from '../../src/platform/errors';
import { ledgerDecider, type LedgerCommand, type LedgerState } from '../../src/modules/commerce/domain/ledger';
import { envelopeRequired, parseThresholds, type TransferCore } from '../../src/modules/commerce/domain/transfer';
import { associatedDataCommitment, associatedDataOf, manifestCommitment } from '../../src/modules/commerce/domain/transfer-envelope';
import { governanceClaimDecider } from '../../src/modules/commerce/domain/governance-claim';
import { recipientKeyDecider, isX25519PublicKey } from '../../src/modules/commerce/domain/recipient-key';
import { parseMoney } from '../../src/modules/commerce/domain/money';
import { canonicalJson, sha256Hex } from '../../src/platform/commitments/commitment';
import { checkedEvidence } from '../../src/modules/commerce/commands/transfers';

const NOW = new Date('2026-11-25T10:00:00.000Z');
const ctx = () => ({ now: NOW, newId: () => '0'.repeat(32) });
const DEST = `0x${'d'.repeat(40)}`;
const T1 = '1'.repeat(32);
const core = (over: Partial<TransferCore> = {}): TransferCore => ({
  transfer_uuid: T1, merchant_uuid: 'a'.repeat(32), workspace_uuid: 'b'.repeat(32), tenant_uuid: '0'.repeat(32), source_wallet_uuid: 'c'.repeat(32), network_id: 'ethereum-mainnet',
  asset: 'USDC', amount: '1500', destination: DEST, envelope_required: true, travel_rule_threshold: '1000', governance_required: true, requested_by_profile_uuid: 'e'.repeat(32),
  created: NOW.toISOString(), ...over,
});

function given(commands: LedgerCommand[]): LedgerState {
  let state = ledgerDecider.initialState();
  for (const c of commands) for (const e of ledgerDecider.decide(c, state, ctx())) state = ledgerDecider.evolve(state, e);
  return state;
}
const refusal = (run: () => unknown): { code: string; current_version?: unknown; details: unknown } => {
  try {
    run();
  } catch (error) {
    if (error instanceof PlatformError) return { code: error.code, current_version: error.currentVersion, details: error.details };
    throw error;
  }
  throw new Error('expected a refusal');
};
const request = (over: Partial<TransferCore> = {}, credited = '2000'): LedgerCommand => ({ kind: 'RequestTransfer', transfer: core(over), credited });
const start: LedgerCommand = { kind: 'StartScreening', transfer_uuid: T1 };
const screen = (v: number, result: 'CLEAR' | 'FLAGGED' = 'CLEAR'): LedgerCommand => ({ kind: 'ReportScreening', transfer_uuid: T1, expected_version: v, result, screening_reference: 'scr-1', by_profile_uuid: null });
const envelope = (v: number): LedgerCommand => ({
  kind: 'AuthorizeEnvelope', transfer_uuid: T1, expected_version: v, by_profile_uuid: 'e'.repeat(32),
  envelope: { manifest_uuid: 'f'.repeat(32), ciphertext_sha256: '1'.repeat(64), payload_commitment: '2'.repeat(64), recipient_key_id: '3'.repeat(32), associated_data_commitment: '4'.repeat(64), encryption_algorithm: 'x', payload_schema: 'y', manifest_commitment: '5'.repeat(64) },
});
const bind = (v: number): LedgerCommand => ({ kind: 'BindGovernance', transfer_uuid: T1, expected_version: v, proposal_id: 'prop-1', mpc_request_id: 'mpc-1', by_profile_uuid: 'e'.repeat(32) });
const decide = (v: number, governance_kind: 'PROPOSAL' | 'MPC_REQUEST', outcome: 'APPROVED' | 'REJECTED' = 'APPROVED'): LedgerCommand => ({ kind: 'DecideGovernance', transfer_uuid: T1, expected_version: v, governance_kind, outcome });
const rail = (v: number, transition: 'submit' | 'confirm' | 'fail'): LedgerCommand => ({ kind: 'TransferRail', transfer_uuid: T1, expected_version: v, transition, transaction_reference: '0xtx', failure_code: null });
const cancel = (v: number): LedgerCommand => ({ kind: 'ComplianceCancel', transfer_uuid: T1, expected_version: v, reason_code: 'SANCTIONS_MATCH', evidence: { hit: 'list-1' }, evidence_commitment: checkedEvidence({ hit: 'list-1' }), by_profile_uuid: '9'.repeat(32) });
const stateOf = (s: LedgerState) => [s.transfers[T1].state, s.transfers[T1].version];

describe('transfer gates', () => {
  it('request reserves the amount; screening CLEAR leads to the envelope, then governance, then READY, each pinned to the version', () => {
    const requested = given([request()]);
    expect([stateOf(requested), requested.reserved]).toEqual([['REQUESTED', 0], parseMoney('USDC', '1500', 'a')]);
    expect(stateOf(given([request(), start]))).toEqual(['SCREENING', 1]);
    expect(stateOf(given([request(), start, screen(1)]))).toEqual(['AWAITING_ENVELOPE', 2]);
    expect(stateOf(given([request(), start, screen(1), envelope(2)]))).toEqual(['AWAITING_GOVERNANCE', 3]);
    expect(stateOf(given([request(), start, screen(1), envelope(2), bind(3)]))).toEqual(['AWAITING_GOVERNANCE', 4]);
    expect(stateOf(given([request(), start, screen(1), envelope(2), bind(3), decide(4, 'PROPOSAL')]))).toEqual(['AWAITING_GOVERNANCE', 5]);
    const ready = given([request(), start, screen(1), envelope(2), bind(3), decide(4, 'PROPOSAL'), decide(5, 'MPC_REQUEST')]);
    expect(stateOf(ready)).toEqual(['READY', 6]);
    const confirmed = given([request(), start, screen(1), envelope(2), bind(3), decide(4, 'PROPOSAL'), decide(5, 'MPC_REQUEST'), rail(6, 'submit'), rail(7, 'confirm')]);
    expect([stateOf(confirmed), confirmed.reserved, confirmed.disbursed]).toEqual([['CONFIRMED', 8], 0n, parseMoney('USDC', '1500', 'a')]);
  });

  it('below the threshold and from a wallet without governance, screening CLEAR makes it READY at once', () => {
    expect(stateOf(given([request({ envelope_required: false, governance_required: false }), start, screen(1)]))).toEqual(['READY', 2]);
  });

  it('a stale version is VERSION_CONFLICT with the current one; a move its state does not allow is STATE_CONFLICT', () => {
    const s = given([request(), start]);
    expect(refusal(() => ledgerDecider.decide(screen(0), s, ctx()))).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 1 });
    expect(refusal(() => ledgerDecider.decide(envelope(1), s, ctx())).code).toBe('STATE_CONFLICT');
    expect(refusal(() => ledgerDecider.decide(rail(1, 'submit'), s, ctx())).code).toBe('STATE_CONFLICT');
    // An envelope once per version: the second is decided on a moved transfer.
    const enveloped = given([request(), start, screen(1), envelope(2)]);
    expect(refusal(() => ledgerDecider.decide(envelope(2), enveloped, ctx())).code).toBe('VERSION_CONFLICT');
    expect(refusal(() => ledgerDecider.decide(envelope(3), enveloped, ctx())).code).toBe('STATE_CONFLICT');
  });

  it('FLAGGED holds it for compliance; a review CLEAR releases it; a rejected governance fails it and frees the funds', () => {
    const held = given([request(), start, screen(1, 'FLAGGED')]);
    expect(stateOf(held)).toEqual(['HELD', 2]);
    expect(stateOf(given([request(), start, screen(1, 'FLAGGED'), screen(2)]))).toEqual(['AWAITING_ENVELOPE', 3]);
    // A crash between the request and the start of screening leaves it REQUESTED: the screening's report still takes it.
    expect(stateOf(given([request(), screen(0)]))).toEqual(['AWAITING_ENVELOPE', 1]);
    const rejected = given([request(), start, screen(1), envelope(2), bind(3), decide(4, 'MPC_REQUEST', 'REJECTED')]);
    expect([stateOf(rejected), rejected.transfers[T1].failure_code, rejected.reserved]).toEqual([['FAILED', 5], 'GOVERNANCE_REJECTED', 0n]);
  });

  it('compliance cancel ends any state before SUBMITTED, releasing the reservation; not after', () => {
    for (const steps of [[request()], [request(), start], [request(), start, screen(1, 'FLAGGED')], [request(), start, screen(1)], [request(), start, screen(1), envelope(2)]]) {
      const s = given(steps);
      const events = ledgerDecider.decide(cancel(s.transfers[T1].version), s, ctx());
      const after = ledgerDecider.evolve(s, events[0]);
      expect([after.transfers[T1].state, after.reserved]).toEqual(['CANCELLED', 0n]);
      expect(events[0].data).toMatchObject({ reason_code: 'SANCTIONS_MATCH', evidence: { hit: 'list-1' }, requested_by_profile_uuid: 'e'.repeat(32) });
      expect(after.transfers[T1].cancellation).toEqual({ reason_code: 'SANCTIONS_MATCH', evidence_commitment: sha256Hex(canonicalJson({ hit: 'list-1' })), by_profile_uuid: '9'.repeat(32), at: NOW.toISOString() });
    }
    const submitted = given([request({ envelope_required: false, governance_required: false }), start, screen(1), rail(2, 'submit')]);
    expect(refusal(() => ledgerDecider.decide(cancel(3), submitted, ctx())).code).toBe('STATE_CONFLICT');
  });

  it('transfers and settlement intents share the balance: what one reserves the other cannot spend', () => {
    const s = given([request({ amount: '1500' }, '2000')]);
    const intent = { settlement_intent_uuid: '7'.repeat(32), merchant_uuid: 'a'.repeat(32), workspace_uuid: 'b'.repeat(32), tenant_uuid: '0'.repeat(32), network_id: 'ethereum-mainnet', asset: 'USDC', amount: '600', destination: DEST, requested_by_profile_uuid: 'e'.repeat(32), created: NOW.toISOString() };
    expect(refusal(() => ledgerDecider.decide({ kind: 'RequestSettlement', intent, credited: '2000' }, s, ctx())).code).toBe('RULE_VIOLATION');
    expect(ledgerDecider.decide({ kind: 'RequestSettlement', intent: { ...intent, amount: '500' }, credited: '2000' }, s, ctx())).toHaveLength(1);
    expect(refusal(() => ledgerDecider.decide(request({ transfer_uuid: '2'.repeat(32), amount: '501' }, '2000'), s, ctx())).code).toBe('RULE_VIOLATION');
  });
});

describe('envelope commitments, thresholds, keys, governance ids, evidence', () => {
  it('the manifest and associated-data commitments are SHA-256 of their RFC 8785 forms', () => {
    const m = { manifest_uuid: 'f'.repeat(32), ciphertext_sha256: '1'.repeat(64), payload_commitment: '2'.repeat(64), recipient_key_id: '3'.repeat(32), associated_data_commitment: '4'.repeat(64), encryption_algorithm: 'A', payload_schema: 'S' };
    expect(manifestCommitment(m)).toBe(sha256Hex('{"associated_data_commitment":"' + '4'.repeat(64) + '","ciphertext_sha256":"' + '1'.repeat(64) + '","encryption_algorithm":"A","manifest_uuid":"' + 'f'.repeat(32) + '","payload_commitment":"' + '2'.repeat(64) + '","payload_schema":"S","recipient_key_id":"' + '3'.repeat(32) + '"}'));
    const t = core({ amount: '1500.000000' });
    expect(associatedDataOf(t)).toBe(`{"amount":"1500.000000","asset":"USDC","destination":"${DEST}","transfer_uuid":"${T1}"}`);
    expect(associatedDataCommitment(t)).not.toBe(associatedDataCommitment({ ...t, transfer_uuid: '2'.repeat(32) }));
  });

  it('thresholds per asset; an asset without one always needs an envelope', () => {
    const th = parseThresholds('USDC=1000,ETH=0.3');
    expect(envelopeRequired('USDC', parseMoney('USDC', '999.99', 'a'), th)).toEqual({ required: false, threshold: '1000' });
    expect(envelopeRequired('USDC', parseMoney('USDC', '1000', 'a'), th)).toEqual({ required: true, threshold: '1000' });
    expect(envelopeRequired('SOL', parseMoney('SOL', '0.1', 'a'), th)).toEqual({ required: true, threshold: '0' });
  });

  it('a key is ACTIVE until retired (once, at its version); public keys are 32-byte X25519', () => {
    const key = { recipient_key_id: '3'.repeat(32), institution_name: 'Bank', institution_lei: null, kem: 'DHKEM-X25519-HKDF-SHA256', public_key: Buffer.alloc(32, 7).toString('base64url'), replaces: null, registered_by_profile_uuid: 'e'.repeat(32), created: NOW.toISOString() };
    let s = recipientKeyDecider.initialState();
    for (const e of recipientKeyDecider.decide({ kind: 'RegisterKey', key }, s, ctx())) s = recipientKeyDecider.evolve(s, e);
    expect(refusal(() => recipientKeyDecider.decide({ kind: 'RetireKey', expected_version: 1, successor_key_id: null, by_profile_uuid: 'e'.repeat(32) }, s, ctx())).code).toBe('VERSION_CONFLICT');
    for (const e of recipientKeyDecider.decide({ kind: 'RetireKey', expected_version: 0, successor_key_id: '4'.repeat(32), by_profile_uuid: 'e'.repeat(32) }, s, ctx())) s = recipientKeyDecider.evolve(s, e);
    expect([s.status, s.successor_key_id]).toEqual(['RETIRED', '4'.repeat(32)]);
    expect(isX25519PublicKey(key.public_key)).toBe(true);
    expect(isX25519PublicKey(Buffer.alloc(31).toString('base64url'))).toBe(false);
  });

  it('a governance id binds one transfer: again for the same one is a no-op, for another 409', () => {
    let s = governanceClaimDecider.initialState();
    const claim = (transfer_uuid: string) => ({ kind: 'ClaimGovernanceId' as const, governance_kind: 'PROPOSAL' as const, reference: 'prop-1', transfer_uuid });
    for (const e of governanceClaimDecider.decide(claim(T1), s, ctx())) s = governanceClaimDecider.evolve(s, e);
    expect(governanceClaimDecider.decide(claim(T1), s, ctx())).toEqual([]);
    expect(refusal(() => governanceClaimDecider.decide(claim('2'.repeat(32)), s, ctx()))).toMatchObject({ code: 'STATE_CONFLICT', details: [{ field: 'proposalId', issue: 'already bound to another transfer' }] });
  });

  it('evidence: any JSON within 16 KiB and 8 levels, committed by its RFC 8785 form', () => {
    expect(checkedEvidence({ b: 1, a: [true, null, 'x'] })).toBe(sha256Hex('{"a":[true,null,"x"],"b":1}'));
    expect(checkedEvidence('a note')).toBe(sha256Hex('"a note"'));
    let deep: unknown = 'x';
    for (let i = 0; i < 9; i++) deep = { d: deep };
    expect(refusal(() => checkedEvidence(deep)).details).toEqual([{ field: 'evidence', issue: 'at most 8 levels' }]);
    expect(refusal(() => checkedEvidence({ blob: 'x'.repeat(17 * 1024) })).code).toBe('VALIDATION_FAILED');
  });
});
