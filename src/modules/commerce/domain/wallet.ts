/**
 * Commerce wallets are watch-only: addresses the platform watches for payments, never a key. One stream per wallet
 * (`commerce-wallet-<wallet_uuid>`), version = stream revision.
 *
 * - OPERATIONAL: a workspace's address on one network (one address).
 * - ROTATIONAL: a merchant's pool of addresses on one network; each invoice on that network takes a fresh one, never
 *   handed out twice (allocation is decided on the wallet's stream, so two invoices cannot take the same address).
 *
 * | From | Transition | To |
 * |---|---|---|
 * | (new) | register | ACTIVE |
 * | ACTIVE | add addresses (rotational) | ACTIVE |
 * | ACTIVE | allocate an address to an invoice (rotational) | ACTIVE |
 * | ACTIVE | retire | RETIRED |
 */
import type { Decider, DecideContext } from '../../../platform/command/decider';
import { PlatformError, RuleViolation, StateConflict } from '../../../platform/errors';
import { staleVersion } from './merchant';

export const WALLET_TYPES = ['OPERATIONAL', 'ROTATIONAL'] as const;
export type WalletType = (typeof WALLET_TYPES)[number];
export const WALLET_STATUSES = ['ACTIVE', 'RETIRED'] as const;
export type WalletStatus = (typeof WALLET_STATUSES)[number];
/** Addresses one request may add to a pool, and a pool's size. */
export const MAX_ADDRESSES_PER_REQUEST = 500;
export const MAX_POOL_SIZE = 10_000;

export const walletStream = (wallet_uuid: string): string => `commerce-wallet-${wallet_uuid}`;

export interface WalletCore {
  wallet_uuid: string;
  wallet_type: WalletType;
  workspace_uuid: string;
  tenant_uuid: string;
  /** ROTATIONAL: the merchant whose invoices take its addresses; OPERATIONAL: null. */
  merchant_uuid: string | null;
  network_id: string;
  label: string;
  /** OPERATIONAL: its address; ROTATIONAL: null (the pool is in the events). */
  address: string | null;
  /** Transfers from it wait for a governance decision and an MPC signing request (OPERATIONAL wallets only). */
  governance_required: boolean;
  created_by_profile_uuid: string;
  created: string;
}

export type WalletEvent =
  | { type: 'CommerceWalletRegistered'; data: { wallet: WalletCore; addresses: string[] } }
  | { type: 'CommerceWalletAddressesAdded'; data: { wallet_uuid: string; addresses: string[]; by_profile_uuid: string; at: string } }
  | { type: 'CommerceWalletAddressAllocated'; data: { wallet_uuid: string; address: string; invoice_uuid: string; at: string } }
  | { type: 'CommerceWalletRetired'; data: { wallet_uuid: string; by_profile_uuid: string; at: string } };

export interface WalletState {
  wallet: WalletCore | null;
  status: WalletStatus;
  version: number;
  updated: string | null;
  /** Addresses not yet handed out, oldest first. */
  free: string[];
  /** Every address the wallet ever had (a pool never takes one twice). */
  known: Set<string>;
  /** invoice_uuid → the address it took. */
  allocated: Map<string, string>;
}

export type WalletCommand =
  | { kind: 'RegisterWallet'; wallet: WalletCore; addresses: string[] }
  | { kind: 'AddAddresses'; expected_version: number; addresses: string[]; by_profile_uuid: string }
  | { kind: 'AllocateAddress'; invoice_uuid: string }
  | { kind: 'RetireWallet'; expected_version: number; by_profile_uuid: string };

export class WalletNotFound extends PlatformError {
  constructor() {
    super('NOT_FOUND', 'No such wallet.');
  }
}

function initialState(): WalletState {
  return { wallet: null, status: 'ACTIVE', version: -1, updated: null, free: [], known: new Set(), allocated: new Map() };
}

function evolve(state: WalletState, event: WalletEvent): WalletState {
  switch (event.type) {
    case 'CommerceWalletRegistered': {
      const { wallet, addresses } = event.data;
      return { ...initialState(), wallet, version: 0, updated: wallet.created, free: [...addresses], known: new Set([...addresses, ...(wallet.address ? [wallet.address] : [])]) };
    }
    case 'CommerceWalletAddressesAdded': {
      const known = new Set(state.known);
      for (const a of event.data.addresses) known.add(a);
      return { ...state, version: state.version + 1, updated: event.data.at, free: [...state.free, ...event.data.addresses], known };
    }
    case 'CommerceWalletAddressAllocated': {
      const allocated = new Map(state.allocated);
      allocated.set(event.data.invoice_uuid, event.data.address);
      return { ...state, version: state.version + 1, updated: event.data.at, free: state.free.filter((a) => a !== event.data.address), allocated };
    }
    case 'CommerceWalletRetired':
      return { ...state, status: 'RETIRED', version: state.version + 1, updated: event.data.at };
  }
}

function decide(command: WalletCommand, state: WalletState, ctx: DecideContext): WalletEvent[] {
  const at = ctx.now.toISOString();
  if (command.kind === 'RegisterWallet') {
    if (state.wallet) return [];
    return [{ type: 'CommerceWalletRegistered', data: { wallet: command.wallet, addresses: command.addresses } }];
  }
  const wallet = state.wallet;
  if (!wallet) throw new WalletNotFound();
  switch (command.kind) {
    case 'AddAddresses': {
      if (command.expected_version !== state.version) throw staleVersion('wallet', command.expected_version, state.version);
      if (wallet.wallet_type !== 'ROTATIONAL') throw new RuleViolation('Only a ROTATIONAL wallet has an address pool.', [{ field: 'addresses', issue: 'wallet is OPERATIONAL' }]);
      if (state.status !== 'ACTIVE') throw new StateConflict('A RETIRED wallet takes no addresses.', { details: [{ field: 'status', issue: 'is RETIRED' }] });
      const again = command.addresses.filter((a) => state.known.has(a));
      if (again.length > 0) throw new RuleViolation('These addresses are already in the pool (an address is never handed out twice).', [{ field: 'addresses', issue: `already known: ${again.slice(0, 5).join(', ')}` }]);
      if (state.known.size + command.addresses.length > MAX_POOL_SIZE) throw new RuleViolation(`A pool holds at most ${MAX_POOL_SIZE} addresses.`, [{ field: 'addresses', issue: 'pool full' }]);
      return [{ type: 'CommerceWalletAddressesAdded', data: { wallet_uuid: wallet.wallet_uuid, addresses: command.addresses, by_profile_uuid: command.by_profile_uuid, at } }];
    }
    case 'AllocateAddress': {
      if (state.allocated.has(command.invoice_uuid)) return [];
      if (state.status !== 'ACTIVE') throw new RuleViolation("The merchant's rotational wallet was retired.", [{ field: 'network_id', issue: 'no active rotational wallet' }]);
      const address = state.free[0];
      if (!address) throw new RuleViolation("The merchant's rotational wallet has no fresh address left: add addresses to its pool.", [{ field: 'network_id', issue: 'address pool exhausted' }]);
      return [{ type: 'CommerceWalletAddressAllocated', data: { wallet_uuid: wallet.wallet_uuid, address, invoice_uuid: command.invoice_uuid, at } }];
    }
    case 'RetireWallet':
      if (command.expected_version !== state.version) throw staleVersion('wallet', command.expected_version, state.version);
      if (state.status !== 'ACTIVE') throw new StateConflict('The wallet is already RETIRED.', { details: [{ field: 'status', issue: 'is RETIRED' }] });
      return [{ type: 'CommerceWalletRetired', data: { wallet_uuid: wallet.wallet_uuid, by_profile_uuid: command.by_profile_uuid, at } }];
  }
}

export const walletDecider: Decider<WalletCommand, WalletState, WalletEvent> = { initialState, evolve, decide };
