/**
 * Chooses the delivery adapter (PLATFORM.md section 2): the file mailbox under DATA_DIR when SMTP_URL is unset,
 * otherwise email over SMTP with sms still going to the file mailbox (see composite.delivery.ts).
 */
import type { Provider } from '@nestjs/common';
import { PLATFORM_CONFIG, type PlatformConfig } from '../../../platform/config/platform-config';
import { CompositeDelivery } from './composite.delivery';
import { DELIVERY_PORT, type DeliveryPort } from './delivery.port';
import { FileMailboxDelivery } from './file-mailbox.delivery';
import { SmtpDelivery } from './smtp.delivery';

export interface DeliveryPortOptions {
  dataDir: string;
  smtpUrl?: string;
  /** SMTP From address; default `no-reply@platform.local`. */
  from?: string;
}

export function createDeliveryPort({ dataDir, smtpUrl, from }: DeliveryPortOptions): DeliveryPort {
  const mailbox = new FileMailboxDelivery(dataDir);
  if (!smtpUrl || smtpUrl.trim() === '') return mailbox;
  return new CompositeDelivery({ email: new SmtpDelivery(smtpUrl.trim(), { from }), sms: mailbox });
}

/** Nest provider for DELIVERY_PORT, built from the platform configuration. */
export const deliveryPortProvider: Provider = {
  provide: DELIVERY_PORT,
  inject: [PLATFORM_CONFIG],
  useFactory: (config: PlatformConfig): DeliveryPort => createDeliveryPort({ dataDir: config.dataDir, smtpUrl: config.smtpUrl }),
};
