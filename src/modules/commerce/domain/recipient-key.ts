/**
 * The directory of receiving institutions' public keys, for travel-rule envelopes: a key is registered (ACTIVE),
 * rotated (its successor registered, the key itself RETIRED with a pointer to it) or retired. An envelope must name an
 * ACTIVE key. One stream per key (`commerce-transfer-key-<recipient_key_id>`), version = stream revision.
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, StateConflict } from '../../../platform/errors';
import { staleVersion } from './merchant';

export const RECIPIENT_KEY_STATUSES = ['ACTIVE', 'RETIRED'] as const;
export type RecipientKeyStatus = (typeof RECIPIENT_KEY_STATUSES)[number];
/** The KEM of the keys the default envelope algorithm opens with (RFC 9180): raw 32-byte X25519 public keys. */
export const RECIPIENT_KEY_KEMS = ['DHKEM-X25519-HKDF-SHA256'] as const;

export const recipientKeyStream = (recipient_key_id: string): string => `commerce-transfer-key-${recipient_key_id}`;

export interface RecipientKeyCore {
  recipient_key_id: string;
  institution_name: string;
  /** The institution's Legal Entity Identifier (ISO 17442), when it has one. */
  institution_lei: string | null;
  kem: string;
  /** base64url of the raw public key. */
  public_key: string;
  /** The key this one replaces (a rotation), or null. */
  replaces: string | null;
  registered_by_profile_uuid: string;
  created: string;
}

export type RecipientKeyEvent =
  | { type: 'CommerceRecipientKeyRegistered'; data: { key: RecipientKeyCore } }
  | { type: 'CommerceRecipientKeyRetired'; data: { recipient_key_id: string; successor_key_id: string | null; by_profile_uuid: string; at: string } };

export interface RecipientKeyState {
  key: RecipientKeyCore | null;
  status: RecipientKeyStatus;
  version: number;
  successor_key_id: string | null;
  updated: string | null;
}

export type RecipientKeyCommand =
  | { kind: 'RegisterKey'; key: RecipientKeyCore }
  | { kind: 'RetireKey'; expected_version: number; successor_key_id: string | null; by_profile_uuid: string };

export class RecipientKeyNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such recipient key.');
  }
}

function initialState(): RecipientKeyState {
  return { key: null, status: 'ACTIVE', version: -1, successor_key_id: null, updated: null };
}

function evolve(state: RecipientKeyState, event: RecipientKeyEvent): RecipientKeyState {
  if (event.type === 'CommerceRecipientKeyRegistered') return { key: event.data.key, status: 'ACTIVE', version: 0, successor_key_id: null, updated: event.data.key.created };
  return { ...state, status: 'RETIRED', version: state.version + 1, successor_key_id: event.data.successor_key_id, updated: event.data.at };
}

function decide(command: RecipientKeyCommand, state: RecipientKeyState, ctx: DecideContext): RecipientKeyEvent[] {
  if (command.kind === 'RegisterKey') return state.key ? [] : [{ type: 'CommerceRecipientKeyRegistered', data: { key: command.key } }];
  if (!state.key) throw new RecipientKeyNotFound();
  if (command.expected_version !== state.version) throw staleVersion('recipient key', command.expected_version, state.version);
  if (state.status !== 'ACTIVE') throw new StateConflict('The key is already RETIRED.', { details: [{ field: 'status', issue: 'is RETIRED' }] });
  return [{ type: 'CommerceRecipientKeyRetired', data: { recipient_key_id: state.key.recipient_key_id, successor_key_id: command.successor_key_id, by_profile_uuid: command.by_profile_uuid, at: ctx.now.toISOString() } }];
}

export const recipientKeyDecider: Decider<RecipientKeyCommand, RecipientKeyState, RecipientKeyEvent> = { initialState, evolve, decide };

/** base64url of a raw X25519 public key: 32 bytes. */
export function isX25519PublicKey(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) && Buffer.from(value, 'base64url').length === 32;
}
