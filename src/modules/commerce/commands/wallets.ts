/** Watch-only wallet commands: register, add addresses to a rotational pool, retire. */
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Principal } from '../../../platform/auth/principal';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { nextId } from '../../../platform/context/request-context';
import { ValidationFailed } from '../../../platform/errors';
import { MERCHANTS } from '../../../../projections/commerce-merchants/commerce-merchants.read-model';
import { WALLETS } from '../../../../projections/commerce-wallets/commerce-wallets.read-model';
import { MerchantNotFound } from '../domain/merchant';
import { isAddressOf } from '../domain/money';
import { walletDecider, WalletNotFound, walletStream, type WalletCore, type WalletType } from '../domain/wallet';
import { CommerceAccess } from '../commerce-access';
import type { AddWalletAddressesRequest, RegisterWalletRequest } from '../dto/commerce.dto';
import type { Created } from './merchants';

export class RegisterWallet {
  constructor(readonly principal: Principal, readonly body: RegisterWalletRequest) {}
}

@CommandHandler(RegisterWallet)
export class RegisterWalletHandler implements ICommandHandler<RegisterWallet, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess, @Inject(CLOCK) private readonly clock: Clock) {}

  async execute({ principal, body }: RegisterWallet): Promise<Created> {
    const type = body.wallet_type as WalletType;
    let workspace_uuid: string;
    let tenant_uuid: string;
    let merchant_uuid: string | null = null;
    let address: string | null = null;
    let addresses: string[] = [];
    if (type === 'ROTATIONAL') {
      if (!body.merchant_uuid) throw new ValidationFailed('A rotational wallet belongs to a merchant.', [{ field: 'merchant_uuid', issue: 'required for ROTATIONAL' }]);
      if (body.address !== undefined) throw new ValidationFailed('A rotational wallet has a pool, not one address.', [{ field: 'address', issue: 'use addresses for ROTATIONAL' }]);
      if (body.governance_required) throw new ValidationFailed('Only an operational wallet sends transfers.', [{ field: 'governance_required', issue: 'OPERATIONAL only' }]);
      if (!body.addresses) throw new ValidationFailed('A rotational wallet needs its address pool.', [{ field: 'addresses', issue: 'required for ROTATIONAL' }]);
      const { record } = await this.access.record(principal, MERCHANTS, body.merchant_uuid, 'manage', () => new MerchantNotFound());
      workspace_uuid = record.workspace_uuid;
      tenant_uuid = record.tenant_uuid;
      merchant_uuid = body.merchant_uuid;
      addresses = checkAddresses(body.network_id, body.addresses, 'addresses');
    } else {
      if (body.merchant_uuid !== undefined) throw new ValidationFailed('An operational wallet belongs to the workspace.', [{ field: 'merchant_uuid', issue: 'not for OPERATIONAL' }]);
      if (body.addresses !== undefined) throw new ValidationFailed('An operational wallet has one address.', [{ field: 'addresses', issue: 'use address for OPERATIONAL' }]);
      if (body.address === undefined) throw new ValidationFailed('An operational wallet needs its address.', [{ field: 'address', issue: 'required for OPERATIONAL' }]);
      const workspace = await this.access.workspace(principal, body.workspace_uuid, 'manage');
      workspace_uuid = workspace.workspace_id;
      tenant_uuid = workspace.tenant_uuid;
      [address] = checkAddresses(body.network_id, [body.address], 'address');
    }
    const wallet: WalletCore = {
      wallet_uuid: nextId(), wallet_type: type, workspace_uuid, tenant_uuid, merchant_uuid, network_id: body.network_id, label: body.label, address, governance_required: body.governance_required ?? false,
      created_by_profile_uuid: principal.profile_uuid, created: this.clock().toISOString(),
    };
    await this.commands.execute(walletStream(wallet.wallet_uuid), walletDecider, { kind: 'RegisterWallet', wallet, addresses }, { newStream: true });
    return { id: wallet.wallet_uuid };
  }
}

/** Addresses of the network's shape, no repeats: a 400 naming the first bad one. */
function checkAddresses(network_id: string, addresses: string[], field: string): string[] {
  const seen = new Set<string>();
  addresses.forEach((a, i) => {
    if (!isAddressOf(network_id, a)) throw new ValidationFailed(`Not an address on ${network_id}.`, [{ field: field === 'address' ? field : `${field}[${i}]`, issue: `not an address of ${network_id}` }]);
    if (seen.has(a)) throw new ValidationFailed('An address appears twice.', [{ field: `${field}[${i}]`, issue: 'repeated' }]);
    seen.add(a);
  });
  return addresses;
}

export class ChangeWallet {
  constructor(readonly principal: Principal, readonly wallet_uuid: string, readonly change: { kind: 'add'; body: AddWalletAddressesRequest } | { kind: 'retire'; expected_version: number }) {}
}

@CommandHandler(ChangeWallet)
export class ChangeWalletHandler implements ICommandHandler<ChangeWallet, Created> {
  constructor(private readonly commands: CommandExecutor, private readonly access: CommerceAccess) {}

  async execute({ principal, wallet_uuid, change }: ChangeWallet): Promise<Created> {
    const { record } = await this.access.record(principal, WALLETS, wallet_uuid, 'manage', () => new WalletNotFound());
    const command =
      change.kind === 'add'
        ? { kind: 'AddAddresses' as const, expected_version: change.body.expected_version, addresses: checkAddresses(record.network_id, change.body.addresses, 'addresses'), by_profile_uuid: principal.profile_uuid }
        : { kind: 'RetireWallet' as const, expected_version: change.expected_version, by_profile_uuid: principal.profile_uuid };
    await this.commands.execute(walletStream(wallet_uuid), walletDecider, command);
    return { id: wallet_uuid };
  }
}
