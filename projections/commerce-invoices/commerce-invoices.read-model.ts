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
import { insertRecord, patchRecord, readRecord, type JsonRecordTable } from '../../src/platform/read-model/json-records';
import { createOutboxTable, dropOutboxTable, ProjectionOutbox, type Publication, type PublishedTable, type PublishingProjector } from '../../src/platform/outbox/outbox';
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

/** The invoices' outbox (src/platform/outbox): each change of an invoice row, as its published record, for Kafka. */
export class CommerceInvoicesOutbox1764000014100 implements MigrationInterface {
  name = 'CommerceInvoicesOutbox1764000014100';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_commerce_invoices');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_commerce_invoices');
  }
}

/** The payments' outbox: each change of a payment row, for Kafka (its own topic, commerce-payments). */
export class CommercePaymentsOutbox1764000014200 implements MigrationInterface {
  name = 'CommercePaymentsOutbox1764000014200';
  async up(q: QueryRunner): Promise<void> {
    await createOutboxTable(q, 'outbox_commerce_payments');
  }
  async down(q: QueryRunner): Promise<void> {
    await dropOutboxTable(q, 'outbox_commerce_payments');
  }
}

/**
 * An invoice as the API shows it, without `actions` (the CommerceInvoice component's members, in its order): the
 * invoice queries add the actions to this, and the topic publishes it less the cancellation's personal detail, so the
 * two cannot drift. Typed as the record: a member added to it must be added here.
 */
export function invoiceRecord(r: InvoiceRecord): InvoiceRecord {
  return {
    invoice_uuid: r.invoice_uuid, merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid, external_order_reference: r.external_order_reference,
    asset: r.asset, network_id: r.network_id, payment_address: r.payment_address, wallet_uuid: r.wallet_uuid, line_items: r.line_items, total: r.total, amount_settled: r.amount_settled,
    status: r.status, exceptions: r.exceptions, version: r.version, expires_at: r.expires_at, created_by_profile_uuid: r.created_by_profile_uuid, created: r.created, updated: r.updated,
    cancellation: r.cancellation,
  };
}

/** A payment as the API shows it, without `actions` (the CommercePayment component's members, in its order). */
export function paymentRecord(r: PaymentRecord): PaymentRecord {
  return {
    payment_uuid: r.payment_uuid, invoice_uuid: r.invoice_uuid, merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, asset: r.asset, amount: r.amount, network_id: r.network_id,
    state: r.state, version: r.version, rail_reference: r.rail_reference, failure_code: r.failure_code, reason_code: r.reason_code, authorization_expires_at: r.authorization_expires_at,
    settled_at: r.settled_at, funds_movement_available: r.funds_movement_available, created_by_profile_uuid: r.created_by_profile_uuid, created: r.created, updated: r.updated,
  };
}

/**
 * An invoice as its topic carries it: the API's record without the cancellation's `reason_detail`, the words of the
 * person who cancelled (personal: sealed in the log, erased with them; no topic may carry it in clear).
 */
export function publishedInvoice(r: InvoiceRecord): Omit<InvoiceRecord, 'cancellation'> & { cancellation: Omit<NonNullable<InvoiceRecord['cancellation']>, 'reason_detail'> | null } {
  const c = r.cancellation;
  return { ...invoiceRecord(r), cancellation: c && { reason_code: c.reason_code, by_profile_uuid: c.by_profile_uuid, at: c.at } };
}

const INVOICE_HEADERS = { merchant_uuid: 'the merchant the invoice is of', workspace_uuid: "the merchant's workspace", tenant_uuid: "the workspace's tenant" };
const PAYMENT_HEADERS = { merchant_uuid: 'the merchant the paid invoice is of', workspace_uuid: "the merchant's workspace" };
const invoiceHeaders = (r: InvoiceRecord) => ({ merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid, tenant_uuid: r.tenant_uuid });
const paymentHeaders = (r: PaymentRecord) => ({ merchant_uuid: r.merchant_uuid, workspace_uuid: r.workspace_uuid });

/** What a published row is read as (seeding, and a consumer's check against the table): the record it keeps. */
interface RecordRow {
  record: string;
}

/**
 * With Kafka on, every change of an invoice row goes to the outbox as its published record (topic commerce-invoices,
 * keyed by invoice_uuid), and every change of a payment row as the API's payment record (topic commerce-payments,
 * keyed by payment_uuid), the owner ids in the headers. An erasure changes only an invoice's reason_detail, which no
 * topic carries: it publishes nothing.
 */
export class CommerceInvoicesProjector implements Projector, PublishingProjector {
  readonly name = 'commerce-invoices';
  readonly outbox = new ProjectionOutbox('commerce-invoices', 'outbox_commerce_invoices', {
    title: 'Commerce invoice (value of platform.projections.commerce-invoices)',
    key: "the value's invoice_uuid",
    description:
      'One invoice as GET /api/v1/commerce/invoices/{invoice_uuid} shows it. status is the recorded one: an OPEN invoice whose expires_at has passed stays OPEN until the expiry sweep records it EXPIRED (the API shows the same; only its actions read the clock). amount_settled is the exact sum of its SETTLED payments; exceptions say how a PAID invoice differs from paid in full, on time. Its payments are on platform.projections.commerce-payments.',
    component: 'CommerceInvoice',
    omit: {
      actions: 'what the caller may do now: depends on who asks and on the time of reading',
      'cancellation.reason_detail': "personal: the canceller's own words, sealed in the log and erased with the person",
    },
    headers: INVOICE_HEADERS,
  });
  readonly published: PublishedTable<RecordRow> = {
    table: 'commerce_invoices',
    key: 'invoice_uuid',
    columns: 'invoice_uuid, record',
    change: (row) => {
      const r = JSON.parse(row.record) as InvoiceRecord;
      return { key: r.invoice_uuid, value: publishedInvoice(r), headers: invoiceHeaders(r) };
    },
  };
  private readonly payments: Publication = {
    outbox: new ProjectionOutbox('commerce-payments', 'outbox_commerce_payments', {
      title: 'Commerce payment (value of platform.projections.commerce-payments)',
      key: "the value's payment_uuid",
      description:
        'One payment of an invoice as GET /api/v1/commerce/payments/{payment_uuid} shows it: its amount, where it stands on the (simulated) rail, settled_at once SETTLED. state is the recorded one: a payment waiting for authorization past authorization_expires_at stays so until the expiry sweep records it EXPIRED. Its invoice is on platform.projections.commerce-invoices (invoice_uuid).',
      component: 'CommercePayment',
      omit: { actions: 'what the caller may do now: depends on who asks' },
      headers: PAYMENT_HEADERS,
    }),
    published: {
      table: 'commerce_payments',
      key: 'payment_uuid',
      columns: 'payment_uuid, record',
      change: (row: RecordRow) => {
        const r = JSON.parse(row.record) as PaymentRecord;
        return { key: r.payment_uuid, value: paymentRecord(r), headers: paymentHeaders(r) };
      },
    },
  };
  readonly morePublications: readonly Publication[] = [this.payments];
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
        await this.publishInvoice(tx, event, this.outbox.enabled ? await readRecord(tx, INVOICES, i.invoice_uuid) : null);
        return;
      }
      case 'CommerceInvoiceCancelled': {
        const d = e.data;
        const after = await patchRecord(tx, INVOICES, d.invoice_uuid, (r) => ({
          status: 'CANCELLED' as const, version: r.version + 1, updated: d.at, cancellation: { reason_code: d.reason_code, reason_detail: d.reason_detail, by_profile_uuid: d.by_profile_uuid, at: d.at },
        }));
        await this.publishInvoice(tx, event, after);
        return;
      }
      case 'CommerceInvoiceExpired':
        await this.publishInvoice(tx, event, await patchRecord(tx, INVOICES, e.data.invoice_uuid, (r) => ({ status: 'EXPIRED' as const, version: r.version + 1, updated: e.data.at })));
        return;
      case 'CommerceInvoiceStatusChanged': {
        const d = e.data;
        await this.publishInvoice(tx, event, await patchRecord(tx, INVOICES, d.invoice_uuid, (r) => ({ status: d.to, exceptions: d.exceptions, amount_settled: d.amount_settled, version: r.version + 1, updated: d.at })));
        return;
      }
      case 'CommercePaymentCreated': {
        const p = e.data.payment;
        const record: PaymentRecord = { ...p, ...paymentProgressOf(p), funds_movement_available: false };
        await insertRecord(tx, PAYMENTS, record, { position });
        await this.publishPayment(tx, event, this.payments.outbox.enabled ? await readRecord(tx, PAYMENTS, p.payment_uuid) : null);
        return;
      }
      default: {
        const d = e.data as PaymentChange;
        const after = await patchRecord(tx, PAYMENTS, d.payment_uuid, (r) => paymentProgressAfter(r, d));
        await this.publishPayment(tx, event, after);
        if (after && d.to === 'SETTLED') await this.credit(tx, after.merchant_uuid, after.asset, after.amount);
      }
    }
  }

  /** The invoice row's new state into its outbox (Kafka on; no row: nothing). */
  private async publishInvoice(tx: EntityManager, event: RecordedEvent, after: InvoiceRecord | null): Promise<void> {
    if (!after || !this.outbox.enabled) return;
    await this.outbox.put(tx, { key: after.invoice_uuid, value: publishedInvoice(after), position: event.position, event_id: event.event_id, headers: invoiceHeaders(after) });
  }

  /** The payment row's new state into the payments' outbox (Kafka on; no row: nothing). */
  private async publishPayment(tx: EntityManager, event: RecordedEvent, after: PaymentRecord | null): Promise<void> {
    if (!after || !this.payments.outbox.enabled) return;
    await this.payments.outbox.put(tx, { key: after.payment_uuid, value: paymentRecord(after), position: event.position, event_id: event.event_id, headers: paymentHeaders(after) });
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
  migrations: [CommerceInvoices1764000011200, CommerceInvoicesOutbox1764000014100, CommercePaymentsOutbox1764000014200],
  projector: CommerceInvoicesProjector,
};
