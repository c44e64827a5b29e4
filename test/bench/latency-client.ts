/**
 * The latency benchmark's client, run in a worker thread so it never shares the server's event loop: one keep-alive
 * connection, one request at a time, each timed from the first byte written to the last byte read (hrtime, ns).
 *
 * HTTP/1.1 is spoken on a raw socket (requests prebuilt as bytes, responses framed by Content-Length, which every
 * route here sends), so the client's own cost is a few microseconds and the figures are the server's and loopback's.
 * Messages in: { kind: 'run', requests, keepBodies } answers { latencies (µs), statuses, bodies? };
 * { kind: 'flow', requests } repeats its requests until { kind: 'stop' } and answers { count, statuses };
 * { kind: 'timed', request, values } repeats one request until { kind: 'stop' }, each timed, and answers
 * { latencies (µs), codes, reused } (the process benchmarks' clients: scale-out.bench.ts and threads.bench.ts, through order-load.ts).
 */
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface ClientRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One request repeated until stopped. In its body `{i}` becomes a sequence number that counts on across every 'timed'
 * run of this worker, and `{v}` becomes values[i % values.length]: each request can differ (an order's reference and
 * price) without prebuilding a number of requests no one knows before the run.
 */
export interface TimedMessage {
  kind: 'timed';
  request: ClientRequest;
  values: string[];
}

export type ClientMessage = { kind: 'run'; requests: ClientRequest[]; keepBodies?: boolean } | { kind: 'flow'; requests: ClientRequest[] } | TimedMessage | { kind: 'stop' };

export interface TimedAnswer {
  /** Each request's time (µs), from its first byte written to its last byte read (or to the failure). */
  latencies: number[];
  /** Each request's status, in the same order; 0 where the connection failed (it is reopened for the next). */
  codes: number[];
  /** Requests whose `{v}` came round to a value used before (values ran out). */
  reused: number;
}

export interface RunAnswer {
  latencies: number[];
  statuses: Record<string, number>;
  bodies?: string[];
  /** Each response's Server-Timing header ('' where none). */
  timings: string[];
  /** When each response had been read: milliseconds since the epoch (performance.timeOrigin + now), as 'gc' entries. */
  endedAt: number[];
}

interface Response {
  status: number;
  body: Buffer;
  /** The Server-Timing header, when the server sent one. */
  timing?: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** One connection answering one request at a time. */
class Connection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((r: Response) => void) | null = null;
  private failed: ((e: Error) => void) | null = null;
  /** The server closes a connection idle past its keep-alive timeout (between scenarios): the client then reopens. */
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on('error', (e) => this.failed?.(e));
    socket.on('close', () => {
      this.closed = true;
      this.failed?.(new Error('connection closed'));
    });
  }

  static open(host: string, port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port }, () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  send(bytes: Buffer): Promise<Response> {
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    const end = this.buffer.indexOf(HEADER_END);
    if (end < 0 || !this.waiting) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!Number.isFinite(length)) throw new Error(`a response without Content-Length: ${head}`);
    const total = end + 4 + length;
    if (this.buffer.length < total) return;
    const response = { status: Number(head.slice(9, 12)), body: this.buffer.subarray(end + 4, total), timing: /\r\nserver-timing:\s*([^\r]*)/i.exec(head)?.[1] };
    this.buffer = this.buffer.subarray(total);
    const done = this.waiting;
    this.waiting = null;
    done(response);
  }
}

function encode(host: string, r: ClientRequest): Buffer {
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const lines = [`${r.method} ${r.path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
  for (const [k, v] of Object.entries(r.headers ?? {})) lines.push(`${k}: ${v}`);
  if (body) lines.push(`content-length: ${body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body ? Buffer.concat([head, body]) : head;
}

async function main(): Promise<void> {
  const url = new URL(workerData.url as string);
  let connection = await Connection.open(url.hostname, Number(url.port));
  // Reopened before a request is timed, never while one is: a closed idle connection costs no request its handshake.
  const open = async (): Promise<Connection> => (connection.closed ? (connection = await Connection.open(url.hostname, Number(url.port))) : connection);
  let stopped = false;
  parentPort!.on('message', async (m: ClientMessage) => {
    if (m.kind === 'stop') {
      stopped = true;
      return;
    }
    if (m.kind === 'timed') {
      parentPort!.postMessage(await timed(m, open, () => stopped, (s) => (stopped = s)));
      return;
    }
    const requests = m.requests.map((r) => encode(url.host, r));
    const statuses: Record<string, number> = {};
    const count = (status: number) => (statuses[status] = (statuses[status] ?? 0) + 1);
    if (m.kind === 'flow') {
      stopped = false;
      let sent = 0;
      while (!stopped) count((await (await open()).send(requests[sent++ % requests.length])).status);
      parentPort!.postMessage({ count: sent, statuses });
      return;
    }
    const latencies: number[] = [];
    const bodies: string[] = [];
    const timings: string[] = [];
    const endedAt: number[] = [];
    for (const bytes of requests) {
      const ready = await open();
      const started = process.hrtime.bigint();
      const response = await ready.send(bytes);
      latencies.push(Number(process.hrtime.bigint() - started) / 1000);
      endedAt.push(performance.timeOrigin + performance.now());
      count(response.status);
      timings.push(response.timing ?? '');
      if (m.keepBodies) bodies.push(response.body.toString('utf8'));
    }
    parentPort!.postMessage({ latencies, statuses, timings, endedAt, bodies: m.keepBodies ? bodies : undefined } satisfies RunAnswer);
  });
  parentPort!.postMessage({ ready: true });
  process.on('exit', () => connection.close());
}

/** Sequence numbers of 'timed' requests: never the same twice in this worker. */
let sequence = 0;

async function timed(m: TimedMessage, open: () => Promise<Connection>, isStopped: () => boolean, setStopped: (s: boolean) => void): Promise<TimedAnswer> {
  const host = new URL(workerData.url as string).host;
  const latencies: number[] = [];
  const codes: number[] = [];
  let reused = 0;
  setStopped(false);
  while (!isStopped()) {
    const i = sequence++;
    if (m.values.length > 0 && i >= m.values.length) reused++;
    const body = m.request.body?.replace('{i}', String(i)).replace('{v}', m.values.length > 0 ? m.values[i % m.values.length] : '');
    const bytes = encode(host, { ...m.request, body });
    let started = process.hrtime.bigint();
    try {
      // Opening (only after a failure or an idle close) is not part of the request's time.
      const ready = await open();
      started = process.hrtime.bigint();
      const response = await ready.send(bytes);
      latencies.push(Number(process.hrtime.bigint() - started) / 1000);
      codes.push(response.status);
    } catch {
      // The node went away (or closed the connection mid-request): counted, never hidden, and retried on a new one.
      latencies.push(Number(process.hrtime.bigint() - started) / 1000);
      codes.push(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { latencies, codes, reused };
}

main().catch((e) => {
  throw e;
});
