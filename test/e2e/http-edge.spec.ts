/**
 * The HTTP edge over a real socket (issue 19, items 1–2): what Node's parser refuses and what the body parser
 * refuses both come back in the platform's error envelope with a request id, the right status and no internals.
 */
import { connect, type Socket } from 'node:net';
import { startTestApp, type TestApp } from '../support/app';
import { registerTrader } from '../support/traders';

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are (no client library would send most of these) and reads until the server closes. */
function raw(port: number, text: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    setTimeout(() => socket.destroy(new Error(`no answer; got ${JSON.stringify(data)}`)), 5000).unref();
  });
}

describe('HTTP edge: every refusal in the one envelope', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(async () => t.close());

  const json = (path: string, body: string, extra = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

  const expectEnvelope = (r: RawReply, status: number, code: string) => {
    expect(r.status).toBe(status);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const requestId = r.headers['x-request-id'];
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    const body = JSON.parse(r.body);
    expect(body).toEqual({ success: false, error: { code, message: expect.any(String), request_id: requestId, retryable: false, details: expect.any(Array) } });
    expect(r.body).not.toMatch(/HPE_|FST_|at .*\.js|statusCode/);
    return body.error;
  };

  it.each([
    ['headers too large', `GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['an unknown method', 'FROB /health/live HTTP/1.1\r\nHost: x\r\n\r\n', 501, 'METHOD_NOT_IMPLEMENTED'],
    ['Content-Length with Transfer-Encoding', 'POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, 'VALIDATION_FAILED'],
    ['a malformed Content-Length', 'POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}', 400, 'VALIDATION_FAILED'],
  ])('refuses %s below the framework with the envelope and a request id', async (_name, request, status, code) => {
    expectEnvelope(await raw(port, request), status, code);
  });

  it.each([
    ['malformed JSON', json('/api/v1/identity/registrations', '{"account_type":'), 400, 'VALIDATION_FAILED'],
    ['a body over the limit', `POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{}`, 413, 'PAYLOAD_TOO_LARGE'],
    ['an unsupported media type', `POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi`, 415, 'UNSUPPORTED_MEDIA_TYPE'],
  ])('refuses %s with the envelope and a request id', async (_name, request, status, code) => {
    expectEnvelope(await raw(port, request), status, code);
  });

  it.each([['null'], ['[]'], ['"text"'], ['42'], ['true']])('refuses the JSON body %s: a body must be an object', async (body) => {
    const error = expectEnvelope(await raw(port, json('/api/v1/identity/registrations', body)), 400, 'VALIDATION_FAILED');
    expect(error.details).toEqual([{ field: 'body', issue: expect.stringContaining('must be a JSON object') }]);
  });

  it('refuses null on a route whose fields are all optional, instead of reading it as no fields', async () => {
    const headers = await registerTrader(t);
    const r = await raw(port, json('/api/v1/identity/closure/cancel', 'null', `Authorization: ${headers.authorization}\r\n`));
    const error = expectEnvelope(r, 400, 'VALIDATION_FAILED');
    expect(error.details[0].field).toBe('body');
    // Without a body at all the route still answers on its own terms (no closure to cancel).
    const none = await raw(port, `POST /api/v1/identity/closure/cancel HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: ${headers.authorization}\r\nContent-Length: 0\r\n\r\n`);
    expect(none.status).toBe(409);
  });
});

/** Opens a connection and resolves once it is up. */
function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves with everything the server sent once it closes the connection, and when that was. */
function closed(socket: Socket): Promise<{ data: string; at: number }> {
  return new Promise((resolve) => {
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ data, at: Date.now() }));
  });
}

describe('HTTP edge: slow clients are cut off in the configured time while others are served (issue 19, item 3)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: '600', HTTP_REQUEST_TIMEOUT_MS: '1200', HTTP_KEEP_ALIVE_TIMEOUT_MS: '400' });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(async () => t.close());

  /** Writes one byte at a time every `everyMs` until the socket closes; meanwhile asks /health/live as a normal client. */
  async function trickle(head: string, rest: string, everyMs = 100) {
    const socket = await opened(port);
    const started = Date.now();
    const end = closed(socket);
    socket.write(head);
    let i = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && i < rest.length) socket.write(rest[i++]);
    }, everyMs);
    const served: number[] = [];
    let done = false;
    void end.then(() => (done = true));
    while (!done) {
      served.push((await fetch(`http://127.0.0.1:${port}/health/live`)).status);
      await new Promise((r) => setTimeout(r, 100));
    }
    clearInterval(timer);
    const { data, at } = await end;
    return { data, elapsed: at - started, sentBytes: i, served };
  }

  it('answers a body trickled a byte at a time with 408 in the envelope and closes it once the request timeout passes', async () => {
    const body = JSON.stringify({ account_type: 'INDIVIDUAL', email: 'slow@example.com', padding: 'x'.repeat(200) });
    const head = `POST /api/v1/identity/registrations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const r = await trickle(head, body);
    expect(r.data).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(r.data.slice(r.data.indexOf('\r\n\r\n') + 4)).error.code).toBe('REQUEST_TIMEOUT');
    // Cut off after the configured 1.2 s (Node looks every 150 ms here), long before the body was through.
    expect(r.elapsed).toBeGreaterThanOrEqual(1100);
    expect(r.elapsed).toBeLessThan(3000);
    expect(r.sentBytes).toBeLessThan(body.length);
    // Normal clients were answered all along.
    expect(r.served.length).toBeGreaterThanOrEqual(5);
    expect(new Set(r.served)).toEqual(new Set([200]));
  }, 15_000);

  it('answers headers trickled a line at a time with 408 once the headers timeout passes', async () => {
    const lines = Array.from({ length: 100 }, (_, n) => `X-Slow-${n}: y\r\n`).join('');
    const r = await trickle('GET /health/live HTTP/1.1\r\nHost: x\r\n', lines, 50);
    expect(r.data).toMatch(/^HTTP\/1\.1 408 /);
    expect(r.elapsed).toBeGreaterThanOrEqual(500);
    expect(r.elapsed).toBeLessThan(2500);
  }, 15_000);

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const socket = await opened(port);
    const end = closed(socket);
    let answeredAt = 0;
    socket.once('data', () => (answeredAt = Date.now()));
    socket.write('GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    const { data, at } = await end;
    expect(data).toMatch(/^HTTP\/1\.1 200 /);
    // Kept open for the configured 0.4 s after the answer (plus Node's own margin), not the 72 s default.
    expect(at - answeredAt).toBeGreaterThanOrEqual(350);
    expect(at - answeredAt).toBeLessThan(2500);
  }, 10_000);
});

describe('HTTP edge: a cap on connections per node (issue 19, item 3)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp({ HTTP_MAX_CONNECTIONS: '3' });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(async () => t.close());

  it('closes a connection past the cap on arrival and serves again once one is freed', async () => {
    const held = await Promise.all([opened(port), opened(port), opened(port)]);
    await new Promise((r) => setTimeout(r, 100)); // let the server accept all three
    const extra = await opened(port);
    const refused = closed(extra);
    extra.write('GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect((await refused).data).toBe('');
    held[0].destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await raw(port, 'GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).status).toBe(200);
    for (const socket of held) socket.destroy();
  }, 10_000);
});
