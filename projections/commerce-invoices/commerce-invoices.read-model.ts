/**
 * Invoices and their payments as the API shows them (without `actions`), and what each merchant has been settled per
 * asset (the exact sum of its SETTLED payments: what a settlement intent may draw on). Also what the expiry sweeps
 * look for (OPEN invoices by expires_at, payments waiting for authorization by authorization_expires_at).
 */
import { Table, type EntityManager, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { ERASED_TEXT } from '../../src/platform/privacy/sealing';
import { scrubRecords } from '../../src/platform/privacy/read-model-erasure';
import type { Projector } from '../../src/platform/projections/projector';
import { insertRecord, patchRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import { portableSql } from '../../src/platform/read-model/read-model.datasource';
import type { ReadModelDefinition } from '../../src/platform/read-model/read-model.definition';
import { paymentProgressAfter, paymentProgressOf, type InvoiceCancelReason, type InvoiceCore, type InvoiceEvent, type InvoiceException, type InvoiceStatus, type PaymentChange, type PaymentCore, type PaymentProgress } from '../../src/modules/commerce/domain/invoice';
import { money, parseMoney } from '../../src/modules/commerce/domain/money';

export interface InvoiceRecord extends InvoiceCore {
  status: InvoiceStatus;
  exceptions: InvoiceException[];
  amount_settled: string;
  version: number;
  updated: string;
  cancellation: { reason_code: InvoiceCancelReason; reason_detail: string | null; by_profile_uuid: string; at: string } | null;
}

export interface PaymentRecord extends PaymentCore, PaymentProgress {
  /** There is no real payment rail here: no funds move (docs/commerce.md). */
  funds_movement_available: false;
}

export const INVOICES: JsonRecordTable<InvoiceRecord> = { table: 'commerce_invoices', key: 'invoice_uuid', columns: ['merchant_uuid', 'workspace_uuid', 'status', 'external_order_reference', 'expires_at'] };
export const PAYMENTS: JsonRecordTable<PaymentRecord> = { table: 'commerce_payments', key: 'payment_uuid', columns: ['invoice_uuid', 'merchant_uuid', 'workspace_uuid', 'state', 'authorization_expires_at'] };

export class CommerceInvoices1764000011200 implements MigrationInterface {
  name = 'CommerceInvoices1764000011200';
  async up(q: QueryRunner): Promise<void> {
    const text = (name: string, length: string, isNullable = false) => ({ name, type: 'varchar', length, isNullable });
    await q.createTable(
      new Table({
        name: 'commerce_invoices',
        columns: [
          { name: 'invoice_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('merchant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('status', '20'),
          text('external_order_reference', '128'),
          text('expires_at', '40'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_commerce_invoices_merchant', columnNames: ['merchant_uuid', 'position'] },
          { name: 'idx_commerce_invoices_due', columnNames: ['status', 'expires_at'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'commerce_payments',
        columns: [
          { name: 'payment_uuid', type: 'varchar', length: '32', isPrimary: true },
          text('invoice_uuid', '32'),
          text('merchant_uuid', '32'),
          text('workspace_uuid', '32'),
          text('state', '24'),
          text('authorization_expires_at', '40'),
          text('position', '20'),
          { name: 'record', type: 'text' },
        ],
        indices: [
          { name: 'idx_commerce_payments_workspace', columnNames: ['workspace_uuid', 'position'] },
          { name: 'idx_commerce_payments_invoice', columnNames: ['invoice_uuid', 'position'] },
          { name: 'idx_commerce_payments_due', columnNames: ['state', 'authorization_expires_at'] },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'commerce_settled_totals',
        columns: [
          { name: 'merchant_uuid', type: 'varchar', length: '32', isPrimary: true },
          { name: 'asset', type: 'varchar', length: '16', isPrimary: true },
          { name: 'settled', type: 'varchar', length: '100' },
        ],
      }),
    );
  }
  async down(q: QueryRunner): Promise<void> {
    for (const t of ['commerce_settled_totals', 'commerce_payments', 'commerce_invoices']) await q.dropTable(t);
  }
}

export class CommerceInvoicesProjector implements Projector {
  readonly name = 'commerce-invoices';
  readonly handles = [
    'CommerceInvoiceOpened', 'CommerceInvoiceCancelled', 'CommerceInvoiceExpired', 'CommerceInvoiceStatusChanged', 'CommercePaymentCreated', 'CommercePaymentAuthorized',
    'CommercePaymentSubmitted', 'CommercePaymentSettled', 'CommercePaymentFailed', 'CommercePaymentCancelled', 'CommercePaymentExpired', 'AccountErased',
  ] as const;

  async apply(event: RecordedEvent, tx: EntityManager): Promise<void> {
    if (event.type === 'AccountErased') {
      // The cancellation detail the erased person wrote (their words); the invoice itself stays.
      const profile = String(event.data.profile_uuid);
      await scrubRecords<InvoiceRecord & Record<string, unknown>>(tx, { table: 'commerce_invoices', key: 'invoice_uuid' }, profile, (r) =>
        r.cancellation?.by_profile_uuid === profile && r.cancellation.reason_detail !== null && r.cancellation.reason_detail !== ERASED_TEXT
          ? { ...r, cancellation: { ...r.cancellation, reason_detail: ERASED_TEXT } }
          : null,
      );
      return;
    }
    const position = event.position.toString().padStart(20, '0');
    const e = { type: event.type, data: event.data } as InvoiceEvent;
    switch (e.type) {
      case 'CommerceInvoiceOpened': {
        const i = e.data.invoice;
        await insertRecord(tx, INVOICES, { ...i, status: 'OPEN', exceptions: [], amount_settled: money(0n, i.asset), version: 0, updated: i.created, cancellation: null }, { position });
        return;
      }
      case 'CommerceInvoiceCancelled': {
        const d = e.data;
        await patchRecord(tx, INVOICES, d.invoice_uuid, (r) => ({
          status: 'CANCELLED' as const, version: r.version + 1, updated: d.at, cancellation: { reason_code: d.reason_code, reason_detail: d.reason_detail, by_profile_uuid: d.by_profile_uuid, at: d.at },
        }));
        return;
      }
      case 'CommerceInvoiceExpired':
        await patchRecord(tx, INVOICES, e.data.invoice_uuid, (r) => ({ status: 'EXPIRED' as const, version: r.version + 1, updated: e.data.at }));
        return;
      case 'CommerceInvoiceStatusChanged': {
        const d = e.data;
        await patchRecord(tx, INVOICES, d.invoice_uuid, (r) => ({ status: d.to, exceptions: d.exceptions, amount_settled: d.amount_settled, version: r.version + 1, updated: d.at }));
        return;
      }
      case 'CommercePaymentCreated': {
        const p = e.data.payment;
        const record: PaymentRecord = { ...p, ...paymentProgressOf(p), funds_movement_available: false };
        await insertRecord(tx, PAYMENTS, record, { position });
        return;
      }
      default: {
        const d = e.data as PaymentChange;
        const after = await patchRecord(tx, PAYMENTS, d.payment_uuid, (r) => paymentProgressAfter(r, d));
        if (after && d.to === 'SETTLED') await this.credit(tx, after.merchant_uuid, after.asset, after.amount);
      }
    }
  }

  /** Adds a settled payment to what its merchant has been settled in its asset (exact decimal arithmetic). */
  private async credit(tx: EntityManager, merchant_uuid: string, asset: string, amount: string): Promise<void> {
    const q = (sql: string, params: unknown[]) => tx.query(portableSql(tx, sql), params);
    const rows: Array<{ settled: string }> = await q('SELECT settled FROM commerce_settled_totals WHERE merchant_uuid = ? AND asset = ?', [merchant_uuid, asset]);
    const total = (rows.length ? parseMoney(asset, rows[0].settled, 'settled', { allowZero: true }) : 0n) + parseMoney(asset, amount, 'amount');
    await q('INSERT INTO commerce_settled_totals (merchant_uuid, asset, settled) VALUES (?, ?, ?) ON CONFLICT (merchant_uuid, asset) DO UPDATE SET settled = excluded.settled', [merchant_uuid, asset, money(total, asset)]);
  }

  async reset(tx: EntityManager): Promise<void> {
    for (const t of ['commerce_settled_totals', 'commerce_payments', 'commerce_invoices']) await tx.query(`DELETE FROM ${t}`);
  }
}

export const commerceInvoicesReadModel: ReadModelDefinition = {
  name: 'commerce-invoices',
  entities: [],
  migrations: [CommerceInvoices1764000011200],
  projector: CommerceInvoicesProjector,
};
