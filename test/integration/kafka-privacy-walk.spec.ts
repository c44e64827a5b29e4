/**
 * What an analyst or auditor receives holds no secret and no clear personal data (issue 21, docs/privacy.md): a
 * person registers, activates, signs in, enrols TOTP, changes contact, runs an AI-agent wallet and writes to agentic
 * memory; then every Kafka topic (real broker), the audit export and the audit routes are read whole and searched for
 * every secret (password, tokens, the TOTP secret, recovery codes, the workload client secret, and the hashes and
 * sealed forms the log keeps of them) and every personal value (email, names, the new contact, the device, a memory
 * payload, a question, a reason). Personal values may appear only on a topic declared personal (PERSONAL_TOPICS). The
 * stored chain and the exported one verify.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { readMailbox } from '../../src/modules/identity/delivery';
import { totpCode } from '../../src/modules/identity/security/totp';
import { runAuditCli } from '../../src/cli/audit';
import { runProjectionsCli } from '../../src/cli/projections';
import { AccountClosureSweep } from '../../src/modules/identity/closure-sweep';
import { openReadModelDatabase, ReadModelDatabase } from '../../src/platform/read-model/read-model.datasource';
import { READ_MODELS } from '../../projections';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../../src/platform/event-store/event-store.port';
import { KafkaPublisherService } from '../../src/platform/kafka/kafka-publisher.service';
import { PERSONAL_TOPICS, STREAM_MODULES } from '../../src/platform/kafka/topics';
import { ProjectionRunner } from '../../src/platform/projections/projection-runner';
import { RAW_EVENT_STORE } from '../../src/platform/privacy/sealing-event-store';
import { verifyStreamChain } from '../../src/platform/commitments/commitment';
import { startTestApp, type TestApp } from '../support/app';
import { TEST_DATABASE_URL } from '../support/databases';
import { hex32 } from '../support/events';
import { DataSource } from 'typeorm';
import { DEST, intentBody, policy } from '../support/ai-wallets';
import { collectionBody, contextObject, M } from '../support/agentic-memory';
import { adminHeaders, TEST_ADMIN, until, type Headers } from '../support/traders';
import { readTopic, testBrokers, topicPrefix, type Consumed } from './kafka-support';

let brokers: string[] = [];
beforeAll(() => {
  brokers = testBrokers();
});

interface Walked {
  profile: string;
  secrets: string[];
  personal: string[];
}

describe.each(['sqlite', 'postgres'] as const)('published forms after a full walk (real broker, %s read models)', (kind) => {
  let t: TestApp;
  let prefix: string;

  let dataDir: string;
  let schema: string | undefined;
  let walked: Walked & { email: string; password: string; session: Headers; recoveryCode: string };

  beforeAll(async () => {
    prefix = topicPrefix();
    // DATA_DIR named here, so that it outlives the app: the read models are rebuilt from it after the app closes.
    dataDir = mkdtempSync(join(tmpdir(), 'privacy-walk-'));
    schema = kind === 'postgres' ? `t_${hex32().slice(0, 16)}` : undefined;
    t = await startTestApp({
      // One thread (WORKER_THREADS=0): the suite waits on this thread's publisher object (docs/operations.md 10.4).
      WORKER_THREADS: '0',
      ...(schema ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
      DATA_DIR: dataDir, KAFKA_BROKERS: brokers.join(','), KAFKA_TOPIC_PREFIX: prefix, KAFKA_OUTBOX_POLL_MS: '20', ADMIN_EMAIL: TEST_ADMIN.email, ADMIN_PASSWORD: TEST_ADMIN.password,
      ACCOUNT_CLOSURE_GRACE_SECONDS: '0',
    });
  });
  afterAll(async () => {
    await t?.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    if (schema) {
      const ds = new DataSource({ type: 'postgres', url: TEST_DATABASE_URL });
      await ds.initialize();
      await ds.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await ds.destroy();
    }
  });

  const post = async (url: string, payload: unknown, headers: Headers = {}) => t.app.inject({ method: 'POST', url, payload: payload as object, headers });

  /** A person's whole life on the platform; answers what must never be published, and what only on personal topics. */
  async function walk(): Promise<Walked & { email: string; password: string; session: Headers; recoveryCode: string }> {
    const secrets: string[] = [];
    const personal: string[] = [];
    const email = `grace.hopper.${Date.now()}@privacy.example`;
    const password = 'Privacy-Walk-Passw0rd!';
    const ua = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0' };
    secrets.push(password);
    personal.push(email, 'Gracewalker', 'Hopperwalker');

    expect((await post('/api/v1/identity/registrations', { account_type: 'personal', first_name: 'Gracewalker', last_name: 'Hopperwalker', email, password, terms: { version: '1', accepted: true } })).statusCode).toBe(201);
    const [activation] = await readMailbox(t.config.dataDir, email);
    secrets.push(activation.token);
    expect((await post('/api/v1/identity/activations', { token: activation.token })).statusCode).toBe(200);
    const session = (await post('/api/v1/auth/sessions', { email, password }, ua)).json();
    secrets.push(session.access_token);
    const me: Headers = { authorization: `Bearer ${session.access_token}`, ...ua };

    // Commerce (before the authenticator, so a password step-up will do): a merchant the admin activates, and an
    // invoice the walker cancels in their own words.
    const shop = (await post('/api/v1/workspaces', { name: 'Walker shop' }, me)).json().workspace_id;
    const merchant = (await post('/api/v1/commerce/merchants', { workspace_uuid: shop, display_name: 'Walker Teas', category_code: 'RETAIL' }, me)).json();
    const admin = await until(() => adminHeaders(t), (h) => h.authorization !== 'Bearer undefined');
    const review = (await post('/api/v1/auth/step-up', { purpose: 'MERCHANT_PROFILE_ACTIVATION', password: TEST_ADMIN.password }, admin)).json().step_up_token;
    expect((await post(`/api/v1/commerce/merchants/${merchant.merchant_uuid}/activate`, { expected_version: 0, review_reference: 'WALK-1', step_up_token: review }, admin)).statusCode).toBe(200);
    const invoice = (await post('/api/v1/commerce/invoices', { merchant_uuid: merchant.merchant_uuid, external_order_reference: 'WALK-1', asset: 'USD', line_items: [{ description: 'Tea', quantity: '1', unit_price: '3.00' }] }, me)).json();
    const cancelDetail = 'Gracewalker asked to cancel by phone';
    personal.push(cancelDetail);
    const cancelStep = (await post('/api/v1/auth/step-up', { purpose: 'COMMERCE_INVOICE_CANCELLATION', password }, me)).json().step_up_token;
    const cancelled = await post(`/api/v1/commerce/invoices/${invoice.invoice_uuid}/cancel`, { expected_invoice_version: 0, expected_status: 'OPEN', reason_code: 'CUSTOMER_REQUEST', step_up_token: cancelStep, reason_detail: cancelDetail }, me);
    expect([cancelled.statusCode, cancelled.json().cancellation.reason_detail]).toEqual([200, cancelDetail]);

    const enrollment = (await post('/api/v1/identity/authenticator/enrollments', {}, me)).json();
    secrets.push(enrollment.secret);
    const confirmed = (await post(`/api/v1/identity/authenticator/enrollments/${enrollment.enrollment_id}/confirm`, { code: totpCode(enrollment.secret, Date.now()) }, me)).json();
    expect(confirmed.recovery_codes).toHaveLength(10);
    secrets.push(...confirmed.recovery_codes);

    const newEmail = `amazing.grace.${Date.now()}@privacy.example`;
    personal.push(newEmail);
    expect((await post('/api/v1/identity/contact-changes', { current_password: password, contact_type: 'email', value: newEmail }, me)).statusCode).toBe(201);
    const [change] = (await readMailbox(t.config.dataDir, newEmail)).filter((d) => d.kind !== 'ACTIVATION');
    secrets.push(change.token);
    expect((await post('/api/v1/identity/contact-changes/confirm', { token: change.token })).statusCode).toBe(200);

    // Signed out by the contact change: sign in again (with the authenticator now).
    const again = (await post('/api/v1/auth/sessions', { email: newEmail, password, totp_code: totpCode(enrollment.secret, Date.now() + 30_000) }, ua)).json();
    secrets.push(again.access_token);
    const me2: Headers = { authorization: `Bearer ${again.access_token}`, ...ua };

    // An AI-agent wallet: its client secret and the agent's token.
    const created = await post('/api/v1/workspaces', { name: 'Privacy walk' }, me2);
    expect(created.statusCode).toBe(201);
    const workspace: string = created.json().workspace_id;
    const bound = await post('/api/v1/ai-wallets/bindings', { workspace_uuid: workspace, agent_label: 'walker', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: DEST, policy: policy() }, me2);
    expect(bound.statusCode).toBe(201);
    const binding = bound.json();
    secrets.push(binding.client_secret);
    const token = (await post('/api/v1/auth/token', { grant_type: 'client_credentials', client_id: binding.workload_client_id, client_secret: binding.client_secret })).json();
    secrets.push(token.access_token);
    expect(token).toMatchObject({ token_type: 'Bearer' });
    expect((await post(`/api/v1/ai-wallets/bindings/${binding.binding_uuid}/intents`, intentBody('0.2'), { authorization: `Bearer ${token.access_token}`, 'idempotency-key': 'walk-1' })).statusCode).toBe(201);
    const reason = 'Suspended while Gracewalker is travelling';
    personal.push(reason);
    expect((await t.app.inject({ method: 'PATCH', url: `/api/v1/ai-wallets/bindings/${binding.binding_uuid}`, payload: { state: 'SUSPENDED', state_reason: reason }, headers: me2 })).statusCode).toBe(200);

    // Agentic memory: private provenance and a question.
    const collection = (await post(`${M}/collections`, collectionBody(workspace), me2)).json().response;
    const payloadText = 'Gracewalker phoned from +44 20 7946 0000';
    personal.push(payloadText, 'crm:contact/grace-walker');
    expect((await post(`${M}/collections/${collection.collection_uuid}/items`, { ...contextObject(), source_id: 'crm:contact/grace-walker', payload: { note: payloadText } }, me2)).statusCode).toBe(201);
    const question = 'Does Gracewalker still own the EU rail?';
    personal.push(question);
    expect((await post(`${M}/collections/${collection.collection_uuid}/requests`, { request_type: 'QUERY', question }, me2)).statusCode).toBe(202);

    // What the log keeps of the secrets (read open, as the modules see it): none of it may be published either.
    const open = await everything(t.app.get<EventStore>(EVENT_STORE));
    const of = (type: string) => open.filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);
    const registered = of('AccountRegistered').find((d) => d.email === email)!;
    const profile = String(registered.profile_uuid);
    secrets.push(String(registered.password_hash));
    for (const type of ['ActivationIssued', 'ContactChangeRequested', 'SessionStarted', 'WorkloadTokenIssued']) for (const d of of(type)) secrets.push(String(d.token_hash));
    for (const d of of('AuthenticatorEnrollmentStarted')) secrets.push(String(d.secret_sealed));
    for (const d of of('AuthenticatorEnrolled')) secrets.push(...(d.recovery_code_hashes as string[]));
    for (const d of of('AiWalletBindingCreated')) secrets.push(String(d.client_secret_hash));
    const device = of('SessionStarted').filter((d) => d.profile_uuid === profile).map((d) => (d.device as { name: string }).name)[0];
    expect(device).toMatch(/Firefox/);
    personal.push(device);
    return { profile, email: newEmail, password, session: me2, recoveryCode: confirmed.recovery_codes[0], secrets: [...new Set(secrets)].filter((s) => s.length >= 16), personal: [...new Set(personal)] };
  }

  async function everything(store: EventStore): Promise<RecordedEvent[]> {
    const all: RecordedEvent[] = [];
    for (let page: RecordedEvent[]; (page = await store.readAll({ after: all.at(-1)?.position, maxCount: 1000 })).length > 0; ) all.push(...page);
    return all;
  }

  /** Every message of every topic the platform publishes (events, projections, checkpoints). */
  async function allTopics(): Promise<Consumed[]> {
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expect(await t.app.get(KafkaPublisherService).events!.waitFor(head, 20_000)).toBe(true);
    expect(await t.app.get(ProjectionRunner).waitFor(head, undefined, 10_000)).toBe(true);
    await until(() => t.app.get(KafkaPublisherService).relay!.pending(), (n) => n === 0, 15_000);
    const topics = [...new Set(STREAM_MODULES.map(([, m]) => `${prefix}.events.${m}`)), `${prefix}.projections.trading-orders`, `${prefix}.projections.ai-wallet-budgets`, `${prefix}.projections.notification-inbox`, `${prefix}.audit.checkpoints`];
    return (await Promise.all(topics.map((topic) => readTopic(brokers, topic)))).flat();
  }

  const text = (m: Consumed): string => `${m.key ?? ''}\n${m.value ?? ''}\n${JSON.stringify(m.headers)}`;
  const found = (haystack: string, needles: string[]): string[] => needles.filter((n) => haystack.includes(n));

  it('publishes no secret anywhere, and personal data only on topics declared personal; the published chain verifies', async () => {
    walked = await walk();
    expect(walked.secrets.length).toBeGreaterThanOrEqual(25);

    const messages = await allTopics();
    expect(messages.length).toBeGreaterThan(40);
    const personalTopic = (topic: string) => Object.keys(PERSONAL_TOPICS).some((suffix) => topic === `${prefix}.${suffix}`);
    expect(found(messages.map(text).join('\n'), walked.secrets)).toEqual([]);
    expect(found(messages.filter((m) => !personalTopic(m.topic)).map(text).join('\n'), walked.personal)).toEqual([]);
    // The sealed values of the log never leave it: a published event carries only their digests.
    const events = messages.filter((m) => m.topic.includes('.events.'));
    expect(events.some((m) => (m.value ?? '').includes('"$sealed_digest"'))).toBe(true);
    expect(events.some((m) => (m.value ?? '').includes('"$sealed"'))).toBe(false);

    // The audit export: same search, and it verifies offline.
    const dir = mkdtempSync(join(tmpdir(), 'privacy-export-'));
    try {
      const file = join(dir, 'all.ndjson');
      const io = { out: () => undefined, err: () => undefined, stdout: new PassThrough(), progress: false } as never;
      expect(await runAuditCli(['export', '--all', '--out', file], t.config, io)).toBe(0);
      const exported = readFileSync(file, 'utf8');
      expect(exported).toContain(walked.profile);
      expect(found(exported, walked.secrets)).toEqual([]);
      expect(found(exported, walked.personal)).toEqual([]);
      expect(exported).not.toContain('"$sealed"');
      expect(await runAuditCli(['verify', '--from-file', file], t.config, io)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The audit routes, as an auditor reads the account's stream.
    const admin = await adminHeaders(t);
    const page = await t.app.inject({ method: 'GET', url: `/api/v1/audit/streams/identity-account-${walked.profile}/events?limit=1000`, headers: admin });
    expect(page.statusCode).toBe(200);
    expect(page.json().chain).toEqual({ verified: true, first_break: null });
    expect(found(page.body, [...walked.secrets, ...walked.personal])).toEqual([]);

    // The log as stored: personal and secret values sealed, every stream's chain intact.
    const stored = await everything(t.app.get<EventStore>(RAW_EVENT_STORE));
    expect(found(stored.map((e) => `${e.stream} ${JSON.stringify(e.data)}`).join('\n'), [...walked.secrets, ...walked.personal])).toEqual([]);
    const byStream = new Map<string, RecordedEvent[]>();
    for (const e of stored) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e]);
    for (const chain of byStream.values()) expect(verifyStreamChain(chain)).toBeNull();
  }, 120_000);

  /** Every row of every read-model table, as text. */
  async function readModelText(db: ReadModelDatabase): Promise<string> {
    const tables: Array<{ name: string }> = schema
      ? await db.reader.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1', [schema])
      : await db.reader.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    expect(tables.length).toBeGreaterThan(15);
    const parts: string[] = [];
    for (const { name } of tables) parts.push(`${name}: ${JSON.stringify(await db.reader.query(`SELECT * FROM ${schema ? `"${schema}".` : ''}"${name}"`))}`);
    return parts.join('\n');
  }

  it('erases the closed account: its key and personal data gone from log, read models, export and topics; chains verify; read models rebuild', async () => {
    expect(walked).toBeDefined();
    const admin = await adminHeaders(t);
    // The person gives up the authenticator with a recovery code (every session signed out), and signs in again.
    expect((await post('/api/v1/identity/authenticator/disable', { recovery_code: walked.recoveryCode }, walked.session)).statusCode).toBe(200);
    const signedIn = await post('/api/v1/auth/sessions', { email: walked.email, password: walked.password });
    expect(signedIn.statusCode).toBe(201);
    const me: Headers = { authorization: `Bearer ${signedIn.json().access_token}` };
    const stepUp = async (headers: Headers, purpose: string, password: string, totp?: string) =>
      (await post('/api/v1/auth/step-up', { purpose, password, ...(totp ? { totp_code: totp } : {}) }, headers)).json().step_up_token as string;
    const erasure = (token: string, headers: Headers = admin) => post(`/api/v1/identity/admin/accounts/${walked.profile}/erasure`, { step_up_token: token }, headers);

    // Only a closed account, only by a platform admin.
    const early = await erasure(await stepUp(admin, 'ACCOUNT_ERASURE', TEST_ADMIN.password));
    expect(early.statusCode).toBe(422);
    expect(early.json().error.code).toBe('RULE_VIOLATION');
    expect((await erasure('hcsu_not-a-real-token', me)).statusCode).toBe(403);

    // The person closes the account (grace 0 here), the closure sweep completes it.
    const closing = await post('/api/v1/identity/closure', { current_password: walked.password, step_up_token: await stepUp(me, 'ACCOUNT_CLOSURE', walked.password) }, me);
    expect(closing.statusCode).toBe(202);
    const runner = t.app.get(ProjectionRunner);
    expect(await runner.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition(), undefined, 10_000)).toBe(true);
    expect(await t.app.get(AccountClosureSweep).completeDueClosures(new Date(Date.now() + 1000))).toBeGreaterThanOrEqual(1);

    // Before: the read models hold the person (their email, their device, their words), which the erasure must scrub.
    expect(await runner.waitFor(await t.app.get<EventStore>(EVENT_STORE).headPosition(), undefined, 10_000)).toBe(true);
    const before = found(await readModelText(t.app.get(ReadModelDatabase)), walked.personal);
    expect(before).toEqual(expect.arrayContaining([walked.email, 'Suspended while Gracewalker is travelling', 'Does Gracewalker still own the EU rail?']));

    const done = await erasure(await stepUp(admin, 'ACCOUNT_ERASURE', TEST_ADMIN.password));
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ profile_uuid: walked.profile, status: 'ERASED', reason_code: 'DATA_SUBJECT_REQUEST', keys_destroyed: 1 });
    expect((await erasure(await stepUp(admin, 'ACCOUNT_ERASURE', TEST_ADMIN.password))).statusCode).toBe(409);

    // The log: the erasure recorded (who, why); the person's sealed values no longer open, anywhere.
    const open = await everything(t.app.get<EventStore>(EVENT_STORE));
    const erasedEvent = open.find((e) => e.type === 'AccountErased');
    expect(erasedEvent).toMatchObject({ stream: `identity-account-${walked.profile}`, data: { profile_uuid: walked.profile, erased_by_profile_uuid: expect.stringMatching(/^[0-9a-f]{32}$/) } });
    expect(open.find((e) => e.type === 'AccountRegistered' && e.data.profile_uuid === walked.profile)?.data).toMatchObject({ email: '[erased]', first_name: '[erased]', password_hash: '[erased]' });
    expect(found(open.map((e) => JSON.stringify(e.data)).join('\n'), walked.personal)).toEqual([]);

    // The read models scrubbed what they held of the person.
    const head = await t.app.get<EventStore>(EVENT_STORE).headPosition();
    expect(await runner.waitFor(head, undefined, 10_000)).toBe(true);
    const db = t.app.get(ReadModelDatabase);
    expect((await readModelText(db)).split("\n").filter((l) => walked.personal.some((p) => l.includes(p))).map((l) => l.slice(0, 300))).toEqual([]);

    // The compacted notification topic: every notification of the person's ends in a tombstone.
    expect(await t.app.get(KafkaPublisherService).events!.waitFor(head, 20_000)).toBe(true);
    await until(() => t.app.get(KafkaPublisherService).relay!.pending(), (n) => n === 0, 15_000);
    const inbox = await readTopic(brokers, `${prefix}.projections.notification-inbox`);
    const newest = new Map<string, Consumed>();
    for (const m of inbox.filter((m) => m.headers.profile_uuid === walked.profile)) newest.set(m.key!, m);
    expect(newest.size).toBeGreaterThan(0);
    expect([...newest.values()].every((m) => m.value === null)).toBe(true);

    // The chain verifies, from the store and from an export, with the platform's verifier and an independent one.
    const io = { out: () => undefined, err: () => undefined, stdout: new PassThrough(), progress: false } as never;
    expect(await runAuditCli(['verify', '--all'], t.config, io)).toBe(0);
    const file = join(dataDir, 'after-erasure.ndjson');
    expect(await runAuditCli(['export', '--all', '--out', file], t.config, io)).toBe(0);
    expect(found(readFileSync(file, 'utf8'), [...walked.personal, ...walked.secrets])).toEqual([]);
    expect(await runAuditCli(['verify', '--from-file', file], t.config, io)).toBe(0);
    const independent = spawnSync('python3', [join(__dirname, '../fixtures/verify_export.py'), file], { encoding: 'utf8' });
    expect(independent.stdout).toMatch(/^verified: \d+ events in \d+ streams, 0 problems/m);
    expect(independent.status).toBe(0);

    // Every read model rebuilds from the log (erased values read as placeholders), and still holds nothing of the person.
    await t.close();
    const lines: string[] = [];
    for (const model of READ_MODELS) expect(await runProjectionsCli(['rebuild', model.name], t.config, READ_MODELS, { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), interactive: false })).toBe(0);
    const rebuilt = await openReadModelDatabase({ dataDir, readModels: READ_MODELS, ...(schema ? { databaseUrl: TEST_DATABASE_URL, schema } : {}) });
    try {
      const text = await readModelText(rebuilt);
      expect(text).toContain(walked.profile);
      expect(found(text, walked.personal)).toEqual([]);
    } finally {
      await rebuilt.close();
    }
  }, 180_000);
});
