/**
 * The latency benchmark's client, run in a worker thread so it never shares the server's event loop: one keep-alive
 * connection, one request at a time, each timed from the first byte written to the last byte read (hrtime, ns).
 *
 * HTTP/1.1 is spoken on a raw socket (requests prebuilt as bytes, responses framed by Content-Length, which every
 * route here sends), so the client's own cost is a few microseconds and the figures are the server's and loopback's.
 * Messages in: { kind: 'run', requests, keepBodies } answers { latencies (µs), statuses, bodies? };
 * { kind: 'flow', requests } repeats its requests until { kind: 'stop' } and answers { count, statuses }.
 */
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface ClientRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export type ClientMessage = { kind: 'run'; requests: ClientRequest[]; keepBodies?: boolean } | { kind: 'flow'; requests: ClientRequest[] } | { kind: 'stop' };

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

main().catch((e) => {
  throw e;
});
