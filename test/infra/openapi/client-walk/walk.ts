/**
 * The README's "Trying it" walk through a client generated from docs/openapi.json (openapi-generator, typescript-fetch),
 * compiled with tsc --strict: every call and every result is typed by the document alone. Run by
 * test/integration/openapi-client-walk.spec.ts, which generates ./client next to this file:
 *   node walk.js <base URL> <DATA_DIR> [<admin email> <admin password>]
 * (DATA_DIR: the server's, for the activation token in the file mailbox; the platform admin registers a price
 * provider, whose key the client then sends through the document's apiKey scheme)
 */
import { readFileSync } from 'node:fs';
import { Configuration, IdentityApi, NotificationsApi, TradingApi, type AccountNotification, type CanonicalOrderState } from './client';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`walk failed: ${what}`);
  process.stdout.write(`ok ${what}\n`);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`walk failed: ${what} did not happen in 5 s`);
}

async function main(): Promise<void> {
  const [basePath, dataDir, adminEmail, adminPassword] = process.argv.slice(2);
  const identity = new IdentityApi(new Configuration({ basePath }));
  const email = `walk-${Date.now()}@example.com`;
  const password = 'Walk-Through-Password-2026';

  const registration = await identity.registerAccount({
    accountRegistrationRequest: { accountType: 'personal', firstName: 'Wal', lastName: 'Ker', email, password, terms: { version: '1', accepted: true } },
  });
  check(registration.status === 'PENDING_ACTIVATION' && registration.activationExpiresAt.getTime() > Date.now(), `registered, ${registration.status}`);

  const delivery = readFileSync(`${dataDir}/mailbox/${email}.jsonl`, 'utf8').trim().split('\n').pop() as string;
  const activation = await identity.activateAccount({ accountActivationRequest: { token: (JSON.parse(delivery) as { token: string }).token } });
  check(activation.status === 'ACTIVE' && activation.registrationId === registration.registrationId, 'activated');

  const session = await identity.signIn({ loginRequest: { email, password } });
  check(session.tokenType === 'Bearer' && session.expiresIn > 0, `signed in, token for ${session.expiresIn} s`);
  const config = new Configuration({ basePath, accessToken: session.accessToken });
  const trading = new TradingApi(config);

  const markets = await trading.listMarkets();
  const btc = markets.response['BTC-PERP'];
  check(markets.success && btc.marketSymbol === 'BTC-PERP' && btc.tickSize > 0, `${Object.keys(markets.response).length} markets, BTC-PERP tick ${btc.tickSize}`);

  const price = (btc.tickSize * 40_000).toFixed(btc.pricePrecision);
  const placed = await trading.placeCanonicalOrder({
    canonicalOrder: { venue: 'MTF', market: 'BTC-PERP', side: 'BUY', orderType: 'LIMIT', timeInForce: 'GTC', externalReference: 'd2Fsaw==', leverage: 1, reduceOnly: false, combos: [], quantity: '0.01', limitPrice: price },
  });
  check(placed.status === 'NEW' || placed.status === 'OPEN', `placed ${placed.orderUuid} at ${price}, ${placed.status}`);

  const open: CanonicalOrderState = await until(() => trading.getCanonicalOrder({ orderUuid: placed.orderUuid }), (o) => o.status === 'OPEN', 'the order resting in the book');
  check(open.inBook && open.remaining.startsWith('0.01') && open.fills.length === 0, `read back: OPEN, remaining ${open.remaining}, version ${open.version}`);

  const cancel = await trading.cancelCanonicalOrder({ orderUuid: placed.orderUuid, cancelOrderRequest: { venue: 'MTF' } });
  check(cancel.cancelled && cancel.status === 'CANCELLED', `cancelled: ${cancel.message}`);
  const after = await until(() => trading.getCanonicalOrder({ orderUuid: placed.orderUuid }), (o) => o.status === 'CANCELLED', 'the cancel to show');
  check(after.status === 'CANCELLED' && !after.inBook, 'read back: CANCELLED');

  // A sign-in from another device is worth a notification.
  // (An override function keeps the client's own headers, Content-Type among them.)
  await identity.signIn({ loginRequest: { email, password } }, async ({ init }) => ({ headers: { ...(init.headers as Record<string, string>), 'User-Agent': 'walk-second-device/1.0' } }));
  const notifications = new NotificationsApi(config);
  const page = await until(() => notifications.listNotifications({}), (p) => p.items.length > 0, 'a notification');
  const first: AccountNotification = page.items[0];
  check(first.source === 'identity' && first.status === 'UNREAD' && page.unreadCount >= 1, `notification ${first.type}: ${first.title}`);
  const read = await notifications.markNotificationRead({ notificationUuid: first.notificationUuid });
  check(read.status === 'READ', 'notification read');

  // A price provider pushes quotes with its own key, not a session: the document's apiKey scheme (providerKey,
  // header X-Provider-Key) is what makes the generated client send it.
  if (adminEmail && adminPassword) {
    const admin = await identity.signIn({ loginRequest: { email: adminEmail, password: adminPassword } });
    const provider = await new TradingApi(new Configuration({ basePath, accessToken: admin.accessToken })).registerPriceProvider({ registerPriceProviderRequest: { name: 'Walk venue' } });
    check(provider.pushKey.length > 0, 'provider registered, its key shown once');
    const quotes = { providerUuid: provider.providerUuid, pushQuotesRequest: { quotes: [{ providerSymbol: 'BTCUSD', price: '50123.5', publishedAt: new Date() }] } };
    const pushed = await new TradingApi(new Configuration({ basePath, apiKey: (name: string) => (name === 'X-Provider-Key' ? provider.pushKey : '') })).pushPriceQuotes(quotes);
    check(pushed.accepted === 1 && pushed.refused.length === 0, 'provider quotes accepted with the provider key');
    const refused = await new TradingApi(new Configuration({ basePath })).pushPriceQuotes(quotes).then(() => 0, (e: { response?: { status: number } }) => e.response?.status ?? -1);
    check(refused === 401, 'provider quotes without the key: 401');
  }
  process.stdout.write('walk complete\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
