/**
 * A governance proposal id or an MPC signing request id binds one transfer, ever: the id's own stream
 * (`commerce-governance-<kind>-<sha256 of the id>`) is claimed once, by the transfer presenting it first. Presenting
 * it again for the same transfer changes nothing; for another transfer it is 409.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { StateConflict } from '../../../platform/errors';
import type { GovernanceKind } from './transfer';

export const governanceClaimStream = (kind: GovernanceKind, id: string): string => `commerce-governance-${kind.toLowerCase().replace('_', '-')}-${sha256Hex(canonicalJson([kind, id])).slice(0, 32)}`;

export type GovernanceClaimEvent = { type: 'CommerceGovernanceIdClaimed'; data: { kind: GovernanceKind; reference: string; transfer_uuid: string; at: string } };
export interface GovernanceClaimState {
  transfer_uuid: string | null;
}
export type GovernanceClaimCommand = { kind: 'ClaimGovernanceId'; governance_kind: GovernanceKind; reference: string; transfer_uuid: string };

const FIELD: Record<GovernanceKind, string> = { PROPOSAL: 'proposalId', MPC_REQUEST: 'mpcRequestId' };

export const governanceClaimDecider: Decider<GovernanceClaimCommand, GovernanceClaimState, GovernanceClaimEvent> = {
  initialState: () => ({ transfer_uuid: null }),
  evolve: (_state, event) => ({ transfer_uuid: event.data.transfer_uuid }),
  decide(command, state, ctx: DecideContext) {
    if (state.transfer_uuid === command.transfer_uuid) return [];
    if (state.transfer_uuid !== null) {
      throw new StateConflict(`This ${FIELD[command.governance_kind]} is already bound to another transfer.`, { details: [{ field: FIELD[command.governance_kind], issue: 'already bound to another transfer' }] });
    }
    return [{ type: 'CommerceGovernanceIdClaimed', data: { kind: command.governance_kind, reference: command.reference, transfer_uuid: command.transfer_uuid, at: ctx.now.toISOString() } }];
  },
};
