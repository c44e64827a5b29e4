/**
 * A merchant: a workspace's selling identity, reviewed before it may sell. One stream per merchant
 * (`commerce-merchant-<merchant_uuid>`); its version is the stream's revision (0 when created), which
 * `ActivateMerchantRequest.expected_version` and the other reviews pin: a reviewer acting on what another reviewer
 * already changed gets 409 VERSION_CONFLICT with the current version. Pure: no I/O, no clock (`now` from the context).
 *
 * | From | Transition | To | Who | Step-up |
 * |---|---|---|---|---|
 * | (new) | create | PENDING_REVIEW | workspace owner or admin | |
 * | PENDING_REVIEW | activate | ACTIVE | reviewer, not the creator | MERCHANT_PROFILE_ACTIVATION |
 * | PENDING_REVIEW | reject | REJECTED | reviewer, not the creator | |
 * | ACTIVE | suspend | SUSPENDED | reviewer | |
 * | SUSPENDED | reinstate | ACTIVE | reviewer, not the creator | MERCHANT_PROFILE_ACTIVATION |
 * | PENDING_REVIEW, ACTIVE, SUSPENDED, REJECTED | close | CLOSED | workspace owner or admin, or a reviewer | |
 *
 * A reviewer is a tenant admin (TENANT_ADMIN or OWNER of the merchant's tenant) or a platform admin.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, StateConflict } from '../../../platform/errors';

export const MERCHANT_STATUSES = ['PENDING_REVIEW', 'ACTIVE', 'REJECTED', 'SUSPENDED', 'CLOSED'] as const;
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];

export const MERCHANT_TRANSITIONS = ['activate', 'reject', 'suspend', 'reinstate', 'close'] as const;
export type MerchantTransition = (typeof MERCHANT_TRANSITIONS)[number];

/** Bounded reasons a reviewer or owner gives for reject, suspend and close (activate and reinstate cite a review). */
export const MERCHANT_REASON_CODES = ['INCOMPLETE_PROFILE', 'POLICY_VIOLATION', 'RISK_REVIEW', 'OWNER_REQUEST', 'INACTIVITY', 'OTHER'] as const;

export const MERCHANT_RULES: Record<MerchantTransition, { from: readonly MerchantStatus[]; to: MerchantStatus; by: 'reviewer' | 'owner-or-reviewer'; fourEyes: boolean; stepUp: string | null }> = {
  activate: { from: ['PENDING_REVIEW'], to: 'ACTIVE', by: 'reviewer', fourEyes: true, stepUp: 'MERCHANT_PROFILE_ACTIVATION' },
  reject: { from: ['PENDING_REVIEW'], to: 'REJECTED', by: 'reviewer', fourEyes: true, stepUp: null },
  suspend: { from: ['ACTIVE'], to: 'SUSPENDED', by: 'reviewer', fourEyes: false, stepUp: null },
  reinstate: { from: ['SUSPENDED'], to: 'ACTIVE', by: 'reviewer', fourEyes: true, stepUp: 'MERCHANT_PROFILE_ACTIVATION' },
  close: { from: ['PENDING_REVIEW', 'ACTIVE', 'SUSPENDED', 'REJECTED'], to: 'CLOSED', by: 'owner-or-reviewer', fourEyes: false, stepUp: null },
};

const PAST: Record<MerchantTransition, string> = { activate: 'activated', reject: 'rejected', suspend: 'suspended', reinstate: 'reinstated', close: 'closed' };

export const merchantStream = (merchant_uuid: string): string => `commerce-merchant-${merchant_uuid}`;

/** What a merchant is, as created. */
export interface MerchantCore {
  merchant_uuid: string;
  workspace_uuid: string;
  tenant_uuid: string;
  display_name: string;
  description: string;
  category_code: string;
  website: string | null;
  created_by_profile_uuid: string;
  created: string;
}

export type MerchantEvent =
  | { type: 'CommerceMerchantCreated'; data: { merchant: MerchantCore } }
  | {
      type: 'CommerceMerchantReviewed';
      data: {
        merchant_uuid: string;
        transition: MerchantTransition;
        from: MerchantStatus;
        to: MerchantStatus;
        by_profile_uuid: string;
        /** activate and reinstate: the review's reference; otherwise null. */
        review_reference: string | null;
        /** reject, suspend, close: a bounded reason; otherwise null. */
        reason_code: string | null;
        at: string;
      };
    };

export interface MerchantState {
  merchant: MerchantCore | null;
  status: MerchantStatus;
  /** The stream's revision: 0 after creation. */
  version: number;
  updated: string | null;
  last_review: { transition: MerchantTransition; by_profile_uuid: string; review_reference: string | null; reason_code: string | null; at: string } | null;
}

export type MerchantCommand =
  | { kind: 'CreateMerchant'; merchant: MerchantCore }
  | {
      kind: 'ReviewMerchant';
      transition: MerchantTransition;
      expected_version: number;
      by_profile_uuid: string;
      /** The handler checked the caller's standing: a tenant or platform admin ('reviewer'), or the workspace's owner or admin. */
      standing: 'reviewer' | 'owner' | 'reviewer-and-owner';
      review_reference: string | null;
      reason_code: string | null;
    };

export class MerchantNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such merchant.');
  }
}

/** A stale expected version: 409 VERSION_CONFLICT with the version the merchant is at now. */
export function staleVersion(what: string, expected: number, current: number): PlatformError {
  return new PlatformError('VERSION_CONFLICT', `The ${what} is at version ${current}, not ${expected}: it changed since you read it.`, { currentVersion: current });
}

function initialState(): MerchantState {
  return { merchant: null, status: 'PENDING_REVIEW', version: -1, updated: null, last_review: null };
}

function evolve(state: MerchantState, event: MerchantEvent): MerchantState {
  switch (event.type) {
    case 'CommerceMerchantCreated':
      return { merchant: event.data.merchant, status: 'PENDING_REVIEW', version: 0, updated: event.data.merchant.created, last_review: null };
    case 'CommerceMerchantReviewed': {
      const d = event.data;
      return { ...state, status: d.to, version: state.version + 1, updated: d.at, last_review: { transition: d.transition, by_profile_uuid: d.by_profile_uuid, review_reference: d.review_reference, reason_code: d.reason_code, at: d.at } };
    }
  }
}

function decide(command: MerchantCommand, state: MerchantState, ctx: DecideContext): MerchantEvent[] {
  if (command.kind === 'CreateMerchant') {
    if (state.merchant) return []; // the same id again (a retried request): nothing new
    return [{ type: 'CommerceMerchantCreated', data: { merchant: command.merchant } }];
  }
  const merchant = state.merchant;
  if (!merchant) throw new MerchantNotFound();
  const rule = MERCHANT_RULES[command.transition];
  if (command.standing === 'owner' && rule.by === 'reviewer') {
    throw new PlatformError('FORBIDDEN', `Only a tenant admin or a platform admin may ${command.transition} a merchant.`);
  }
  if (rule.fourEyes && command.by_profile_uuid === merchant.created_by_profile_uuid) {
    throw new PlatformError('FORBIDDEN', `The merchant's creator may not ${command.transition} it: another reviewer must.`);
  }
  if (command.expected_version !== state.version) throw staleVersion('merchant', command.expected_version, state.version);
  if (!rule.from.includes(state.status)) {
    throw new StateConflict(`A ${state.status} merchant cannot be ${PAST[command.transition]}.`, {
      details: [{ field: 'status', issue: `is ${state.status}; ${command.transition} needs ${rule.from.join(' or ')}` }],
    });
  }
  return [
    {
      type: 'CommerceMerchantReviewed',
      data: {
        merchant_uuid: merchant.merchant_uuid,
        transition: command.transition,
        from: state.status,
        to: rule.to,
        by_profile_uuid: command.by_profile_uuid,
        review_reference: command.review_reference,
        reason_code: command.reason_code,
        at: ctx.now.toISOString(),
      },
    },
  ];
}

export const merchantDecider: Decider<MerchantCommand, MerchantState, MerchantEvent> = { initialState, evolve, decide };
