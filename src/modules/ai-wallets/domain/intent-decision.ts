/** The decision on an intent: which rule decides (decision codes), against the policy, the binding and its budget. */
import { amountText, parseAmount } from './assets';
import { reservedSince } from './budget-index';
import { limitsFor, policyExpired, type AiWalletPolicy } from './policy';
import { AiWalletDestination, DecisionCode } from './binding-records';
import { BindingAggregate } from './binding-state';
import { AiWalletBudgetLedger, committed, ledger } from './binding-budget';

export type Outcome = 'ALLOWED' | 'APPROVAL_REQUIRED' | 'DENIED';

export interface IntentRequest {
  type: string;
  asset: string;
  /** Exact atoms; the caller has refused malformed, non-positive and over-precise amounts already. */
  amount: bigint;
  destination: AiWalletDestination;
}

export interface Decision {
  outcome: Outcome;
  decision_code: DecisionCode;
  policy: AiWalletPolicy | null;
  budget_before: AiWalletBudgetLedger;
  /** Committed amounts if this intent were reserved (unchanged when it would be denied). */
  projected: { daily_committed: string; monthly_committed: string; asset_code: string };
}

/**
 * The policy decision for an intent at `now`, failing closed: the first rule that does not hold decides, in this
 * order — binding active, a policy, not expired, capability, asset, a budget for the asset, destination exactly on
 * the allowlist (an empty list allows nothing), single amount, daily, monthly, velocity; then whether a person must
 * approve (always, unless the execution mode is SUPERVISED and the amount is the policy currency at or below
 * `autonomous_threshold`).
 */
export function decideIntent(s: BindingAggregate, req: IntentRequest, now: Date): Decision {
  const policy = s.policies.length > 0 ? s.policies[s.policies.length - 1] : null;
  const limits = policy ? limitsFor(policy, req.asset) : [];
  const used = committed(s, req.asset, now);
  const before = ledger(limits[0] ?? null, req.asset, policy?.currency ?? null, used);
  const deny = (decision_code: DecisionCode): Decision => ({
    outcome: 'DENIED', decision_code, policy, budget_before: before,
    projected: { daily_committed: before.daily_committed, monthly_committed: before.monthly_committed, asset_code: req.asset },
  });
  if (s.state !== 'ACTIVE') return deny('BINDING_INACTIVE');
  if (!policy) return deny('POLICY_MISSING');
  if (policyExpired(policy, now)) return deny('POLICY_EXPIRED');
  if (!policy.capabilities.includes(req.type)) return deny('CAPABILITY_NOT_ALLOWED');
  if (!policy.assets.includes(req.asset)) return deny('ASSET_NOT_ALLOWED');
  if (limits.length === 0) return deny('ASSET_BUDGET_MISSING');
  if (!policy.destinations.includes(req.destination.id)) return deny('DESTINATION_NOT_ALLOWLISTED');
  const atoms = (v: string): bigint => {
    const p = parseAmount(req.asset, v, { allowZero: true });
    return 'atoms' in p ? p.atoms : 0n;
  };
  for (const l of limits) if (req.amount > atoms(l.max_single_amount)) return deny('SINGLE_LIMIT_EXCEEDED');
  for (const l of limits) if (used.day + req.amount > atoms(l.daily_limit)) return deny('DAILY_LIMIT_EXCEEDED');
  for (const l of limits) if (used.month + req.amount > atoms(l.monthly_limit)) return deny('MONTHLY_LIMIT_EXCEEDED');
  if (reservedSince(s.budget, now.getTime() - policy.velocity_window_seconds * 1000) >= policy.velocity_max_count) return deny('VELOCITY_LIMIT_EXCEEDED');

  const threshold = parseAmount(policy.currency, policy.autonomous_threshold, { allowZero: true });
  const withinThreshold = req.asset === policy.currency && 'atoms' in threshold && req.amount <= threshold.atoms;
  const outcome: Outcome = s.mode?.mode === 'SUPERVISED' && withinThreshold ? 'ALLOWED' : 'APPROVAL_REQUIRED';
  return {
    outcome,
    decision_code: outcome,
    policy,
    budget_before: before,
    projected: { daily_committed: amountText(used.day + req.amount), monthly_committed: amountText(used.month + req.amount), asset_code: req.asset },
  };
}

