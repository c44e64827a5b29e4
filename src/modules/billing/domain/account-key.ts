/**
 * Which billing account pays (docs/billing.md, "Which account pays"): one pure rule, used by the credits gate, the
 * rater, the billing-accounts projector and the routes, so they can never disagree.
 *
 * - A tenant other than the global one has one shared account: every person and agent of the tenant draws on it.
 * - In the global tenant (everyone who registered without `tenant_uuid`) there is no shared account: each person is
 *   billed on an account of their own, the person being who the command's events name in their envelope: a person's
 *   session is the person (`metadata.actor`, `profile`); an agent's workload token (`metadata.actor`, `workload`)
 *   acts for the person who answers for it, its binding's owner, whom the envelope names in `metadata.on_behalf_of`
 *   (`profile`): the agent's usage is that person's, on their account and allowance, shared with their other agents.
 * - An agent's event without `on_behalf_of` (appended before the envelope carried it) stays where it was rated: on the
 *   agent's own account (its client id), so a replay of the log bills every event where it was billed the first time.
 * - A billable event of the global tenant with no person or agent behind it (the platform itself) is not rated: there
 *   is nobody to bill. The global tenant's own account, which all of the global tenant shared before, rates nothing
 *   more; how far it rated marks the usage rated under the earlier rule, never rated again on a person's account
 *   (ratedOnSharedGlobalAccount).
 *
 * The account's key names its stream (`billing-account-<key>`) and its read-model rows: the tenant's id for a tenant's
 * account (unchanged, so a tenant's existing account keeps its stream), and for a person's account a 32-hex digest of
 * the tenant and the person (a pseudonym of the profile, as internal as the profile_uuid itself).
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';
import { GLOBAL_TENANT_UUID } from '../../identity/domain/identity.constants';

export { GLOBAL_TENANT_UUID };

/** Who an account bills: a tenant (profile_uuid null), or one person of the global tenant (or an agent, for usage before on_behalf_of). */
export interface BillingPayer {
  tenant_uuid: string;
  profile_uuid: string | null;
}

/** The envelope's actor, as the event metadata and the request context carry it. */
export interface BillingActor {
  type: string;
  reference: string;
}

const HEX32 = /^[0-9a-f]{32}$/;
/** The actor kinds that hold an account of their own in the global tenant. */
const HOLDERS = new Set(['profile', 'workload']);

/**
 * The payer of a billable command (the gate) or event (the rater): its tenant, and in the global tenant its person:
 * the actor, or for an agent (`workload`) the person it acts for (`on_behalf_of`, the binding's owner) when named.
 */
export function billingPayer(tenant_uuid: string, actor: BillingActor | null | undefined, on_behalf_of?: BillingActor | null): BillingPayer {
  if (tenant_uuid !== GLOBAL_TENANT_UUID) return { tenant_uuid, profile_uuid: null };
  if (actor?.type === 'workload' && on_behalf_of?.type === 'profile' && HEX32.test(on_behalf_of.reference)) return { tenant_uuid, profile_uuid: on_behalf_of.reference };
  const holder = actor && HOLDERS.has(actor.type) && HEX32.test(actor.reference) ? actor.reference : null;
  return { tenant_uuid, profile_uuid: holder };
}

/** The account's key: the tenant's id for a tenant's account; a digest of tenant and person for a person's. */
export function billingAccountKey(payer: BillingPayer): string {
  if (payer.profile_uuid === null) return payer.tenant_uuid;
  return sha256Hex(canonicalJson(['billing-account-key', payer.tenant_uuid, payer.profile_uuid])).slice(0, 32);
}

/**
 * Whether a usage of the global tenant at `source_position` was rated on its former shared account (rated up to
 * `sharedUntil`) under the earlier rule, so that reading the log again never rates it a second time on a person's own
 * account. A tenant's usage is never in question: its account's key did not change.
 */
export function ratedOnSharedGlobalAccount(payer: BillingPayer, source_position: bigint, sharedUntil: bigint): boolean {
  return payer.tenant_uuid === GLOBAL_TENANT_UUID && source_position <= sharedUntil;
}
