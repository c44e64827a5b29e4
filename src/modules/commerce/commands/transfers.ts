/**
 * Transfer commands (docs/transfers.md): request (funds reserved on the merchant's ledger beside the settlement
 * intents), the travel-rule envelope, the governance binding, the compliance cancel (step-up
 * TRANSFER_COMPLIANCE_CANCELLATION), the screening's, governance's and rail's reports, and the recipient key
 * directory. Every move is pinned to the transfer's version (If-Match on the seeds' shapes, which have no version field).
 */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { STEP_UP_VERIFIER, type Principal, type StepUpVerifier } from '../../../platform/auth/principal';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../../platform/config/platform-config';
import { nextId } from '../../../platform/context/request-context';
import { PlatformError, RuleViolation, ValidationFailed } from '../../../platform/errors';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';
import { MERCHANTS } from '../../../../projections/commerce-merchants/commerce-merchants.read-model';
import { TRANSFERS, type TransferRecord } from '../../../../projections/commerce-transfers/commerce-transfers.read-model';
import { governanceClaimDecider, governanceClaimStream } from '../domain/governance-claim';
import { ledgerDecider, ledgerStream } from '../domain/ledger';
import { merchantDecider, MerchantNotFound, merchantStream } from '../domain/merchant';
import { parseMoney } from '../domain/money';
import { isX25519PublicKey, RECIPIENT_KEY_KEMS, recipientKeyDecider, RecipientKeyNotFound, recipientKeyStream, type RecipientKeyCore } from '../domain/recipient-key';
import { envelopeRequired, parseThresholds, TransferNotFound, type GovernanceKind, type TransferCommand, type TransferCore } from '../domain/transfer';
import { associatedDataCommitment, DEFAULT_ENVELOPE_ALGORITHM, DEFAULT_PAYLOAD_SCHEMA, manifestCommitment, type TransferEnvelope } from '../domain/transfer-envelope';
import { walletDecider, walletStream } from '../domain/wallet';
import { CommerceAccess } from '../commerce-access';
import type { AuthorizeTransferEnvelopeRequest, BindContractGovernanceRequest, CancelTransferComplianceRequest, CreateTransferRequest, RegisterRecipientKeyRequest } from '../dto/transfers.dto';
import { settledTotal } from '../queries';
import { TRANSFER_OVERSIGHT, type TransferOversight } from '../rail';
import type { Created } from './merchants';

/** Evidence a compliance officer may attach: this big in canonical form, this deep. */
export const MAX_EVIDENCE_BYTES = 16 * 1024;
export const MAX_EVIDENCE_DEPTH = 8;

/** The transfer's record and stream, for one who may act on it as `need` says (404 for anyone it is hidden from). */
async function transferFor(access: CommerceAccess, principal: Principal, transfer_uuid: string, need: 'manage' | 'compliance' | 'admin'): Promise<{ record: TransferRecord; stream: string }> {
  const record = await access.find(TRANSFERS, transfer_uuid);
  if (!record) throw new TransferNotFound();
  const stream = ledgerStream(record.merchant_uuid, record.asset);
  if (need === 'admin') {
    access.requirePlatformAdmin(principal);
  } else if (need === 'manage') {
    await access.record(principal, TRANSFERS, transfer_uuid, 'manage', () => new TransferNotFound());
  } else if (!(await access.isComplianceOfficer(principal, record.tenant_uuid))) {
    // Of the transfer's tenant, or a member of its workspace: knows it exists, may not act. Anyone else: no such transfer.
    const insider = principal.tenant_uuid === record.tenant_uuid || (await access.isMember(principal, record.workspace_uuid));
    if (insider) throw new PlatformError('FORBIDDEN', "Only the tenant's compliance officers (its OWNER or TENANT_ADMIN) and platform admins cancel a transfer for compliance.");
    throw new TransferNotFound();
  }
  return { record, stream };
}

/** The version an `If-Match` header names (`3` or `"3"`), or a 400 naming the header. */
export function ifMatchVersion(header: string | undefined): number {
  const match = /^\s*"?(\d{1,15})"?\s*$/.exec(header ?? '');
  if (!match) throw new ValidationFailed('This move needs the version you read, in If-Match.', [{ field: 'If-Match', issue: 'required: the transfer\'s version, e.g. "3"' }]);
  return Number(match[1]);
}

export class RequestTransfer {
  constructor(readonly principal: Principal, readonly body: CreateTransferRequest) {}
}

@CommandHandler(RequestTransfer)
export class RequestTransferHandler implements ICommandHandler<RequestTransfer, Created> {
  constructor(
    private readonly commands: CommandExecutor,
    private readonly access: CommerceAccess,
    private readonly db: ReadModelDatabase,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) private readonly config: PlatformConfig,
    @Inject(TRANSFER_OVERSIGHT) private readonly oversight: TransferOversight,
  ) {}

  async execute({ principal, body }: RequestTransfer): Promise<Created> {
    const { record } = await this.access.record(principal, MERCHANTS, body.merchant_uuid, 'manage', () => new MerchantNotFound());
    const { state: merchant } = await this.commands.load(merchantStream(body.merchant_uuid), merchantDecider);
    if (merchant.status !== 'ACTIVE') throw new RuleViolation('Only an ACTIVE merchant transfers.', [{ field: 'merchant_uuid', issue: `merchant is ${merchant.status}` }]);
    const { state: source } = await this.commands.load(walletStream(body.source_wallet_uuid), walletDecider);
    const wallet = source.wallet;
    if (!wallet || wallet.workspace_uuid !== record.workspace_uuid) throw new RuleViolation('No such wallet of this workspace.', [{ field: 'source_wallet_uuid', issue: 'not a wallet of the merchant\'s workspace' }]);
    if (wallet.wallet_type !== 'OPERATIONAL' || source.status !== 'ACTIVE' || wallet.network_id !== body.network_id) {
      throw new RuleViolation('Transfers leave from an ACTIVE operational wallet on their network.', [{ field: 'source_wallet_uuid', issue: `is ${source.status} ${wallet.wallet_type} on ${wallet.network_id}` }]);
    }
    const amount = parseMoney(body.asset, body.amount, 'amount');
    const travelRule = envelopeRequired(body.asset, amount, parseThresholds(this.config.transferTravelRuleThresholds));
    const transfer: TransferCore = {
      transfer_uuid: nextId(), merchant_uuid: body.merchant_uuid, workspace_uuid: record.workspace_uuid, tenant_uuid: record.tenant_uuid, source_wallet_uuid: wallet.wallet_uuid,
      network_id: body.network_id, asset: body.asset, amount: body.amount, destination: body.destination, envelope_required: travelRule.required, travel_rule_threshold: travelRule.threshold,
      governance_required: wallet.governance_required, requested_by_profile_uuid: principal.profile_uuid, created: this.clock().toISOString(),
    };
    const stream = ledgerStream(body.merchant_uuid, body.asset);
    const credited = await settledTotal(this.db, body.merchant_uuid, body.asset);
    const outcome = await this.commands.execute(stream, ledgerDecider, { kind: 'RequestTransfer', transfer, credited });
    // Screening starts at once; a crash before it leaves the transfer REQUESTED, which the screening's report still takes.
    await this.commands.execute(stream, ledgerDecider, { kind: 'StartScreening', transfer_uuid: transfer.transfer_uuid });
    const requested = outcome.state.transfers[transfer.transfer_uuid];
    if (requested && outcome.events.length > 0) await this.oversight.screeningRequested(requested.transfer);
    return { id: transfer.transfer_uuid };
  }
}

export class AuthorizeTransferEnvelope {
  constructor(readonly principal: Principal, readonly transfer_uuid: string, readonly ifMatch: string | undefined, readonly body: AuthorizeTransferEnvelopeRequest) {}
}

@CommandHandler(AuthorizeTransferEnvelope)
export class AuthorizeTransferEnvelopeHandler implements ICommandHandler<AuthorizeTransferEnvelope, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, transfer_uuid, ifMatch, body }: AuthorizeTransferEnvelope): Promise<Created> {
    const expected_version = ifMatchVersion(ifMatch);
    const { record, stream } = await transferFor(this.access, principal, transfer_uuid, 'manage');
    const envelope: TransferEnvelope = {
      manifest_uuid: body.manifest_uuid, ciphertext_sha256: body.ciphertext_sha256, payload_commitment: body.payload_commitment, recipient_key_id: body.recipient_key_id,
      associated_data_commitment: body.associated_data_commitment, encryption_algorithm: body.encryption_algorithm ?? DEFAULT_ENVELOPE_ALGORITHM, payload_schema: body.payload_schema ?? DEFAULT_PAYLOAD_SCHEMA,
    };
    if (manifestCommitment(envelope) !== body.manifest_commitment) {
      throw new ValidationFailed('manifest_commitment is not the SHA-256 of the manifest\'s RFC 8785 form.', [{ field: 'manifest_commitment', issue: 'does not match the manifest (docs/transfers.md)' }]);
    }
    if (associatedDataCommitment(record) !== body.associated_data_commitment) {
      throw new RuleViolation('The envelope is sealed for another transfer.', [{ field: 'associated_data_commitment', issue: 'not the commitment of this transfer\'s {transfer_uuid, amount, asset, destination}' }]);
    }
    const { state: key } = await this.commands.load(recipientKeyStream(body.recipient_key_id), recipientKeyDecider);
    if (!key.key || key.status !== 'ACTIVE') throw new RuleViolation('recipient_key_id names no ACTIVE key of the directory.', [{ field: 'recipient_key_id', issue: key.key ? 'key is RETIRED' : 'no such key' }]);
    await this.commands.execute(stream, ledgerDecider, { kind: 'AuthorizeEnvelope', transfer_uuid, expected_version, envelope: { ...envelope, manifest_commitment: body.manifest_commitment }, by_profile_uuid: principal.profile_uuid });
    return { id: transfer_uuid };
  }
}

export class BindTransferGovernance {
  constructor(readonly principal: Principal, readonly transfer_uuid: string, readonly ifMatch: string | undefined, readonly body: BindContractGovernanceRequest) {}
}

@CommandHandler(BindTransferGovernance)
export class BindTransferGovernanceHandler implements ICommandHandler<BindTransferGovernance, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(TRANSFER_OVERSIGHT) private readonly oversight: TransferOversight, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, transfer_uuid, ifMatch, body }: BindTransferGovernance): Promise<Created> {
    const expected_version = ifMatchVersion(ifMatch);
    const { stream } = await transferFor(this.access, principal, transfer_uuid, 'manage');
    const command: TransferCommand = { kind: 'BindGovernance', transfer_uuid, expected_version, proposal_id: body.proposalId, mpc_request_id: body.mpcRequestId, by_profile_uuid: principal.profile_uuid };
    // Refused here (version, state) before an id is claimed for it.
    const { state } = await this.commands.load(stream, ledgerDecider);
    ledgerDecider.decide(command, state, { now: this.clock(), newId: () => '' });
    for (const [kind, reference] of [['PROPOSAL', body.proposalId], ['MPC_REQUEST', body.mpcRequestId]] as Array<[GovernanceKind, string]>) {
      await this.commands.execute(governanceClaimStream(kind, reference), governanceClaimDecider, { kind: 'ClaimGovernanceId', governance_kind: kind, reference, transfer_uuid });
    }
    const outcome = await this.commands.execute(stream, ledgerDecider, command);
    if (outcome.events.length > 0) await this.oversight.governanceRequested(outcome.state.transfers[transfer_uuid].transfer, body.proposalId, body.mpcRequestId);
    return { id: transfer_uuid };
  }
}

export class CancelTransferForCompliance {
  constructor(readonly principal: Principal, readonly transfer_uuid: string, readonly ifMatch: string | undefined, readonly stepUpToken: string | undefined, readonly body: CancelTransferComplianceRequest) {}
}

@CommandHandler(CancelTransferForCompliance)
export class CancelTransferForComplianceHandler implements ICommandHandler<CancelTransferForCompliance, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(STEP_UP_VERIFIER) private readonly stepUp: StepUpVerifier) {}

  async execute({ principal, transfer_uuid, ifMatch, stepUpToken, body }: CancelTransferForCompliance): Promise<Created> {
    const expected_version = ifMatchVersion(ifMatch);
    const evidence = body.evidence === undefined ? null : body.evidence;
    const evidence_commitment = evidence === null ? null : checkedEvidence(evidence);
    const { stream } = await transferFor(this.access, principal, transfer_uuid, 'compliance');
    const spend = await this.stepUp.authorize(stepUpToken, 'TRANSFER_COMPLIANCE_CANCELLATION', principal);
    await this.commands.execute(stream, ledgerDecider, { kind: 'ComplianceCancel', transfer_uuid, expected_version, reason_code: body.reason_code ?? null, evidence, evidence_commitment, by_profile_uuid: principal.profile_uuid }, { spend });
    return { id: transfer_uuid };
  }
}

/** The evidence's commitment (SHA-256 of its RFC 8785 form) once it is within the size and depth allowed; else 400. */
export function checkedEvidence(evidence: unknown): string {
  const depth = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depth)) : 0);
  if (depth(evidence) > MAX_EVIDENCE_DEPTH) throw new ValidationFailed('The evidence is nested too deep.', [{ field: 'evidence', issue: `at most ${MAX_EVIDENCE_DEPTH} levels` }]);
  const canonical = canonicalJson(evidence as Record<string, unknown>); // any JSON value: the cast is only for the signature
  if (Buffer.byteLength(canonical, 'utf8') > MAX_EVIDENCE_BYTES) throw new ValidationFailed('The evidence is too large.', [{ field: 'evidence', issue: `at most ${MAX_EVIDENCE_BYTES} bytes in canonical form` }]);
  return sha256Hex(canonical);
}

/** What the screening, the governance and the rail report (through the admin routes while they are simulated). */
export class ReportTransfer {
  constructor(readonly principal: Principal, readonly transfer_uuid: string, readonly report: Extract<TransferCommand, { kind: 'ReportScreening' | 'DecideGovernance' | 'TransferRail' }>) {}
}

@CommandHandler(ReportTransfer)
export class ReportTransferHandler implements ICommandHandler<ReportTransfer, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, transfer_uuid, report }: ReportTransfer): Promise<Created> {
    const { stream } = await transferFor(this.access, principal, transfer_uuid, 'admin');
    await this.commands.execute(stream, ledgerDecider, report);
    return { id: transfer_uuid };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The recipient key directory (platform admins)

/** A new key; `replaces`: a rotation, whose successor takes the replaced key's institution (the body's is not asked). */
export class RegisterRecipientKey {
  constructor(
    readonly principal: Principal,
    readonly body: Pick<RegisterRecipientKeyRequest, 'public_key' | 'kem'> & Partial<Pick<RegisterRecipientKeyRequest, 'institution_name' | 'institution_lei'>>,
    readonly replaces: { recipient_key_id: string; expected_version: number } | null = null,
  ) {}
}

@CommandHandler(RegisterRecipientKey)
export class RegisterRecipientKeyHandler implements ICommandHandler<RegisterRecipientKey, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body, replaces }: RegisterRecipientKey): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    if (!isX25519PublicKey(body.public_key)) throw new ValidationFailed('Not an X25519 public key.', [{ field: 'public_key', issue: 'base64url of 32 bytes, no padding' }]);
    let institution = { name: body.institution_name ?? '', lei: body.institution_lei ?? null };
    if (replaces) {
      const { state } = await this.commands.load(recipientKeyStream(replaces.recipient_key_id), recipientKeyDecider);
      if (!state.key) throw new RecipientKeyNotFound();
      // Refused (version, already retired) before the successor exists.
      recipientKeyDecider.decide({ kind: 'RetireKey', expected_version: replaces.expected_version, successor_key_id: null, by_profile_uuid: principal.profile_uuid }, state, { now: this.clock(), newId: () => '' });
      institution = { name: state.key.institution_name, lei: state.key.institution_lei };
    }
    const key: RecipientKeyCore = {
      recipient_key_id: nextId(), institution_name: institution.name, institution_lei: institution.lei, kem: body.kem ?? RECIPIENT_KEY_KEMS[0], public_key: body.public_key,
      replaces: replaces?.recipient_key_id ?? null, registered_by_profile_uuid: principal.profile_uuid, created: this.clock().toISOString(),
    };
    await this.commands.execute(recipientKeyStream(key.recipient_key_id), recipientKeyDecider, { kind: 'RegisterKey', key }, { newStream: true });
    if (replaces) {
      await this.commands.execute(recipientKeyStream(replaces.recipient_key_id), recipientKeyDecider, { kind: 'RetireKey', expected_version: replaces.expected_version, successor_key_id: key.recipient_key_id, by_profile_uuid: principal.profile_uuid });
    }
    return { id: key.recipient_key_id };
  }
}

export class RetireRecipientKey {
  constructor(readonly principal: Principal, readonly recipient_key_id: string, readonly expected_version: number) {}
}

@CommandHandler(RetireRecipientKey)
export class RetireRecipientKeyHandler implements ICommandHandler<RetireRecipientKey, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, recipient_key_id, expected_version }: RetireRecipientKey): Promise<Created> {
    this.access.requirePlatformAdmin(principal);
    await this.commands.execute(recipientKeyStream(recipient_key_id), recipientKeyDecider, { kind: 'RetireKey', expected_version, successor_key_id: null, by_profile_uuid: principal.profile_uuid });
    return { id: recipient_key_id };
  }
}
