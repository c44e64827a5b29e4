/**
 * The global chain: one hash chain over the whole log in commit order (global position), on top of the per-stream
 * chains of PLATFORM.md section 3. A stream chain proves each stream's history; it cannot see an event removed
 * from the end of a stream, a whole stream removed, or two events of different streams swapping places. The global
 * chain does, once a signed checkpoint anchors it (domain/checkpoint.ts).
 *
 *   global_commitment(e) = lowercase hex SHA-256 of the RFC 8785 canonical JSON (UTF-8) of
 *     { "alg": "sha256-global-v1", "position": "<e.position, decimal>", "event_commitment": "<e's commitment>",
 *       "previous_global_commitment": <the global commitment of the event before e in the log, null for the first> }
 *
 * Positions are decimal strings (EventStoreDB commit positions are 64-bit). `event_commitment` is the commitment
 * recomputed from the event's content, which equals the stored one for an intact event. Pure.
 */
import { canonicalJson, sha256Hex } from '../../../platform/commitments/commitment';

export const GLOBAL_ALG = 'sha256-global-v1';

const HEX64 = /^[0-9a-f]{64}$/;

export interface GlobalLink {
  position: bigint;
  event_commitment: string;
  previous_global_commitment: string | null;
}

/** The object whose canonical JSON is hashed (exported for the docs' vectors and third-party checks). */
export function globalPreimage(link: GlobalLink): Record<string, string | null> {
  return {
    alg: GLOBAL_ALG,
    position: link.position.toString(),
    event_commitment: link.event_commitment,
    previous_global_commitment: link.previous_global_commitment,
  };
}

export function globalCommitment(link: GlobalLink): string {
  // The common case (hex values) is written in JCS member order directly; anything odd (a tampered commitment)
  // goes through the canonicalizer so the hash is still well defined.
  if (HEX64.test(link.event_commitment) && (link.previous_global_commitment === null || HEX64.test(link.previous_global_commitment))) {
    const previous = link.previous_global_commitment === null ? 'null' : `"${link.previous_global_commitment}"`;
    return sha256Hex(`{"alg":"${GLOBAL_ALG}","event_commitment":"${link.event_commitment}","position":"${link.position.toString()}","previous_global_commitment":${previous}}`);
  }
  return sha256Hex(canonicalJson(globalPreimage(link)));
}

/** Where a fold of the global chain stands: after `count` events, the last at `position`. */
export interface GlobalChainState {
  position: bigint;
  count: bigint;
  commitment: string | null;
}

export const GENESIS: GlobalChainState = { position: 0n, count: 0n, commitment: null };

export function foldGlobal(state: GlobalChainState, position: bigint, event_commitment: string): GlobalChainState {
  return { position, count: state.count + 1n, commitment: globalCommitment({ position, event_commitment, previous_global_commitment: state.commitment }) };
}
