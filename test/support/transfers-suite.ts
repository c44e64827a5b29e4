/**
 * Transfers over HTTP on a running app (SQLite read models: test/e2e/transfers.spec.ts; PostgreSQL:
 * test/integration/transfers-postgres.spec.ts): from request to confirmed with a travel-rule envelope sealed with a
 * real HPKE implementation (RFC 9180: X25519, HKDF-SHA256, ChaCha20-Poly1305) and opened by the recipient; governance
 * binding; compliance cancel with its step-up and evidence; the races (transfers against settlement intents for one
 * balance) and replays (an envelope made for another transfer, a governance id bound elsewhere).
 */
import { Chacha20Poly1305 } from '@hpke/chacha20poly1305';
import { CipherSuite, HkdfSha256 } from '@hpke/core';
import { DhkemX25519HkdfSha256 } from '@hpke/dhkem-x25519';
import { createHash, type webcrypto } from 'node:crypto';
import { readMailbox } from '../../src/modules/identity/delivery';
import { canonicalJson } from '../../src/platform/commitments/commitment';
import { ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { EVENT_STORE, type EventStore } from '../../src/platform/event-store/event-store.port';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { startTestApp, type TestApp } from './app';
import { hex32 } from './events';
import { adminHeaders, openTenant, registerTrader, TEST_ADMIN, until, type Headers } from './traders';

const PASSWORD = 'Trader-Password-2026';
const ADDR = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');
const suite = () => new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Chacha20Poly1305() });

/** A sample IVMS 101 payload (originator and beneficiary natural persons, their VASPs). */
const IVMS101 = {
  originator: { originatorPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Hopper', secondaryIdentifier: 'Grace', nameIdentifierType: 'LEGL' }] } } }], accountNumber: [ADDR(1)] },
  beneficiary: { beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Lovelace', secondaryIdentifier: 'Ada', nameIdentifierType: 'LEGL' }] } } }], accountNumber: [ADDR(2)] },
  originatingVASP: { originatingVASP: { legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Tea House Ltd', legalPersonNameIdentifierType: 'LEGL' }] } } } },
};

export function transfersSuite(name: string, env: () => Record<string, string>, cleanup: () => Promise<void> = async () => undefined): void {
  describe(name, () => {
    let t: TestApp;
    let owner: Headers;
    let admin: Headers;
    let db: ReadModelDatabase;
    let merchant: string;
    let wallet: string;
    let governedWallet: string;

    async function call(method: 'GET' | 'POST', url: string, headers: Headers, payload?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; json: any }> {
      const r = await t.app.inject({ method, url, headers: { ...headers, ...extra }, ...(payload === undefined ? {} : { payload: payload as object }) });
      return { status: r.statusCode, json: r.body ? r.json() : undefined };
    }
    async function stepUp(headers: Headers, purpose: string, password = PASSWORD): Promise<string> {
      const r = await call('POST', '/api/v1/auth/step-up', headers, { purpose, password });
      if (r.status !== 201) throw new Error(`step-up refused: ${r.status} ${JSON.stringify(r.json)}`);
      return r.json.step_up_token;
    }
    /** Settles `amount` USDC to the merchant through an invoice and the simulated rail. */
    async function settle(amount: string): Promise<void> {
      const invoice = (await call('POST', '/api/v1/commerce/invoices', owner, { merchant_uuid: merchant, external_order_reference: `T-${hex32().slice(0, 8)}`, asset: 'USDC', line_items: [{ description: 'Goods', quantity: '1', unit_price: amount }] })).json;
      const payment = (await call('POST', '/api/v1/commerce/payments', owner, { invoice_uuid: invoice.invoice_uuid })).json;
      for (const transition of ['authorize', 'submit', 'settle']) expect((await call('POST', `/api/v1/commerce/admin/payments/${payment.payment_uuid}/rail`, admin, { transition })).status).toBe(200);
    }
    const request = (amount: string, source = wallet) => call('POST', '/api/v1/transfers', owner, { merchant_uuid: merchant, source_wallet_uuid: source, network_id: 'ethereum-mainnet', asset: 'USDC', amount, destination: ADDR(77) });
    const admin_ = (transfer: any, route: string, body: Record<string, unknown>) => call('POST', `/api/v1/transfers/admin/${transfer.transfer_uuid}/${route}`, admin, { expected_version: transfer.version, ...body });

    /** A recipient institution: its key pair, its public key registered in the directory. */
    async function recipient(): Promise<{ key: webcrypto.CryptoKeyPair; recipient_key_id: string }> {
      const key = await suite().kem.generateKeyPair();
      const raw = Buffer.from(await suite().kem.serializePublicKey(key.publicKey)).toString('base64url');
      const r = await call('POST', '/api/v1/travel-rule/recipient-keys', admin, { institution_name: 'Beneficiary Bank AG', institution_lei: '529900T8BM49AURSDO55', public_key: raw });
      expect([r.status, r.json.status, r.json.public_key]).toEqual([201, 'ACTIVE', raw]);
      return { key, recipient_key_id: r.json.recipient_key_id };
    }

    /** The originator's side: seal the IVMS 101 payload for the recipient, bound to the transfer; the API's request body. */
    async function seal(transfer: any, recipient_key_id: string, publicKey: webcrypto.CryptoKey): Promise<{ body: Record<string, string>; enc: ArrayBuffer; ciphertext: ArrayBuffer; aad: Uint8Array }> {
      const aad = new TextEncoder().encode(canonicalJson({ transfer_uuid: transfer.transfer_uuid, amount: transfer.amount, asset: transfer.asset, destination: transfer.destination }));
      const plaintext = new TextEncoder().encode(canonicalJson(IVMS101 as never));
      const { ct: ciphertext, enc } = await suite().seal({ recipientPublicKey: publicKey }, plaintext, aad);
      const manifest = {
        manifest_uuid: hex32(), ciphertext_sha256: sha256(new Uint8Array(ciphertext)), payload_commitment: sha256(plaintext), recipient_key_id, associated_data_commitment: sha256(aad),
        encryption_algorithm: 'HPKE-BASE-X25519-HKDF-SHA256-CHACHA20POLY1305', payload_schema: 'IVMS101.2023',
      };
      const { encryption_algorithm: _a, payload_schema: _s, ...required } = manifest;
      return { body: { ...required, manifest_commitment: sha256(canonicalJson(manifest)) }, enc, ciphertext, aad };
    }

    beforeAll(async () => {
      t = await startTestApp({ ...env(), ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password, TRANSFER_TRAVEL_RULE_THRESHOLDS: 'USDC=1000' });
      db = t.app.get(ReadModelDatabase);
      owner = await registerTrader(t);
      const w = (await call('POST', '/api/v1/workspaces', owner, { name: 'Treasury' })).json.workspace_id;
      await call('POST', '/api/v1/workspaces/active', owner, { workspace_id: w });
      admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
      merchant = (await call('POST', '/api/v1/commerce/merchants', owner, { display_name: 'Tea House', category_code: 'RETAIL' })).json.merchant_uuid;
      const token = await stepUp(admin, 'MERCHANT_PROFILE_ACTIVATION', TEST_ADMIN.password);
      expect((await call('POST', `/api/v1/commerce/merchants/${merchant}/activate`, admin, { expected_version: 0, review_reference: 'REV', step_up_token: token })).status).toBe(200);
      wallet = (await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'OPERATIONAL', network_id: 'ethereum-mainnet', label: 'Hot', address: ADDR(5) })).json.wallet_uuid;
      const governed = await call('POST', '/api/v1/commerce/wallets', owner, { wallet_type: 'OPERATIONAL', network_id: 'ethereum-mainnet', label: 'Vault', address: ADDR(6), governance_required: true });
      expect(governed.json.governance_required).toBe(true);
      governedWallet = governed.json.wallet_uuid;
      await settle('10000');
    });
    afterAll(async () => {
      await t?.close();
      await cleanup();
    });

    it('from request to CONFIRMED with a real HPKE envelope the recipient opens, and a governance binding', async () => {
      const { key, recipient_key_id } = await recipient();
      const created = await request('1500', governedWallet);
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ state: 'SCREENING', version: 1, amount: '1500.000000', envelope_required: true, travel_rule_threshold: '1000', governance_required: true, funds_movement_available: false });
      let transfer = (await admin_(created.json, 'screening', { result: 'CLEAR', screening_reference: 'scr-1' })).json;
      expect([transfer.state, transfer.version]).toEqual(['AWAITING_ENVELOPE', 2]);
      expect(transfer.actions.map((a: any) => a.action)).toEqual(['authorize-envelope', 'compliance-cancel']);
      const envelopeUrl = `/api/v1/transfers/${transfer.transfer_uuid}/envelope`;
      const sealed = await seal(transfer, recipient_key_id, key.publicKey);
      // The seeds' shape is closed; the version goes in If-Match.
      expect((await call('POST', envelopeUrl, owner, sealed.body)).json.error.details[0].field).toBe('If-Match');
      expect((await call('POST', envelopeUrl, owner, { ...sealed.body, note: 'x' }, { 'if-match': '2' })).json.error.details[0].field).toBe('note');
      expect((await call('POST', envelopeUrl, owner, { ...sealed.body, manifest_commitment: 'a'.repeat(64) }, { 'if-match': '2' })).json.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'manifest_commitment' }] });
      expect((await call('POST', envelopeUrl, owner, sealed.body, { 'if-match': '1' })).json.error).toMatchObject({ code: 'VERSION_CONFLICT', current_version: 2 });
      const ok = await call('POST', envelopeUrl, owner, sealed.body, { 'if-match': '"2"' });
      expect([ok.status, ok.json.state, ok.json.envelope.manifest_commitment]).toEqual([200, 'AWAITING_GOVERNANCE', sealed.body.manifest_commitment]);
      // Once per version: the same envelope again is refused.
      expect((await call('POST', envelopeUrl, owner, sealed.body, { 'if-match': '3' })).json.error.code).toBe('STATE_CONFLICT');
      // The recipient opens it with its private key and the transfer's associated data, and checks the commitments.
      const opened = new Uint8Array(await suite().open({ recipientKey: key, enc: sealed.enc }, sealed.ciphertext, sealed.aad));
      expect(JSON.parse(new TextDecoder().decode(opened))).toEqual(IVMS101);
      expect(sha256(opened)).toBe(ok.json.envelope.payload_commitment);
      expect(sha256(sealed.aad)).toBe(ok.json.envelope.associated_data_commitment);
      // A tampered ciphertext, or the associated data of another transfer, does not open.
      const tampered = new Uint8Array(sealed.ciphertext.slice(0));
      tampered[0] ^= 1;
      await expect(suite().open({ recipientKey: key, enc: sealed.enc }, tampered, sealed.aad)).rejects.toThrow();
      const otherAad = new TextEncoder().encode(canonicalJson({ transfer_uuid: hex32(), amount: transfer.amount, asset: transfer.asset, destination: transfer.destination }));
      await expect(suite().open({ recipientKey: key, enc: sealed.enc }, sealed.ciphertext, otherAad)).rejects.toThrow();

      transfer = ok.json;
      const govUrl = `/api/v1/transfers/${transfer.transfer_uuid}/governance`;
      const bound = await call('POST', govUrl, owner, { proposalId: 'gov-prop-17', mpcRequestId: 'mpc-req-17' }, { 'if-match': '3' });
      expect([bound.status, bound.json.governance]).toEqual([200, { proposal_id: 'gov-prop-17', mpc_request_id: 'mpc-req-17', proposal_approved: false, mpc_request_approved: false }]);
      transfer = (await admin_(bound.json, 'governance', { kind: 'PROPOSAL', outcome: 'APPROVED' })).json;
      transfer = (await admin_(transfer, 'governance', { kind: 'MPC_REQUEST', outcome: 'APPROVED' })).json;
      expect([transfer.state, transfer.version]).toEqual(['READY', 6]);
      transfer = (await admin_(transfer, 'rail', { transition: 'submit', transaction_reference: '0xabc' })).json;
      transfer = (await admin_(transfer, 'rail', { transition: 'confirm' })).json;
      expect([transfer.state, transfer.transaction_reference, transfer.actions]).toEqual(['CONFIRMED', '0xabc', []]);
      const inbox = (await call('GET', '/api/v1/notifications', owner)).json.items;
      expect(inbox.find((n: any) => n.reference === transfer.transfer_uuid)).toMatchObject({ type: 'COMMERCE_TRANSFER_CONFIRMED', href: `/api/v1/transfers/${transfer.transfer_uuid}` });
      const row = (await db.reader.query(db.sql('SELECT state, record FROM commerce_transfers WHERE transfer_uuid = ?'), [transfer.transfer_uuid]))[0];
      expect([row.state, JSON.parse(row.record).governance.mpc_request_approved]).toEqual(['CONFIRMED', true]);
    });

    it('replays: an envelope sealed for another transfer is 422; a key not ACTIVE is 422; a governance id bound elsewhere is 409', async () => {
      const { key, recipient_key_id } = await recipient();
      const a = (await admin_((await request('1200', governedWallet)).json, 'screening', { result: 'CLEAR' })).json;
      const b = (await admin_((await request('1300', governedWallet)).json, 'screening', { result: 'CLEAR' })).json;
      const forA = await seal(a, recipient_key_id, key.publicKey);
      const replay = await call('POST', `/api/v1/transfers/${b.transfer_uuid}/envelope`, owner, forA.body, { 'if-match': String(b.version) });
      expect(replay.json.error).toMatchObject({ code: 'RULE_VIOLATION', details: [{ field: 'associated_data_commitment' }] });
      const retired = await call('POST', `/api/v1/travel-rule/recipient-keys/${recipient_key_id}/rotate`, admin, { expected_version: 0, public_key: Buffer.alloc(32, 9).toString('base64url') });
      expect([retired.status, retired.json.replaces]).toEqual([201, recipient_key_id]);
      expect((await call('GET', `/api/v1/travel-rule/recipient-keys/${recipient_key_id}`, owner)).json).toMatchObject({ status: 'RETIRED', successor_key_id: retired.json.recipient_key_id });
      const stale = await call('POST', `/api/v1/transfers/${a.transfer_uuid}/envelope`, owner, forA.body, { 'if-match': String(a.version) });
      expect(stale.json.error).toMatchObject({ code: 'RULE_VIOLATION', details: [{ field: 'recipient_key_id', issue: 'key is RETIRED' }] });
      // Governance: an id binds one transfer.
      const other = await recipient();
      const a2 = (await call('POST', `/api/v1/transfers/${a.transfer_uuid}/envelope`, owner, (await seal(a, other.recipient_key_id, other.key.publicKey)).body, { 'if-match': String(a.version) })).json;
      const b2 = (await call('POST', `/api/v1/transfers/${b.transfer_uuid}/envelope`, owner, (await seal(b, other.recipient_key_id, other.key.publicKey)).body, { 'if-match': String(b.version) })).json;
      expect((await call('POST', `/api/v1/transfers/${a2.transfer_uuid}/governance`, owner, { proposalId: 'gov-1', mpcRequestId: 'mpc-1' }, { 'if-match': String(a2.version) })).status).toBe(200);
      const taken = await call('POST', `/api/v1/transfers/${b2.transfer_uuid}/governance`, owner, { proposalId: 'gov-1', mpcRequestId: 'mpc-2' }, { 'if-match': String(b2.version) });
      expect([taken.status, taken.json.error.details[0].field]).toEqual([409, 'proposalId']);
      expect((await call('POST', `/api/v1/transfers/${b2.transfer_uuid}/governance`, owner, { proposalId: 'gov-2', mpcRequestId: 'mpc-1' }, { 'if-match': String(b2.version) })).json.error.details[0].field).toBe('mpcRequestId');
      expect((await call('POST', `/api/v1/transfers/${b2.transfer_uuid}/governance`, owner, { proposalId: 'gov-3', mpcRequestId: 'mpc-3' }, { 'if-match': String(b2.version) })).status).toBe(200);
    });

    it('compliance cancel: the tenant\'s officers with a step-up; others 403, another tenant 404; evidence sealed, its commitment shown, the owner told the reason only', async () => {
      const held = (await admin_((await request('50')).json, 'screening', { result: 'FLAGGED', screening_reference: 'sanctions-hit' })).json;
      expect([held.state, held.actions.map((a: any) => a.action)]).toEqual(['HELD', ['compliance-cancel', 'report-screening']]);
      const url = `/api/v1/transfers/${held.transfer_uuid}/compliance-cancel`;
      const evidence = { list: 'OFAC SDN', match: { name: 'Grace Hopperwalker', score: 0.97 } };
      // The owner is of the workspace: 403. A stranger in another tenant: 404.
      expect((await call('POST', url, owner, { evidence, reason_code: 'SANCTIONS_MATCH' }, { 'if-match': String(held.version), 'x-step-up-token': await stepUp(owner, 'TRANSFER_COMPLIANCE_CANCELLATION') })).status).toBe(403);
      const outsider = await registerTrader(t);
      const tenant = (await call('POST', '/api/v1/tenants', outsider, { name: 'Elsewhere' })).json.tenant_uuid;
      await openTenant(t, outsider, tenant);
      const email = `far-${hex32().slice(0, 8)}@example.com`;
      await call('POST', '/api/v1/identity/registrations', {}, { account_type: 'personal', first_name: 'F', last_name: 'A', email, password: PASSWORD, terms: { version: '1', accepted: true }, tenant_uuid: tenant });
      const [d] = await readMailbox(t.config.dataDir, email);
      await call('POST', '/api/v1/identity/activations', {}, { token: d.token });
      const far = { authorization: `Bearer ${(await call('POST', '/api/v1/auth/sessions', {}, { email, password: PASSWORD })).json.access_token}` };
      // Without a compliance role anywhere: 403 from the guard, before the request is validated (docs/api.md).
      expect((await call('POST', url, far, { reason_code: 'OTHER' }, { 'if-match': String(held.version) })).status).toBe(403);
      expect((await call('POST', url, far, { reason_code: 7 })).status).toBe(403);
      // An officer of another tenant: the transfer does not exist for them (404), as for anyone outside it.
      const farProfile = (await call('GET', '/api/v1/identity/contact', far)).json.profile_uuid;
      expect((await call('POST', `/api/v1/tenants/${tenant}/authorities`, outsider, { profile_uuid: farProfile, role_code: 'TENANT_ADMIN', reason: 'Compliance desk' })).status).toBe(201);
      expect((await call('POST', url, far, { reason_code: 'OTHER' }, { 'if-match': String(held.version) })).status).toBe(404);
      expect((await call('GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${'0'.repeat(32)}`, far)).status).toBe(404);
      expect((await call('GET', `/api/v1/transfers/${held.transfer_uuid}`, far)).status).toBe(404);
      // The platform admin: no step-up is 403 STEP_UP_REQUIRED; too much evidence 400; a stale version 409; each leaves the token.
      const token = await stepUp(admin, 'TRANSFER_COMPLIANCE_CANCELLATION', TEST_ADMIN.password);
      expect((await call('POST', url, admin, { evidence, reason_code: 'SANCTIONS_MATCH' }, { 'if-match': String(held.version) })).json.error.code).toBe('STEP_UP_REQUIRED');
      expect((await call('POST', url, admin, { evidence: { blob: 'x'.repeat(20_000) } }, { 'if-match': String(held.version), 'x-step-up-token': token })).json.error.details[0].field).toBe('evidence');
      expect((await call('POST', url, admin, { evidence, reason_code: 'BECAUSE' }, { 'if-match': String(held.version), 'x-step-up-token': token })).status).toBe(400);
      expect((await call('POST', url, admin, { evidence }, { 'if-match': '0', 'x-step-up-token': token })).json.error.code).toBe('VERSION_CONFLICT');
      const done = await call('POST', url, admin, { evidence, reason_code: 'SANCTIONS_MATCH' }, { 'if-match': String(held.version), 'x-step-up-token': token });
      expect(done.status).toBe(200);
      expect(done.json).toMatchObject({ state: 'CANCELLED', cancellation: { reason_code: 'SANCTIONS_MATCH', evidence_commitment: sha256(canonicalJson(evidence as never)) } });
      expect(JSON.stringify(done.json)).not.toContain('Hopperwalker');
      const told = (await call('GET', '/api/v1/notifications', owner)).json.items.find((n: any) => n.reference === held.transfer_uuid);
      expect(told).toMatchObject({ type: 'COMMERCE_TRANSFER_CANCELLED_BY_COMPLIANCE' });
      expect(told.message).toContain('sanctions match');
      expect(told.message).not.toContain('Hopperwalker');
      expect(JSON.stringify(await db.reader.query('SELECT record FROM commerce_transfers'))).not.toContain('Hopperwalker');
      // The log keeps the evidence sealed (personal): open through the module's store, never in the stored form.
      const logText = async (store: EventStore) => JSON.stringify((await store.readAll({ maxCount: 100_000 })).filter((e) => e.type === 'CommerceTransferCancelled').map((e) => e.data));
      expect(await logText(t.app.get<EventStore>(EVENT_STORE))).toContain('Hopperwalker');
      expect(await logText(t.app.get<EventStore>(RAW_EVENT_STORE))).not.toContain('Hopperwalker');
      // The compliance queue shows the tenant's held transfers to its officers only.
      expect((await call('GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${'0'.repeat(32)}&status=CANCELLED`, admin)).json.items.map((x: any) => x.transfer_uuid)).toContain(held.transfer_uuid);
      expect((await call('GET', `/api/v1/transfers/compliance-queue?tenant_uuid=${'0'.repeat(32)}`, owner)).status).toBe(403);
    });

    it('transfers and settlement intents race for one balance: exactly what fits is reserved', async () => {
      // What is free now (the earlier tests hold or spent some): fill it with 10-unit requests of both kinds at once.
      const free = async () => {
        const probe = await call('POST', '/api/v1/commerce/settlement-intents', owner, { merchant_uuid: merchant, network_id: 'ethereum-mainnet', asset: 'USDC', amount: '999999', destination: ADDR(8) });
        return Number(/available ([\d.]+)/.exec(probe.json.error.details[0].issue)![1]);
      };
      const before = await free();
      const fits = Math.floor(before / 100);
      expect(fits).toBeGreaterThan(4);
      const requests = Array.from({ length: fits + 10 }, (_, i) =>
        i % 2 === 0
          ? request('100')
          : call('POST', '/api/v1/commerce/settlement-intents', owner, { merchant_uuid: merchant, network_id: 'ethereum-mainnet', asset: 'USDC', amount: '100', destination: ADDR(8) }),
      );
      const results = await Promise.all(requests);
      // Accepted: 201, or 202 when the read models had not caught up within the read-your-writes wait (a loaded run).
      expect(results.filter((r) => r.status === 201 || r.status === 202)).toHaveLength(fits);
      expect(results.filter((r) => r.status === 422)).toHaveLength(10);
      expect(await free()).toBe(before - fits * 100);
    });
  });
}
