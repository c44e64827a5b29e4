/** The commerce expiry sweep, under a lease. */
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { CLOCK, type Clock } from '../../../platform/clock';
import { CommandExecutor } from '../../../platform/command/command-executor';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../../platform/config/platform-config';
import { LeasedSweepService } from '../../../platform/jobs/periodic-job';
import { CheckpointStore } from '../../../platform/projections/checkpoint.store';
import { NODE_IDENTITY, type LeaseOwnerIdentity } from '../../../platform/projections/node-identity';
import { ReadModelDatabase } from '../../../platform/read-model/read-model.datasource';
import { invoiceDecider, invoiceStream } from '../domain/invoice';

/**
 * Invoices still OPEN at their expires_at become EXPIRED; payments still waiting for authorization past their window
 * become EXPIRED. Run by the node holding the `commerce-expiry-sweep` lease; each expiry is decided on the stream
 * (a no-op when something else happened first), so a repeat or a late run changes nothing.
 */
@Injectable()
export class CommerceExpirySweep extends LeasedSweepService implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly db: ReadModelDatabase,
    private readonly commands: CommandExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PLATFORM_CONFIG) config: PlatformConfig,
    @Inject(NODE_IDENTITY) identity: LeaseOwnerIdentity,
    logger: Logger,
  ) {
    super(new CheckpointStore(db, identity), 'commerce-expiry-sweep', config.commerceExpirySweepMs, logger);
  }

  /** Expires what is due now; returns how many invoices and payments it expired. */
  async sweep(): Promise<number> {
    const now = this.clock().toISOString();
    const invoices: Array<{ invoice_uuid: string }> = await this.db.reader.query(
      this.db.sql("SELECT invoice_uuid FROM commerce_invoices WHERE status = 'OPEN' AND expires_at <= ? ORDER BY expires_at LIMIT 200"),
      [now],
    );
    const payments: Array<{ payment_uuid: string; invoice_uuid: string }> = await this.db.reader.query(
      this.db.sql("SELECT payment_uuid, invoice_uuid FROM commerce_payments WHERE state = 'AUTHORIZATION_REQUIRED' AND authorization_expires_at <= ? ORDER BY authorization_expires_at LIMIT 200"),
      [now],
    );
    let expired = 0;
    for (const p of payments) expired += (await this.commands.execute(invoiceStream(p.invoice_uuid), invoiceDecider, { kind: 'ExpirePayment', payment_uuid: p.payment_uuid })).events.length > 0 ? 1 : 0;
    for (const i of invoices) expired += (await this.commands.execute(invoiceStream(i.invoice_uuid), invoiceDecider, { kind: 'ExpireInvoice' })).events.length > 0 ? 1 : 0;
    return expired;
  }
}
