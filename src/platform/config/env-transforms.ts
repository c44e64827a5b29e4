/** How the environment's text becomes typed values (platform-config.ts), and the checks class-validator lacks. */
import { ValidateBy } from 'class-validator';
import { isIP } from 'node:net';

export const toInt = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
export const toBool = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);
export const toIntSigned = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);
/** "10.0.0.1, 10.1.0.0/16, ::1" → ["10.0.0.1", "10.1.0.0/16", "::1"] (empty entries dropped). */
export const addressList = (text: string): string[] => text.split(',').map((a) => a.trim()).filter(Boolean);
/** An IP address, or a CIDR range with a prefix length that fits its family. */
const isAddressOrRange = (entry: string): boolean => {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
};
export const IsAddressList = (): PropertyDecorator =>
  ValidateBy({
    name: 'isAddressList',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && addressList(value).every(isAddressOrRange),
      defaultMessage: () => 'TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges (10.0.0.0/8, ::1)',
    },
  });
export const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** `host:port` or `[ipv6]:port`, comma-separated, spaces allowed around the commas. */
export const KAFKA_BROKER_LIST = /^\s*(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}\s*(,\s*(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):\d{1,5}\s*)*$/;
