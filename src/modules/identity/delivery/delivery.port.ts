/**
 * The delivery port: how one-time tokens (activation `hcat_…`, contact change `hcct_…`, tenant invitation `hcti_…`) reach a person outside the
 * API. A token is never part of an API response; it leaves the platform only through a DeliveryPort.
 *
 * Adapters (PLATFORM.md section 2, "Deliveries"):
 * - FileMailboxDelivery: the embedded default, one JSON line per delivery in `<DATA_DIR>/mailbox/<recipient>.jsonl`.
 * - SmtpDelivery: email over SMTP (`SMTP_URL`).
 * - CompositeDelivery: routes by channel; with `SMTP_URL` set, email goes over SMTP and sms to the file mailbox.
 * Pick one with createDeliveryPort (delivery.factory.ts).
 *
 * Adapters never log a token, and their error messages never carry one.
 */

export type DeliveryChannel = 'email' | 'sms';

/** The kinds the identity module sends today; other strings are accepted (a generic message is used for them). */
export type KnownDeliveryKind = 'ACCOUNT_ACTIVATION' | 'CONTACT_CHANGE' | 'TENANT_INVITATION';

export interface Delivery {
  /** An email address (channel `email`) or a phone number (channel `sms`). */
  to: string;
  channel: 'email' | 'sms';
  kind: 'ACCOUNT_ACTIVATION' | 'CONTACT_CHANGE' | 'TENANT_INVITATION' | string;
  /** The one-time token in clear. It exists in clear only here and in the person's mailbox. */
  token: string;
  /** RFC 3339 UTC, e.g. the `occurred_at` of the event that issued the token. */
  created: string;
  /** The tenant the token is for (a tenant invitation: the registration names it with the token). */
  tenant_uuid?: string;
}

export interface DeliveryPort {
  /** The adapter's name, for health and start-up logs (`file-mailbox`, `smtp`, `smtp+file-mailbox`). */
  readonly name: string;
  /** Resolves once the delivery is durably handed over (written and synced, or accepted by the SMTP server). */
  deliver(d: Delivery): Promise<void>;
}

/** Nest injection token for the DeliveryPort. */
export const DELIVERY_PORT = Symbol('DELIVERY_PORT');

/** A delivery the adapters refuse before trying: bad recipient, unknown or unsupported channel, empty token. */
export class InvalidDeliveryError extends Error {
  override readonly name = 'InvalidDeliveryError';
}

/** The transport failed (SMTP refused or unreachable). Retryable; the message never contains the token. */
export class DeliveryFailedError extends Error {
  override readonly name = 'DeliveryFailedError';
}

/** Checks the fields every adapter relies on; throws InvalidDeliveryError. */
export function assertDelivery(d: Delivery): void {
  if (!d || typeof d !== 'object') throw new InvalidDeliveryError('A delivery must be an object');
  if (typeof d.to !== 'string' || d.to.length === 0) throw new InvalidDeliveryError('A delivery needs a recipient');
  if (d.channel !== 'email' && d.channel !== 'sms') throw new InvalidDeliveryError(`Unknown delivery channel: ${String(d.channel)}`);
  if (typeof d.kind !== 'string' || d.kind.length === 0) throw new InvalidDeliveryError('A delivery needs a kind');
  if (typeof d.token !== 'string' || d.token.length === 0) throw new InvalidDeliveryError('A delivery needs a token');
  if (typeof d.created !== 'string' || d.created.length === 0) throw new InvalidDeliveryError('A delivery needs a created timestamp');
}
