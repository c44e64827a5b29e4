/**
 * The audit export: NDJSON (one JSON object per line, UTF-8, "\n"-terminated), written by `npm run audit -- export`
 * and read by `npm run audit -- verify --from-file`. Every line has `record`:
 *
 *   {"record":"header","format":"platform-audit-export-v1","commitment_alg":"sha256-jcs-v1","global_alg":"sha256-global-v1",
 *    "scope":"all"|"stream","stream":null|"<name>","store":"sqlite"|"eventstoredb"|"postgres","dense_positions":true|false,"exported_at":"…"}
 *   {"record":"event","position":"12","stream":"…","revision":"3","event_id":"…","type":"…","occurred_at":"…",
 *    "data":{…},"metadata":{…},"event_commitment":"…","previous_event_commitment":"…"|null}      (one per event, commit order)
 *   {"record":"end","events":"<count>","last_position":"<position>"|null,"global_commitment":"<hex>"|null}
 *
 * Positions and revisions are decimal strings. An event whose stored data or metadata is not JSON carries
 * `"data":null` (or `"metadata":null`) and `"unreadable":{"data":"<stored text>"}`. Pure.
 */
import type { JsonObject } from '../../../platform/commitments/json';
import type { EventMetadata } from '../../../platform/event-store/event-store.port';
import { COMMITMENT_ALG, committedData } from '../../../platform/commitments/commitment';
import { GLOBAL_ALG } from './global-chain';
import type { AuditEvent, ExportEnd, Scope } from './log-verifier';

export const EXPORT_FORMAT = 'platform-audit-export-v1';

export interface ExportHeader {
  record: 'header';
  format: typeof EXPORT_FORMAT;
  commitment_alg: string;
  global_alg: string;
  scope: 'all' | 'stream';
  stream: string | null;
  store: 'sqlite' | 'eventstoredb' | 'postgres';
  dense_positions: boolean;
  exported_at: string;
}

export function headerLine(h: { scope: Scope; store: 'sqlite' | 'eventstoredb' | 'postgres'; dense_positions: boolean; exported_at: string }): string {
  const header: ExportHeader = {
    record: 'header',
    format: EXPORT_FORMAT,
    commitment_alg: COMMITMENT_ALG,
    global_alg: GLOBAL_ALG,
    scope: h.scope.kind,
    stream: h.scope.kind === 'stream' ? h.scope.stream : null,
    store: h.store,
    dense_positions: h.dense_positions,
    exported_at: h.exported_at,
  };
  return JSON.stringify(header);
}

export function eventLine(e: AuditEvent): string {
  return JSON.stringify({
    record: 'event',
    position: e.position.toString(),
    stream: e.stream,
    revision: e.revision.toString(),
    event_id: e.event_id,
    type: e.type,
    occurred_at: e.occurred_at,
    // Sealed values as their digests: the export verifies, and carries no personal or secret value (docs/privacy.md).
    data: e.data ? committedData(e.data) : e.data,
    metadata: e.metadata,
    event_commitment: e.event_commitment,
    previous_event_commitment: e.previous_event_commitment,
    ...(e.unreadable ? { unreadable: e.unreadable } : {}),
  });
}

export function endLine(end: ExportEnd): string {
  return JSON.stringify({
    record: 'end',
    events: end.events.toString(),
    last_position: end.last_position?.toString() ?? null,
    global_commitment: end.global_commitment,
  });
}

export class ExportFormatError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

export type ExportRecord = { record: 'header'; header: ExportHeader } | { record: 'event'; event: AuditEvent } | { record: 'end'; end: ExportEnd };

const DECIMAL = /^(0|[1-9]\d{0,19})$/;

/** Parses one line; throws ExportFormatError naming the line and the problem. */
export function parseLine(text: string, line: number): ExportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ExportFormatError(line, 'not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ExportFormatError(line, 'not a JSON object');
  const v = value as Record<string, unknown>;
  const str = (field: string): string => {
    if (typeof v[field] !== 'string') throw new ExportFormatError(line, `${field} must be a string`);
    return v[field] as string;
  };
  const decimal = (field: string): bigint => {
    const s = str(field);
    if (!DECIMAL.test(s)) throw new ExportFormatError(line, `${field} must be a decimal string`);
    return BigInt(s);
  };
  const strOrNull = (field: string): string | null => (v[field] === null ? null : str(field));
  const object = (field: string): Record<string, unknown> | null => {
    const o = v[field];
    if (o === null) return null;
    if (typeof o !== 'object' || Array.isArray(o)) throw new ExportFormatError(line, `${field} must be an object or null`);
    return o as Record<string, unknown>;
  };
  switch (v.record) {
    case 'header': {
      if (v.format !== EXPORT_FORMAT) throw new ExportFormatError(line, `format must be ${EXPORT_FORMAT}`);
      if (v.commitment_alg !== COMMITMENT_ALG || v.global_alg !== GLOBAL_ALG) throw new ExportFormatError(line, `unsupported algorithms ${String(v.commitment_alg)} / ${String(v.global_alg)}`);
      if (v.scope !== 'all' && v.scope !== 'stream') throw new ExportFormatError(line, 'scope must be "all" or "stream"');
      if (v.scope === 'stream') str('stream');
      if (v.store !== 'sqlite' && v.store !== 'eventstoredb' && v.store !== 'postgres') throw new ExportFormatError(line, 'store must be "sqlite", "eventstoredb" or "postgres"');
      if (typeof v.dense_positions !== 'boolean') throw new ExportFormatError(line, 'dense_positions must be a boolean');
      return { record: 'header', header: { ...(v as unknown as ExportHeader), stream: v.scope === 'stream' ? (v.stream as string) : null, exported_at: str('exported_at') } };
    }
    case 'event': {
      const unreadable = v.unreadable === undefined ? undefined : (object('unreadable') ?? undefined);
      return {
        record: 'event',
        event: {
          position: decimal('position'),
          stream: str('stream'),
          revision: decimal('revision'),
          event_id: str('event_id'),
          type: str('type'),
          occurred_at: str('occurred_at'),
          data: object('data') as JsonObject | null,
          metadata: object('metadata') as EventMetadata | null,
          event_commitment: str('event_commitment'),
          previous_event_commitment: strOrNull('previous_event_commitment'),
          ...(unreadable ? { unreadable: unreadable as AuditEvent['unreadable'] } : {}),
        },
      };
    }
    case 'end':
      return {
        record: 'end',
        end: { events: decimal('events'), last_position: v.last_position === null ? null : decimal('last_position'), global_commitment: strOrNull('global_commitment') },
      };
    default:
      throw new ExportFormatError(line, 'record must be "header", "event" or "end"');
  }
}
