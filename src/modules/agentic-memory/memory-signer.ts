/**
 * Signs manifests with the platform's Ed25519 key (MEMORY_SIGNING_KEY, base64 of the 32-byte private seed), using
 * Node's crypto. The signature covers the ASCII bytes of the manifest commitment (64 lowercase hex characters);
 * `public_key` is the raw 32-byte public key in base64url (a JWK's `x`), `key_id` its RFC 7638 JWK thumbprint
 * (base64url SHA-256 of `{"crv":"Ed25519","kty":"OKP","x":…}`). Without a key, manifests say UNSIGNED.
 */
import { Inject, Injectable } from '@nestjs/common';
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../platform/config/platform-config';
import { UNSIGNED, type NodeKey } from '../../platform/privacy/key-registry';
import type { ManifestIntegrity } from './domain/manifest';

/** DER prefix of a PKCS #8 Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface MemorySigningKey {
  privateKey: KeyObject;
  public_key: string;
  key_id: string;
}

/** The RFC 7638 thumbprint of an Ed25519 public key (base64url): its `key_id`. */
export function thumbprintOf(publicKey: string): string {
  return createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${publicKey}"}`).digest('base64url');
}

/** The key from its base64 seed; throws when it is not 32 bytes. */
export function signingKeyFromSeed(seedBase64: string): MemorySigningKey {
  const seed = Buffer.from(seedBase64, 'base64');
  if (seed.length !== 32) throw new Error('MEMORY_SIGNING_KEY must be base64 of a 32-byte Ed25519 seed');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const x = createPublicKey(privateKey).export({ format: 'jwk' }).x as string;
  return { privateKey, public_key: x, key_id: thumbprintOf(x) };
}

@Injectable()
export class MemorySigner {
  private readonly key: MemorySigningKey | null;
  private readonly trusted: string[];

  constructor(@Inject(PLATFORM_CONFIG) config: PlatformConfig) {
    this.key = config.memorySigningKey ? signingKeyFromSeed(config.memorySigningKey) : null;
    this.trusted = config.memoryTrustedKeys.map(thumbprintOf);
  }

  /**
   * The key as the registry the nodes of one log share names it (SubjectKeyStore.assertKeyAmongNodes). No key counts
   * as a key of its own, UNSIGNED: nodes signing and nodes not would serve one collection's manifest signed and
   * unsigned by turns, and a client that checks signatures cannot tell that from a stripped signature.
   */
  get nodeKey(): NodeKey {
    return { variable: 'MEMORY_SIGNING_KEY', trustedVariable: 'MEMORY_TRUSTED_KEYS', current: this.key?.key_id ?? UNSIGNED, trusted: this.trusted, source: 'MEMORY_SIGNING_KEY' };
  }

  integrity(collection_commitment: string, manifest_commitment: string): ManifestIntegrity {
    if (!this.key) return { collection_commitment, manifest_commitment, signature_state: 'UNSIGNED' };
    return {
      collection_commitment,
      manifest_commitment,
      signature_state: 'SIGNED',
      algorithm: 'Ed25519',
      public_key: this.key.public_key,
      key_id: this.key.key_id,
      signature: sign(null, Buffer.from(manifest_commitment, 'ascii'), this.key.privateKey).toString('base64url'),
      signed_payload: 'manifest_commitment',
    };
  }
}
