/**
 * An agent wallet's spending policy (AiWalletPolicy): what the agent may do (capabilities), with which assets, to
 * which exact destinations, how much per intent, per UTC day and per UTC month, how often, and up to which amount a
 * policy decision alone may approve. Every version is kept; `policy_commitment` is the SHA-256 of the canonical
 * (RFC 8785) version without the commitment itself and without `lifecycle` (a status that changes when a newer
 * version is published), so a decision can be tied to the exact rules it applied and any published version, active
 * or superseded, recomputes to its commitment. docs/ai-wallets.md has the rule, and the one of versions published
 * before lifecycle was left out.
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import type { ErrorDetail } from '../../../platform/errors';
import { amountText, isNativeAsset, parseAmount } from './assets';

export const CAPABILITIES = ['TRANSFER', 'TRADE', 'CONTRACT_CALL', 'RECURRING_PAYMENT'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const MAX_VELOCITY_WINDOW_SECONDS = 31 * 24 * 3600;
export const MAX_VELOCITY_COUNT = 10_000;
export const MAX_DESTINATIONS = 1_000;

export interface AiWalletAssetBudget {
  asset_code: string;
  max_single_amount: string;
  daily_limit: string;
  monthly_limit: string;
}

/** What a person writes; the platform adds identity, version, commitment and provenance. */
export interface PolicyTerms {
  capabilities: string[];
  assets: string[];
  asset_budgets: AiWalletAssetBudget[];
  destinations: string[];
  max_single_amount: string;
  daily_limit: string;
  monthly_limit: string;
  velocity_window_seconds: number;
  velocity_max_count: number;
  autonomous_threshold: string;
  currency: string;
  expires_at: string | null;
}

export interface AiWalletPolicy extends PolicyTerms {
  policy_uuid: string;
  binding_uuid: string;
  version: number;
  /** ACTIVE for the binding's current version, SUPERSEDED once a newer one is published (EXPIRED is shown at read time). */
  lifecycle: 'ACTIVE' | 'SUPERSEDED';
  policy_commitment: string;
  created_by_profile_uuid: string;
  created: string;
}

/**
 * Problems with a policy as written (each a detail naming the field), or the terms in canonical form: amounts in
 * their shortest exact text, lists de-duplicated in the order given. Destinations are kept exactly as written:
 * matching is exact, so " 0xAbC" and "0xabc" are different destinations.
 */
export function checkPolicyTerms(t: PolicyTerms, now: Date): { terms: PolicyTerms } | { problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  const capabilities = [...new Set(t.capabilities)];
  for (const c of capabilities) if (!(CAPABILITIES as readonly string[]).includes(c)) problems.push({ field: 'capabilities', issue: `unknown capability ${c}; one of ${CAPABILITIES.join(', ')}` });
  const assets = [...new Set(t.assets)];
  for (const a of assets) if (!isNativeAsset(a)) problems.push({ field: 'assets', issue: `${a} is not a supported native asset` });
  if (!isNativeAsset(t.currency)) problems.push({ field: 'currency', issue: `${t.currency} is not a supported native asset (fiat currencies are not)` });

  const amount = (field: string, asset: string, value: string, allowZero = false): string => {
    if (!isNativeAsset(asset)) return value;
    const parsed = parseAmount(asset, value, { allowZero });
    if ('problem' in parsed) {
      problems.push({ field, issue: `${parsed.problem} (${asset})` });
      return value;
    }
    return amountText(parsed.atoms);
  };
  const ordered = (prefix: string, single: string, daily: string, monthly: string, asset: string): void => {
    if (!isNativeAsset(asset)) return;
    const [s, d, m] = [single, daily, monthly].map((v) => parseAmount(asset, v));
    if ('atoms' in s && 'atoms' in d && s.atoms > d.atoms) problems.push({ field: `${prefix}max_single_amount`, issue: 'must not exceed daily_limit' });
    if ('atoms' in d && 'atoms' in m && d.atoms > m.atoms) problems.push({ field: `${prefix}daily_limit`, issue: 'must not exceed monthly_limit' });
  };

  const max_single_amount = amount('max_single_amount', t.currency, t.max_single_amount);
  const daily_limit = amount('daily_limit', t.currency, t.daily_limit);
  const monthly_limit = amount('monthly_limit', t.currency, t.monthly_limit);
  ordered('', max_single_amount, daily_limit, monthly_limit, t.currency);
  const autonomous_threshold = amount('autonomous_threshold', t.currency, t.autonomous_threshold, true);
  const threshold = parseAmount(t.currency, autonomous_threshold, { allowZero: true });
  const single = parseAmount(t.currency, max_single_amount);
  if ('atoms' in threshold && 'atoms' in single && threshold.atoms > single.atoms) problems.push({ field: 'autonomous_threshold', issue: 'must not exceed max_single_amount' });

  const seen = new Set<string>();
  const asset_budgets = t.asset_budgets.map((b, i) => {
    const p = `asset_budgets[${i}].`;
    if (!isNativeAsset(b.asset_code)) problems.push({ field: `${p}asset_code`, issue: `${b.asset_code} is not a supported native asset` });
    else if (!assets.includes(b.asset_code)) problems.push({ field: `${p}asset_code`, issue: 'must be one of the policy assets' });
    if (seen.has(b.asset_code)) problems.push({ field: `${p}asset_code`, issue: 'one budget per asset' });
    seen.add(b.asset_code);
    const budget = {
      asset_code: b.asset_code,
      max_single_amount: amount(`${p}max_single_amount`, b.asset_code, b.max_single_amount),
      daily_limit: amount(`${p}daily_limit`, b.asset_code, b.daily_limit),
      monthly_limit: amount(`${p}monthly_limit`, b.asset_code, b.monthly_limit),
    };
    ordered(p, budget.max_single_amount, budget.daily_limit, budget.monthly_limit, b.asset_code);
    return budget;
  });

  const destinations = [...new Set(t.destinations)];
  if (destinations.length > MAX_DESTINATIONS) problems.push({ field: 'destinations', issue: `at most ${MAX_DESTINATIONS} destinations` });
  destinations.forEach((d, i) => {
    if (d.length === 0 || d.length > 256 || d.trim() !== d) problems.push({ field: `destinations[${i}]`, issue: 'an exact identifier: 1 to 256 characters, no surrounding whitespace' });
  });
  if (!Number.isInteger(t.velocity_window_seconds) || t.velocity_window_seconds < 1 || t.velocity_window_seconds > MAX_VELOCITY_WINDOW_SECONDS) {
    problems.push({ field: 'velocity_window_seconds', issue: `an integer from 1 to ${MAX_VELOCITY_WINDOW_SECONDS}` });
  }
  if (!Number.isInteger(t.velocity_max_count) || t.velocity_max_count < 1 || t.velocity_max_count > MAX_VELOCITY_COUNT) {
    problems.push({ field: 'velocity_max_count', issue: `an integer from 1 to ${MAX_VELOCITY_COUNT}` });
  }
  let expires_at: string | null = null;
  if (t.expires_at !== null) {
    const at = Date.parse(t.expires_at);
    if (Number.isNaN(at)) problems.push({ field: 'expires_at', issue: 'an RFC 3339 timestamp' });
    else if (at <= now.getTime()) problems.push({ field: 'expires_at', issue: 'must be in the future' });
    else expires_at = new Date(at).toISOString();
  }
  if (problems.length > 0) return { problems };
  return {
    terms: {
      capabilities, assets, asset_budgets, destinations, max_single_amount, daily_limit, monthly_limit,
      velocity_window_seconds: t.velocity_window_seconds, velocity_max_count: t.velocity_max_count, autonomous_threshold, currency: t.currency, expires_at,
    },
  };
}

/**
 * How a policy's commitment is computed. POLICY_COMMITMENT_RULE (2): SHA-256 of the canonical JSON of the published
 * record without `policy_commitment` and `lifecycle`. Rule 1, of versions published before rule 2 (their
 * AiWalletPolicyPublished event has no `commitment_rule`): the same with `lifecycle` set to "ACTIVE", the status
 * they had when published.
 */
export const POLICY_COMMITMENT_RULE = 2;

export function policyCommitment(record: Omit<AiWalletPolicy, 'policy_commitment' | 'lifecycle'> & { lifecycle?: unknown; policy_commitment?: unknown }, rule: 1 | 2 = POLICY_COMMITMENT_RULE): string {
  const { policy_commitment: _commitment, lifecycle: _lifecycle, ...committed } = record;
  return sha256Hex(canonicalJson(rule === 2 ? committed : { ...committed, lifecycle: 'ACTIVE' }));
}

/** True when a published record (any lifecycle) recomputes to its own commitment under either rule. */
export function policyCommitmentHolds(record: AiWalletPolicy | (Omit<AiWalletPolicy, 'lifecycle'> & { lifecycle: string })): boolean {
  return record.policy_commitment === policyCommitment(record, 2) || record.policy_commitment === policyCommitment(record, 1);
}

/** The version record with its commitment (rule 2: every field but the commitment and the lifecycle). */
export function policyRecord(fields: Omit<AiWalletPolicy, 'policy_commitment' | 'lifecycle'>): AiWalletPolicy {
  return { ...fields, lifecycle: 'ACTIVE', policy_commitment: policyCommitment(fields, 2) };
}

/**
 * Where a decision had no policy to apply (decision_code POLICY_MISSING), the fields that name the policy still
 * carry their declared types: the nil id and the nil commitment, which no real policy can have.
 */
export const NO_POLICY_UUID = '0'.repeat(32);
export const NO_POLICY_COMMITMENT = '0'.repeat(64);

export const policyExpired = (p: Pick<AiWalletPolicy, 'expires_at'>, now: Date): boolean => p.expires_at !== null && Date.parse(p.expires_at) <= now.getTime();

/** Limits that bind an amount of `asset`: its own asset budget, and the policy's main limits when it is the policy currency. */
export interface LimitSet {
  asset_code: string;
  max_single_amount: string;
  daily_limit: string;
  monthly_limit: string;
}

export function limitsFor(p: PolicyTerms, asset: string): LimitSet[] {
  const sets: LimitSet[] = [];
  const own = p.asset_budgets.find((b) => b.asset_code === asset);
  if (own) sets.push(own);
  if (asset === p.currency) sets.push({ asset_code: asset, max_single_amount: p.max_single_amount, daily_limit: p.daily_limit, monthly_limit: p.monthly_limit });
  return sets;
}
