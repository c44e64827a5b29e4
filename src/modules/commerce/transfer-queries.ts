/**
 * The transfer reads: a transfer as a document (its actions included), the workspace's transfers, a tenant's
 * compliance queue, and the recipient key directory. Paged with the platform's one helper; cursors scoped to the list.
 */
import { QueryHandler, type IQueryHandler } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/principal';
import { PlatformError } from '../../platform/errors';
import { ReadModelDatabase } from '../../platform/read-model/read-model.datasource';
import { RECIPIENT_KEYS, TRANSFERS, transferRecord, type RecipientKeyRecord, type TransferRecord } from '../../../projections/commerce-transfers/commerce-transfers.read-model';
import { transferActions } from './domain/actions';
import { RecipientKeyNotFound } from './domain/recipient-key';
import { TransferNotFound } from './domain/transfer';
import { CommerceAccess } from './commerce-access';
import type { ComplianceQueueQuery, RecipientKeyListQuery, TransferListQuery } from './dto/transfers.dto';
import { page, type Document, type DocumentPage } from './queries';

/** The record as the transfers read model publishes it to Kafka, and its actions. */
export const transferView = (r: TransferRecord): Document<TransferRecord> => ({ ...transferRecord(r), actions: transferActions(r) });
const keyView = (r: RecipientKeyRecord): Document<RecipientKeyRecord> => ({ ...r, actions: [] });

export class GetTransfer {
  constructor(readonly principal: Principal, readonly transfer_uuid: string) {}
}

/** Members of the transfer's workspace read it; so do its tenant's compliance officers and platform admins. */
@QueryHandler(GetTransfer)
export class GetTransferHandler implements IQueryHandler<GetTransfer> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ principal, transfer_uuid }: GetTransfer): Promise<Document<TransferRecord>> {
    const record = await this.access.find(TRANSFERS, transfer_uuid);
    if (!record) throw new TransferNotFound();
    if (!(await this.access.isComplianceOfficer(principal, record.tenant_uuid))) await this.access.record(principal, TRANSFERS, transfer_uuid, 'read', () => new TransferNotFound());
    return transferView(record);
  }
}

export class ListTransfers {
  constructor(readonly principal: Principal, readonly query: TransferListQuery) {}
}

@QueryHandler(ListTransfers)
export class ListTransfersHandler implements IQueryHandler<ListTransfers> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListTransfers): Promise<DocumentPage<TransferRecord>> {
    const workspace = await this.access.workspace(principal, undefined, 'read');
    const where: Array<[string, unknown]> = [['workspace_uuid = ?', workspace.workspace_id]];
    if (query.merchant_uuid) where.push(['merchant_uuid = ?', query.merchant_uuid]);
    if (query.status) where.push(['state = ?', query.status]);
    return page<TransferRecord>(this.db, 'commerce_transfers', where, query, JSON.stringify([workspace.workspace_id, 'transfers', query.merchant_uuid ?? null, query.status ?? null]), transferView);
  }
}

export class ListComplianceQueue {
  constructor(readonly principal: Principal, readonly query: ComplianceQueueQuery) {}
}

/** A tenant's transfers in one state (HELD by default) for its compliance officers; 404 for anyone else. */
@QueryHandler(ListComplianceQueue)
export class ListComplianceQueueHandler implements IQueryHandler<ListComplianceQueue> {
  constructor(private readonly access: CommerceAccess, private readonly db: ReadModelDatabase) {}

  async execute({ principal, query }: ListComplianceQueue): Promise<DocumentPage<TransferRecord>> {
    if (!(await this.access.isComplianceOfficer(principal, query.tenant_uuid))) throw new PlatformError('NOT_FOUND', 'No such tenant.');
    const status = query.status ?? 'HELD';
    return page<TransferRecord>(this.db, 'commerce_transfers', [['tenant_uuid = ?', query.tenant_uuid], ['state = ?', status]], query, JSON.stringify([query.tenant_uuid, 'compliance', status]), transferView);
  }
}

export class GetRecipientKey {
  constructor(readonly recipient_key_id: string) {}
}

@QueryHandler(GetRecipientKey)
export class GetRecipientKeyHandler implements IQueryHandler<GetRecipientKey> {
  constructor(private readonly access: CommerceAccess) {}

  async execute({ recipient_key_id }: GetRecipientKey): Promise<Document<RecipientKeyRecord>> {
    const record = await this.access.find(RECIPIENT_KEYS, recipient_key_id);
    if (!record) throw new RecipientKeyNotFound();
    return keyView(record);
  }
}

export class ListRecipientKeys {
  constructor(readonly query: RecipientKeyListQuery) {}
}

/** The directory is public to every signed-in caller: originators look up the key they encrypt for. */
@QueryHandler(ListRecipientKeys)
export class ListRecipientKeysHandler implements IQueryHandler<ListRecipientKeys> {
  constructor(private readonly db: ReadModelDatabase) {}

  async execute({ query }: ListRecipientKeys): Promise<DocumentPage<RecipientKeyRecord>> {
    const where: Array<[string, unknown]> = query.status ? [['status = ?', query.status]] : [['1 = ?', 1]];
    return page<RecipientKeyRecord>(this.db, 'commerce_recipient_keys', where, query, JSON.stringify(['recipient-keys', query.status ?? null]), keyView);
  }
}
