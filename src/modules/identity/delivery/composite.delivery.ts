/**
 * Routes a delivery by channel. With `SMTP_URL` set, createDeliveryPort builds `email → SmtpDelivery` and
 * `sms → FileMailboxDelivery`.
 *
 * Why sms falls back to the file mailbox: the platform has no SMS provider (PLATFORM.md section 2 names only SMTP
 * for production), and refusing sms would make registration or a contact change by phone fail outright once SMTP is
 * configured. The mailbox keeps those tokens on the node's disk (0600, under DATA_DIR) where an operator or a
 * forwarder can pick them up, exactly as without SMTP. An SMS adapter implementing DeliveryPort replaces it.
 */
import { assertDelivery, InvalidDeliveryError, type Delivery, type DeliveryPort } from './delivery.port';

export interface ChannelRoutes {
  email: DeliveryPort;
  sms: DeliveryPort;
}

export class CompositeDelivery implements DeliveryPort {
  readonly name: string;

  constructor(private readonly routes: ChannelRoutes) {
    this.name = `${routes.email.name}+${routes.sms.name}`;
  }

  /** The adapter a channel goes to. */
  routeOf(channel: Delivery['channel']): DeliveryPort {
    const route = channel === 'email' ? this.routes.email : channel === 'sms' ? this.routes.sms : undefined;
    if (!route) throw new InvalidDeliveryError(`Unknown delivery channel: ${String(channel)}`);
    return route;
  }

  async deliver(d: Delivery): Promise<void> {
    assertDelivery(d);
    await this.routeOf(d.channel).deliver(d);
  }

  async close(): Promise<void> {
    for (const route of new Set([this.routes.email, this.routes.sms])) {
      await (route as Partial<{ close(): Promise<void> }>).close?.();
    }
  }
}
