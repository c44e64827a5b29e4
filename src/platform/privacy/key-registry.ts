/**
 * Which keys the nodes of one log may hold (issue 46). PLATFORM_SECRET_KEY, AUDIT_SIGNING_KEY and MEMORY_SIGNING_KEY
 * can be rotated, so unlike PRIVACY_MASTER_KEY and IDENTITY_SECRET_KEY (one value for ever, one check value) each has
 * a registry of key ids in key_store_meta, beside the subject keys the nodes share. A key id names a key without
 * revealing it: an HMAC under the secret, or the RFC 7638 thumbprint of a signing key's public key. Each variable has a
 * trusted companion (PLATFORM_TRUSTED_SECRET_KEYS, AUDIT_TRUSTED_KEYS, MEMORY_TRUSTED_KEYS): the keys a node accepts
 * from the others besides its own, the previous key during a rotation and the next one before it.
 *
 * Rows per variable, `keys:<VARIABLE>:…`, each written once and never changed (so nodes starting together agree):
 * - `first` = the id of the first node's key;
 * - `known:<id>` = the id of the key that announced it: a node whose own key is known and not retired announces
 *   the keys of its trusted companion, and from then on a node may hold them (docs/operations.md 10.1, step 1);
 * - `writing:<id>`: a node has started holding it (fingerprints, signs with it): the current keys are these, less
 *   the retired ones (one; two while a rotation switches);
 * - `retired:<id>`: no node may hold it again. A node retires the keys that announced its own (and theirs, back to the
 *   first) once its trusted companion no longer lists them (step 3).
 * A node is refused when its key is not known, or retired, or when a current key is neither its own nor trusted by it
 * (it would not recognise the fingerprints or checkpoints of the nodes holding it). A key is never vouched for by a
 * public key a node merely trusts: anyone can list a public key, only the node holding a known key can announce.
 */
import { createHmac } from 'node:crypto';

/** MEMORY_SIGNING_KEY unset: manifests say UNSIGNED, as if signed by this "key" (a mixture with signers is refused). */
export const UNSIGNED = 'UNSIGNED';

/** One node's key for one variable, as ids. */
export interface NodeKey {
  variable: string;
  /** The variable listing the other keys this node accepts. */
  trustedVariable: string;
  current: string;
  trusted: string[];
  /** Where the key came from, for the refusal: the variable, or the file generated into DATA_DIR. */
  source: string;
}

/** The id of a secret key (PLATFORM_SECRET_KEY): an HMAC under it, 128 bits in hex; the key cannot be had from it. */
export function secretKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('platform key id v1').digest('hex').slice(0, 32);
}

export const registryPrefix = (variable: string): string => `keys:${variable}:`;

interface Registry {
  first: string | null;
  /** Known key → the key that announced it (null: the first). */
  known: Map<string, string | null>;
  writing: Set<string>;
  retired: Set<string>;
}

/** The registry from its rows (names without the prefix). */
function registryOf(rows: Map<string, string>): Registry {
  const first = rows.get('first') ?? null;
  const registry: Registry = { first, known: new Map(first ? [[first, null]] : []), writing: new Set(), retired: new Set() };
  for (const [name, value] of rows) {
    const colon = name.indexOf(':');
    if (colon < 0) continue; // `first`
    const [kind, id] = [name.slice(0, colon), name.slice(colon + 1)];
    if (kind === 'known' && !registry.known.has(id)) registry.known.set(id, value);
    else if (kind === 'writing') registry.writing.add(id);
    else if (kind === 'retired') registry.retired.add(id);
  }
  return registry;
}

/** The keys that announced this one, back to the first. */
function announcersOf(registry: Registry, id: string): string[] {
  const chain: string[] = [];
  let by = registry.known.get(id) ?? null;
  while (by !== null && by !== id && !chain.includes(by)) {
    chain.push(by);
    by = registry.known.get(by) ?? null;
  }
  return chain;
}

export type Verdict = { refusal: string } | { record: Array<[name: string, value: string]> };

/**
 * Whether a node may start with its key, given the registry's rows (`first` already recorded), and what it records:
 * the keys it announces, the keys it retires, its own key as one nodes hold.
 */
export function judgeNodeKey(rows: Map<string, string>, node: NodeKey, where: string, now = new Date()): Verdict {
  const registry = registryOf(rows);
  const { current } = node;
  const trusted = new Set(node.trusted.filter((id) => id !== current));
  // The current keys: those nodes hold, less the retired ones.
  const held = [...registry.writing].filter((id) => !registry.retired.has(id));
  if (!registry.known.has(current)) return { refusal: refusal.unknown(node, held.length > 0 ? held : [registry.first ?? '?'], where) };
  if (registry.retired.has(current)) return { refusal: refusal.retired(node, held, where) };
  const retiring = announcersOf(registry, current).filter((id) => !trusted.has(id) && !registry.retired.has(id));
  const untrusted = held.filter((id) => id !== current && !trusted.has(id) && !retiring.includes(id));
  if (untrusted.length > 0) return { refusal: refusal.untrusted(node, untrusted[0], where) };
  const at = now.toISOString();
  return {
    record: [
      ...[...trusted].filter((id) => !registry.known.has(id)).map((id): [string, string] => [`known:${id}`, current]),
      ...retiring.map((id): [string, string] => [`retired:${id}`, `by ${current} at ${at}`]),
      ...(registry.writing.has(current) ? [] : [[`writing:${current}`, at] as [string, string]]),
    ],
  };
}

const named = (id: string): string => (id === UNSIGNED ? 'no key (manifests UNSIGNED)' : `key id ${id}`);
const thisNode = (node: NodeKey): string =>
  node.current === UNSIGNED ? `${node.variable} unset on this node (manifests UNSIGNED)` : `${node.variable} of this node (key id ${node.current}, from ${node.source})`;
const HOW = 'docs/operations.md, 10.1';

const refusal = {
  unknown: (node: NodeKey, held: string[], where: string): string =>
    `${thisNode(node)} is not what the nodes of this log hold (they hold ${held.map(named).join(' and ')}; recorded in ${where}): ` +
    `give every node the same ${node.variable}. To roll a new key in, a node holding the current one must first list it in ${node.trustedVariable} (${HOW}).`,
  retired: (node: NodeKey, held: string[], where: string): string =>
    `${thisNode(node)} was retired by a rotation (recorded in ${where}): give it what the other nodes hold (${held.map(named).join(' and ')}) (${HOW}).`,
  untrusted: (node: NodeKey, other: string, where: string): string =>
    `Other nodes of this log hold ${node.variable} ${named(other)} (recorded in ${where}), which this node neither holds (it holds ${named(node.current)}) nor trusts: ` +
    `list it in ${node.trustedVariable}, or set ${node.variable} to it (${HOW}).`,
};
