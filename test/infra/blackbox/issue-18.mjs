// Black-box run of issue 18 (run.sh starts the server): each item exercised over real HTTP, PASS/FAIL per item.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
const base = process.env.BASE, dataDir = process.env.DATA_DIR;
const jcs = (v) => v === null || typeof v !== 'object' ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(jcs).join(',')}]` : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${jcs(v[k])}`).join(',')}}`;
let ip = 1;
async function call(method, path, { token, body, headers = {} } = {}) {
  const r = await fetch(base + path, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  let json; try { json = JSON.parse(text); } catch { json = text; }
  return { status: r.status, json, text, headers: r.headers };
}
const mail = (email) => readFileSync(`${dataDir}/mailbox/${email}.jsonl`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const PW = 'Blackbox-Password-2026';
async function account(tag, tenant_uuid) {
  const email = `${tag}-${Math.random().toString(16).slice(2, 8)}@example.com`;
  const reg = await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'B', last_name: 'B', email, password: PW, terms: { version: '1', accepted: true }, ...(tenant_uuid ? { tenant_uuid } : {}) } });
  if (reg.status !== 201) throw new Error(`register ${reg.status} ${reg.text}`);
  await call('POST', '/api/v1/identity/activations', { body: { token: mail(email).at(-1).token } });
  const login = await call('POST', '/api/v1/auth/sessions', { body: { email, password: PW } });
  const token = login.json.access_token;
  const profile = (await call('GET', '/api/v1/identity/contact', { token })).json.profile_uuid;
  return { email, token, profile };
}
const out = (item, ok, detail) => console.log(`${ok ? 'PASS' : 'FAIL'} item ${item}: ${detail}`);
const noRid = (t) => t.replace(/"request_id":"[^"]*"/, '');

const owner = await account('owner');
const tenant = (await call('POST', '/api/v1/tenants', { token: owner.token, body: { name: 'Blackbox Org' } })).json.tenant_uuid;
// The owner opens it to registrations (a tenant takes members by invitation until its owner does).
await call('PUT', `/api/v1/tenants/${tenant}/join-policy`, { token: owner.token, body: { join_policy: 'OPEN' } });
const member = await account('member', tenant);
const outsider = await account('outsider');
// 1
const a1 = await call('POST', `/api/v1/tenants/${tenant}/authorities`, { token: owner.token, body: { profile_uuid: outsider.profile, role_code: 'TENANT_ADMIN', reason: 'blackbox check' } });
const a2 = await call('POST', `/api/v1/tenants/${tenant}/authorities`, { token: owner.token, body: { profile_uuid: 'e'.repeat(32), role_code: 'TENANT_ADMIN', reason: 'blackbox check' } });
const a3 = await call('POST', `/api/v1/tenants/${tenant}/authorities`, { token: owner.token, body: { profile_uuid: member.profile, role_code: 'TENANT_ADMIN', reason: 'blackbox check' } });
out(1, a1.status === 404 && noRid(a1.text) === noRid(a2.text) && a3.status === 201, `other tenant ${a1.status}, unknown ${a2.status}, bodies equal ${noRid(a1.text) === noRid(a2.text)}, member ${a3.status}`);
// 2
const t0 = Date.now(); const r2a = await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'X', last_name: 'Y', email: owner.email, password: PW, terms: { version: '1', accepted: true } } }); const dt1 = Date.now() - t0;
const t1 = Date.now(); const r2b = await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'X', last_name: 'Y', email: `nobody-${Date.now()}@example.com`, password: PW, tenant_uuid: 'd'.repeat(32), terms: { version: '1', accepted: true } } }); const dt2 = Date.now() - t1;
const created = []; for (let i = 0; i < 6; i++) created.push((await call('POST', '/api/v1/tenants', { token: outsider.token, body: { name: `T${i}` } })).status);
out(2, r2a.status === 201 && r2b.status === 201 && Object.keys(r2a.json).sort().join() === Object.keys(r2b.json).sort().join() && created.join() === '201,201,201,201,201,422', `taken address ${r2a.status} (${dt1} ms), unknown tenant ${r2b.status} (${dt2} ms), same fields; tenant creations ${created.join(',')}`);
// 3
const bad = await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'X', last_name: 'Y', email: 'zw@example.com', password: 'Blackbox\u200bPassword-1', terms: { version: '1', accepted: true } } });
const bad2 = await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'X', last_name: 'Y', email: 'ls@example.com', password: 'Blackbox\u2028Password-1', terms: { version: '1', accepted: true } } });
out(3, bad.status === 400 && bad.json.error.details[0].field === 'password' && bad2.status === 400, `U+200B ${bad.status} ${bad.json.error.details[0].field}; U+2028 ${bad2.status}`);
// 4 + 5
const su = await call('POST', '/api/v1/auth/step-up', { token: owner.token, body: { purpose: 'ACCOUNT_CLOSURE', password: PW } });
const invalid = await call('POST', '/api/v1/identity/closure', { token: owner.token, body: { current_password: PW, step_up_token: su.json.step_up_token, reason_code: 42 } });
const cancelNone = await call('POST', '/api/v1/identity/closure/cancel', { token: owner.token, body: { step_up_token: su.json.step_up_token } });
const closure = await call('POST', '/api/v1/identity/closure', { token: owner.token, body: { current_password: PW, step_up_token: su.json.step_up_token } });
const reuse = await call('POST', '/api/v1/identity/closure/cancel', { token: owner.token, body: { step_up_token: su.json.step_up_token } });
const events = (await call('GET', '/api/v1/auth/events', { token: owner.token })).json.items;
const stepEvent = events.find((e) => e.event_type === 'STEP_UP_ISSUED');
out(4, stepEvent?.authentication_method === 'PASSWORD' && stepEvent?.purpose === 'ACCOUNT_CLOSURE', `STEP_UP_ISSUED method ${stepEvent?.authentication_method}, purpose ${stepEvent?.purpose}`);
out(5, invalid.status === 400 && cancelNone.status === 409 && closure.status === 202 && reuse.status === 403, `400 ${invalid.status} then 409 ${cancelNone.status} kept the token, closure ${closure.status}, reuse ${reuse.status}`);
await call('POST', '/api/v1/identity/closure/cancel', { token: owner.token, body: {} });
// 6
const login = events.find((e) => e.event_type === 'LOGIN_SUCCEEDED' && e.current_session);
out(6, typeof login?.last_seen_at === 'string', `last_seen_at ${login?.last_seen_at}`);
// 7
const ws = (await call('POST', '/api/v1/workspaces', { token: outsider.token, body: { name: 'Desk' } })).json.workspace_id;
const peer = await account('peer');
const add = await call('POST', `/api/v1/workspaces/${ws}/members`, { token: outsider.token, body: { profile_uuid: peer.profile, role: 'MEMBER', expected_version: 0 } });
const stale = await call('POST', `/api/v1/workspaces/${ws}/members`, { token: outsider.token, body: { profile_uuid: owner.profile, role: 'MEMBER', expected_version: 0 } });
const lastOwner = await call('POST', `/api/v1/workspaces/${ws}/leave`, { token: outsider.token, body: { expected_version: 1 } });
const foreignAdd = await call('POST', `/api/v1/workspaces/${ws}/members`, { token: outsider.token, body: { profile_uuid: member.profile, role: 'MEMBER', expected_version: 1 } });
await new Promise((r) => setTimeout(r, 300));
const list = await call('GET', `/api/v1/workspaces/${ws}/members`, { token: peer.token });
const nonMember = await call('GET', `/api/v1/workspaces/${ws}/members`, { token: owner.token });
out(7, add.status === 201 && stale.status === 409 && stale.json.error.current_version === 1 && lastOwner.status === 422 && foreignAdd.status === 404 && list.json.items?.length === 2 && nonMember.status === 404, `add ${add.status}, stale ${stale.status} current_version ${stale.json.error?.current_version}, last owner leaves ${lastOwner.status}, other-tenant profile ${foreignAdd.status}, member sees ${list.json.items?.length} members, non-member ${nonMember.status}`);
// 8
const statuses = []; for (let i = 0; i < 7; i++) statuses.push((await call('POST', '/api/v1/auth/sessions', { body: { email: peer.email, password: 'Wrong-Password-2026' } })).status);
const locked = await call('POST', '/api/v1/auth/sessions', { body: { email: peer.email, password: PW } });
const other = await call('POST', '/api/v1/auth/sessions', { body: { email: member.email, password: PW } });
const mails = []; const target = `bomb-${Date.now()}@example.com`; for (let i = 0; i < 6; i++) mails.push((await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'X', last_name: 'Y', email: target, password: PW, terms: { version: '1', accepted: true } } })).status);
out(8, locked.status === 429 && Number(locked.headers.get('retry-after')) >= 1 && other.status === 201 && mails.at(-1) === 429, `failures ${statuses.join(',')}, account locked ${locked.status} Retry-After ${locked.headers.get('retry-after')}, another account from the same address ${other.status}, registrations to one address ${mails.join(',')}`);
// 9
const markets = (await call('GET', '/api/v1/api/v1/mtf/markets', { token: member.token })).json.response;
const btc = markets['BTC-PERP'];
out(9, btc.tick_size === 0.5 && btc.lot_size === 0.001 && btc.maximum_quantity === 1000 && btc.price_precision === 1, `BTC-PERP tick ${btc.tick_size} lot ${btc.lot_size} min ${btc.mininum_quantity} max ${btc.maximum_quantity} precision ${btc.price_precision}/${btc.quantity_precision}`);
// 10
const placed = await call('POST', '/api/v1/trading/orders', { token: member.token, body: { venue: 'MTF', market: 'BTC-PERP', side: 'BUY', order_type: 'LIMIT', time_in_force: 'GTC', external_reference: 'YmI=', leverage: 1, reduce_only: false, combos: [], quantity: '0.01', limit_price: '20000' } });
const back = await call('GET', `/api/v1/trading/orders/${placed.json.order_uuid}`, { token: member.token });
const foreign = await call('GET', `/api/v1/trading/orders/${placed.json.order_uuid}`, { token: peer.token });
out(10, back.status === 200 && back.json.version === 0 && back.json.filled !== undefined && foreign.status === 404, `owner ${back.status} status ${back.json.status} filled ${back.json.filled} version ${back.json.version}; other account ${foreign.status}`);
// 11 + 12
const binding = await call('POST', '/api/v1/ai-wallets/bindings', { token: outsider.token, body: { workspace_uuid: ws, agent_label: 'bb-agent', environment: 'SANDBOX', network_id: 'ethereum-sepolia', native_address: '0x52908400098527886E0F7030069857D2E4169EE7' } });
const b = binding.json.binding_uuid;
const ev = await call('POST', `/api/v1/ai-wallets/bindings/${b}/intents/evaluate`, { token: outsider.token, body: { type: 'TRANSFER', asset: 'ETH', amount: '0.1', destination: { type: 'ADDRESS', id: '0x52908400098527886E0F7030069857D2E4169EE7' }, purpose: 'bb' } });
const nulls = Object.entries(ev.json).filter(([, v]) => v === null).map(([k]) => k);
const pol = { capabilities: ['TRANSFER'], assets: ['ETH'], asset_budgets: [], destinations: ['0x52908400098527886E0F7030069857D2E4169EE7'], max_single_amount: '1', daily_limit: '2', monthly_limit: '10', velocity_window_seconds: 3600, velocity_max_count: 10, autonomous_threshold: '0.1', currency: 'ETH' };
await call('PUT', `/api/v1/ai-wallets/bindings/${b}/policy`, { token: outsider.token, body: pol });
await call('PUT', `/api/v1/ai-wallets/bindings/${b}/policy`, { token: outsider.token, body: { ...pol, daily_limit: '3' } });
const v1 = (await call('GET', `/api/v1/ai-wallets/bindings/${b}/policy?version=1`, { token: outsider.token })).json;
const { policy_commitment, lifecycle, ...committed } = v1;
const recomputed = createHash('sha256').update(jcs(committed)).digest('hex');
out(11, lifecycle === 'SUPERSEDED' && recomputed === policy_commitment, `v1 ${lifecycle}, recomputed ${recomputed === policy_commitment ? 'equals' : 'differs from'} policy_commitment`);
out(12, ev.status === 200 && nulls.length === 0 && ev.json.policy_uuid === '0'.repeat(32), `evaluation ${ev.status} decision ${ev.json.decision_code}, null fields [${nulls.join(',')}], policy_uuid ${ev.json.policy_uuid}`);
