// Black-box run of issue 19 (items 1-6) against the built server (dist/), started and killed here: real sockets,
// real HTTP, a fresh DATA_DIR, no test hooks. Prints PASS/FAIL per item and the fuzz and restart figures.
//   npm run build && node test/infra/blackbox/issue-19.mjs      (or: bash test/infra/blackbox/run.sh 19)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../..', import.meta.url).pathname;
const MAIN = join(ROOT, 'dist/src/main.js');
const PW = 'Blackbox-Password-2026';
const root = mkdtempSync(join(tmpdir(), 'bb19-'));
const dataDir = join(root, 'data'); // made by the server: item 5 checks its mode
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
const results = [];
const out = (item, ok, detail) => {
  results.push(ok);
  console.log(`${ok ? 'PASS' : 'FAIL'} item ${item}: ${detail}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// How long each of the three load phases runs before its kill -9 (BB_LOAD_MS=20000 grows the log past 100k events).
const LOAD_MS = Number(process.env.BB_LOAD_MS ?? 2000);

let server = null;
let serverLog = '';
const ENV = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PASSWORD_HASH_COST: '10', MAIL_SOURCE_LIMIT_PER_HOUR: '100000', LOG_LEVEL: 'warn', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '3000', NODE_ID: '' };
function start() {
  const child = spawn(process.execPath, [MAIN], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (c) => (serverLog += c));
  child.stderr.on('data', (c) => (serverLog += c));
  return child;
}
async function untilReady(timeoutMs = 60_000) {
  const t0 = Date.now();
  for (;;) {
    const s = await fetch(`${base}/health/ready`).then((r) => r.status, () => 0);
    if (s === 200) return Date.now() - t0;
    if (Date.now() - t0 > timeoutMs) throw new Error(`not ready in ${timeoutMs} ms\n${serverLog.slice(-3000)}`);
    await sleep(25);
  }
}
async function call(method, path, { token, body, headers = {} } = {}) {
  const r = await fetch(base + path, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: r.status, json, text, headers: r.headers };
}
async function account(tag) {
  const email = `${tag}-${Math.random().toString(16).slice(2, 10)}@example.com`;
  await call('POST', '/api/v1/identity/registrations', { body: { account_type: 'personal', first_name: 'B', last_name: 'B', email, password: PW, terms: { version: '1', accepted: true } } });
  const token = JSON.parse(readFileSync(join(dataDir, 'mailbox', `${email}.jsonl`), 'utf8').trim().split('\n').at(-1)).token;
  await call('POST', '/api/v1/identity/activations', { body: { token } });
  return (await call('POST', '/api/v1/auth/sessions', { body: { email, password: PW } })).json.access_token;
}
/** Bytes as they are on a raw socket; resolves with the status, headers and body once the server closes. */
function raw(text, { trickle = null, everyMs = 100, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      if (trickle) {
        let i = 0;
        const timer = setInterval(() => (i < trickle.length && !socket.destroyed ? socket.write(trickle[i++]) : clearInterval(timer)), everyMs);
        socket.on('close', () => clearInterval(timer));
      }
    });
    let data = '';
    socket.on('data', (c) => (data += c));
    socket.on('error', () => undefined);
    const killer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('close', () => {
      clearTimeout(killer);
      const [head, ...rest] = data.split('\r\n\r\n');
      const lines = head.split('\r\n');
      const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      let body = null;
      try { body = JSON.parse(rest.join('\r\n\r\n')); } catch { /* not JSON */ }
      resolve({ status: Number(lines[0].split(' ')[1]), headers, body, ms: Date.now() - t0 });
    });
  });
}
const inEnvelope = (r, status, code) => r.status === status && r.body?.success === false && r.body.error?.code === code && /^[0-9a-f]{32}$/.test(r.headers['x-request-id'] ?? '') && r.body.error.request_id === r.headers['x-request-id'];

try {
  server = start();
  await untilReady(120_000);
  const token = await account('bb');

  // 1. Every refusal in the one envelope.
  const json = (body) => `POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const edge = {
    '431 headers too large': [await raw(`GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`), 431, 'HEADERS_TOO_LARGE'],
    '501 unknown method': [await raw('FROB /health/live HTTP/1.1\r\nHost: x\r\n\r\n'), 501, 'METHOD_NOT_IMPLEMENTED'],
    '400 CL+TE': [await raw('POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'), 400, 'VALIDATION_FAILED'],
    '400 malformed JSON': [await raw(json('{"account_type":')), 400, 'VALIDATION_FAILED'],
    '413 over the limit': [await raw('POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{}'), 413, 'PAYLOAD_TOO_LARGE'],
    '415 media type': [await raw('POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
  };
  const edgeOk = Object.entries(edge).map(([name, [r, s, c]]) => [name, inEnvelope(r, s, c), r.status]);
  out(1, edgeOk.every(([, ok]) => ok), edgeOk.map(([n, ok, s]) => `${n}: ${ok ? 'envelope' : `got ${s}`}`).join('; '));

  // 2. A body that is not an object.
  const nulls = await Promise.all(['null', '[]', '"x"', '42'].map((b) => raw(json(b))));
  const cancelNull = await call('POST', '/api/v1/identity/closure/cancel', { token, body: 'null' });
  out(2, nulls.every((r) => inEnvelope(r, 400, 'VALIDATION_FAILED')) && cancelNull.status === 400, `null/[]/"x"/42 on registrations: ${nulls.map((r) => r.status).join(',')}; null on an all-optional route: ${cancelNull.status}`);

  // 3. Slow clients: a body trickled a byte a second, with normal clients asking meanwhile.
  const body = JSON.stringify({ account_type: 'personal', email: 'slow@example.com', pad: 'x'.repeat(100) });
  const trickled = raw(`POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, { trickle: body, everyMs: 1000, timeoutMs: 30_000 });
  const served = [];
  const probe = (async () => { for (let i = 0; i < 10; i++) { served.push((await call('GET', '/health/live')).status); await sleep(250); } })();
  const [slow] = await Promise.all([trickled, probe]);
  out(3, slow.status === 408 && slow.body?.error?.code === 'REQUEST_TIMEOUT' && slow.ms < 5000 && served.every((s) => s === 200), `trickled body answered ${slow.status} ${slow.body?.error?.code} and closed after ${slow.ms} ms (HTTP_REQUEST_TIMEOUT_MS=3000; was open past 95 s); ${served.length} normal requests meanwhile: ${[...new Set(served)].join(',')}`);

  // 4. Security headers.
  const signIn = await call('POST', '/api/v1/auth/sessions', { body: { email: 'nobody@example.com', password: PW } });
  const list = await call('GET', '/api/v1/api/v1/mtf/orders', { token, headers: { origin: 'https://evil.example' } });
  const docs = await fetch(`${base}/docs`);
  const h = (r) => Object.fromEntries(['cache-control', 'x-content-type-options', 'referrer-policy', 'content-security-policy', 'access-control-allow-origin', 'x-frame-options'].map((k) => [k, r.headers.get(k)]));
  const [hs, hl, hd] = [h(signIn), h(list), h(docs)];
  const strict = (x) => x['cache-control'] === 'no-store' && x['x-content-type-options'] === 'nosniff' && x['referrer-policy'] === 'no-referrer' && /frame-ancestors 'none'/.test(x['content-security-policy'] ?? '') && x['access-control-allow-origin'] === null;
  out(4, strict(hs) && strict(hl) && /script-src 'self'/.test(hd['content-security-policy'] ?? '') && /frame-ancestors 'none'/.test(hd['content-security-policy'] ?? ''), `sign-in ${JSON.stringify(hs)}; order list from another origin: CORS ${hl['access-control-allow-origin']}; docs CSP "${hd['content-security-policy']}"`);

  // 5. DATA_DIR private; a world-writable one refused.
  const modes = readdirSync(dataDir, { recursive: true }).map((f) => [f, (statSync(join(dataDir, f)).mode & 0o777).toString(8)]);
  const loose = modes.filter(([f, m]) => m !== (statSync(join(dataDir, f)).isDirectory() ? '700' : '600'));
  const open = join(root, 'open');
  mkdirSync(open);
  chmodSync(open, 0o777);
  const refused = spawnSync(process.execPath, [MAIN], { env: { ...ENV, DATA_DIR: open, PORT: '0' }, encoding: 'utf8', timeout: 30_000 });
  out(5, (statSync(dataDir).mode & 0o777) === 0o700 && loose.length === 0 && refused.status === 1 && /writable by other users/.test(refused.stderr), `DATA_DIR ${(statSync(dataDir).mode & 0o777).toString(8)}, ${modes.length} entries, not private: [${loose.map(([f, m]) => `${f} ${m}`).join(', ')}]; on a 777 DATA_DIR the server exits ${refused.status}: "${refused.stderr.trim()}"`);

  // 6. kill -9 under load, three times; every acknowledged order survives; ready and matching right after the restart.
  const [maker, taker] = [await account('maker'), await account('taker')];
  const acknowledged = [];
  const cycles = [];
  for (let cycle = 0; cycle < 3; cycle++) {
    let stop = false;
    const load = Array.from({ length: 8 }, async (_, i) => {
      while (!stop) {
        const r = await call('POST', '/api/v1/api/v1/mtf/orders', { token: i % 2 ? maker : taker, body: { market: 'ETH-PERP', external_ref: 'YmI=', direction: i % 2 ? 'SELL' : 'BUY', order_size: '0.1', limit_price: i % 2 ? '9000' : '100' } }).catch(() => null);
        if (r && (r.status === 201 || r.status === 202)) acknowledged.push([i % 2 ? maker : taker, r.json.response.order_uuid]);
      }
    });
    await sleep(LOAD_MS);
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGKILL');
    await exited;
    stop = true;
    await Promise.all(load);
    const t0 = Date.now();
    server = start();
    await untilReady();
    const readyMs = Date.now() - t0;
    const placedAt = Date.now();
    const sell = (await call('POST', '/api/v1/api/v1/mtf/orders', { token: maker, body: { market: 'ETH-PERP', external_ref: 'YmI=', direction: 'SELL', order_size: '0.1', limit_price: '2500' } })).json.response.order_uuid;
    const buy = (await call('POST', '/api/v1/api/v1/mtf/orders', { token: taker, body: { market: 'ETH-PERP', external_ref: 'YmI=', direction: 'BUY', order_size: '0.1', limit_price: '2500' } })).json.response.order_uuid;
    let matchedMs = null;
    while (Date.now() - placedAt < 10_000) {
      const a = await call('GET', `/api/v1/api/v1/mtf/order_meta?order_uuid=${sell}`, { token: maker });
      const b = await call('GET', `/api/v1/api/v1/mtf/order_meta?order_uuid=${buy}`, { token: taker });
      if (a.json?.response?.order?.status === 'FILLED' && b.json?.response?.order?.status === 'FILLED') { matchedMs = Date.now() - placedAt; break; }
      await sleep(10);
    }
    cycles.push({ readyMs, matchedMs });
  }
  let missing = 0;
  for (const [tok, id] of acknowledged) if ((await call('GET', `/api/v1/trading/orders/${id}`, { token: tok })).status !== 200) missing += 1;
  const head = (await call('GET', '/health/ready')).json.checks.event_store.detail;
  out(6, cycles.every((c) => c.matchedMs !== null && c.matchedMs < 2000) && missing === 0, `3 × kill -9 under load: ${acknowledged.length} acknowledged orders, ${missing} missing after the restarts; per restart ready after ${cycles.map((c) => c.readyMs).join(' / ')} ms, first crossing pair FILLED in order_meta after ${cycles.map((c) => c.matchedMs).join(' / ')} ms; event store ${head}`);

  // Fuzz: every operation of the OpenAPI document with hostile parameters and bodies; no 5xx, always the envelope.
  const spec = (await call('GET', '/api/v1/openapi.json')).json;
  const hostileIds = ['0', 'f'.repeat(32), 'x'.repeat(300), '%00', '..%2F..%2Fetc', '-1', '1e309'];
  const hostileValues = [null, -1, 1e309, '', 'x'.repeat(100_000), {}, [], true, '0x', 'NaN', '-0', '1'.repeat(400), '\u0000', '<script>', "' OR 1=1 --"];
  let sent = 0;
  const fails = [];
  const ops = [];
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push(`${method} ${path}`);
      const schemaRef = op.requestBody?.content?.['application/json']?.schema?.$ref;
      const props = schemaRef ? Object.keys(spec.components.schemas[schemaRef.split('/').at(-1)]?.properties ?? {}) : [];
      const bodies = method === 'get' || method === 'delete' ? [undefined] : ['null', '[]', '{}', '{"__proto__":{"x":1}}', ...props.flatMap((p) => hostileValues.map((v) => JSON.stringify({ [p]: v })))];
      for (const [n, id] of hostileIds.entries()) {
        const url = path.replace(/\{[^}]+\}/g, id);
        // Every hostile body once (with the first id); each hostile id with an empty body.
        for (const b of n === 1 || !path.includes('{') ? bodies : [bodies.length > 1 ? '{}' : undefined]) {
          for (const tok of [token, undefined]) {
            const r = await call(method.toUpperCase(), `${url}${method === 'get' ? '?limit=-1&cursor=%ZZ&order_uuid=x' : ''}`, { token: tok, body: b }).catch((e) => ({ status: 0, text: String(e), headers: new Headers() }));
            sent += 1;
            const bad = r.status >= 500 || r.status === 0 || (r.status >= 400 && !(r.json?.success === false && r.json?.error?.request_id)) || /\bat [\w.<>]+ \(|\.js:\d+|SQLITE_|syntax error at or near/.test(r.text);
            if (bad && fails.length < 10) fails.push(`${method.toUpperCase()} ${url} ${String(b).slice(0, 40)} -> ${r.status} ${r.text.slice(0, 120)}`);
            else if (bad) fails.push('…');
          }
        }
        if (!path.includes('{')) break; // one pass is enough for a path without parameters
      }
    }
  }
  out('fuzz', fails.length === 0, `${sent} requests over ${ops.length} operations: ${fails.length} with a 5xx, no envelope or internals${fails.length ? `: ${fails.slice(0, 10).join(' | ')}` : ''}`);
} catch (error) {
  out('run', false, `${error.stack}\n${serverLog.slice(-3000)}`);
} finally {
  server?.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
}
process.exit(results.every(Boolean) ? 0 : 1);
