/**
 * Reading an export file (NDJSON): lines end at "\n" only. Node.js 24's readline also ends a line at U+2028 and
 * U+2029, which JSON strings may hold raw, so the export reader splits lines itself; these tests hold on every Node.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportRecords, ndjsonLines } from '../../src/modules/audit/sources';

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function* chunks(...parts: string[]): AsyncIterable<string> {
  for (const p of parts) yield p;
}

describe('ndjsonLines', () => {
  it('given chunks holding U+2028, U+2029, CRLF and lines cut across chunks, when split, then lines end at "\\n" only', async () => {
    const lines = await collect(ndjsonLines(chunks('a\u2028b\r', '\nc', 'd\u2029e\n', '\n', 'last')));
    expect(lines).toEqual(['a\u2028b', 'cd\u2029e', '', 'last']);
  });

  it('given text ending in a newline, when split, then no empty line follows it', async () => {
    expect(await collect(ndjsonLines(chunks('x\n', 'y\n')))).toEqual(['x', 'y']);
    expect(await collect(ndjsonLines(chunks()))).toEqual([]);
  });
});

describe('exportRecords', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-lines-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('given the independent sample export (raw U+2028 and U+2029 in an event), when read, then every line is one record', async () => {
    const sample = join(__dirname, '../fixtures/audit_export_sample.ndjson');
    const text = readFileSync(sample, 'utf8');
    expect(text).toContain('\u2028');
    const records = await collect(exportRecords(sample));
    expect(records.map((r) => r.record.record)).toEqual(['header', 'event', 'event', 'event', 'event', 'end']);
    expect(records.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6]);
    const annotated = records[3].record;
    expect(annotated.record === 'event' && (annotated.event.data as Record<string, unknown>).not_escaped).toEqual(expect.stringContaining('\u2028'));
    expect(records[5].bytes).toBe(Buffer.byteLength(text, 'utf8'));
  });

  it('given CRLF line ends and a line longer than the read buffer, when read, then the records are the same as with LF', async () => {
    const sample = readFileSync(join(__dirname, '../fixtures/audit_export_sample.ndjson'), 'utf8');
    const lines = sample.split('\n').filter((l) => l !== '');
    // Pad the header with a long field: one line spanning many 64 KB reads, multi-byte characters cut between them.
    const header = JSON.parse(lines[0]) as Record<string, unknown>;
    lines[0] = JSON.stringify({ ...header, padding: 'é€'.repeat(100_000) });
    const file = join(dir, 'crlf.ndjson');
    writeFileSync(file, lines.join('\r\n') + '\r\n');
    const records = await collect(exportRecords(file));
    expect(records.map((r) => r.record.record)).toEqual(['header', 'event', 'event', 'event', 'event', 'end']);
    const first = records[0].record;
    expect(first.record === 'header' && (first.header as unknown as Record<string, unknown>).padding).toBe('é€'.repeat(100_000));
  });
});
