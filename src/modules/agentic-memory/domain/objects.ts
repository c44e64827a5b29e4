/**
 * Memory objects (the seeds' ContextObject): an allowlisted object type, what it is about, and structured content
 * whose fields each object type fixes. Content with a field the type does not define is refused (that is where
 * private material would hide), and so is any value holding a credential or an e-mail address. Source references
 * are public-safe: identifiers, commitments, or plain references without credentials, query strings or user info.
 */
import type { ErrorDetail } from '../../../platform/errors';
import { findIn, privateMaterialIn } from './secrets';

export const OBJECT_TYPES = ['STATUS', 'TASK', 'DECISION', 'EVIDENCE'] as const;
export type ObjectType = (typeof OBJECT_TYPES)[number];

/** RESTRICTED (and anything else) is not material for a shared memory collection. */
export const CLASSIFICATIONS = ['PUBLIC', 'INTERNAL', 'CONFIDENTIAL'] as const;
export type Classification = (typeof CLASSIFICATIONS)[number];

export const TASK_STATES = ['OPEN', 'IN_PROGRESS', 'BLOCKED', 'DONE', 'CANCELLED'] as const;
export const EVIDENCE_KINDS = ['OBSERVATION', 'MEASUREMENT', 'DOCUMENT', 'TEST_RESULT', 'LOG_EXCERPT'] as const;

export const MAX_CONTENT_BYTES = 16 * 1024;
export const MAX_SOURCE_REFS = 20;

type FieldRule =
  | { type: 'text'; max: number; required?: boolean; oneOf?: readonly string[] }
  | { type: 'datetime'; required?: boolean }
  | { type: 'boolean'; required?: boolean }
  | { type: 'texts'; maxItems: number; max: number; refs?: boolean };

/** The content fields of each object type; nothing else is accepted. */
export const CONTENT_SCHEMAS: Record<ObjectType, Record<string, FieldRule>> = {
  STATUS: {
    state: { type: 'text', max: 64, required: true },
    detail: { type: 'text', max: 2000 },
    scope: { type: 'text', max: 200 },
    observed_at: { type: 'datetime' },
  },
  TASK: {
    task_state: { type: 'text', max: 16, required: true, oneOf: TASK_STATES },
    description: { type: 'text', max: 2000 },
    due_at: { type: 'datetime' },
    blocked_by: { type: 'texts', maxItems: 20, max: 200, refs: true },
  },
  DECISION: {
    decision: { type: 'text', max: 2000, required: true },
    alternatives: { type: 'texts', maxItems: 10, max: 500 },
    decided_at: { type: 'datetime' },
    reversible: { type: 'boolean' },
  },
  EVIDENCE: {
    claim: { type: 'text', max: 2000, required: true },
    evidence_kind: { type: 'text', max: 16, oneOf: EVIDENCE_KINDS },
    observed_at: { type: 'datetime' },
    excerpt: { type: 'text', max: 4000 },
  },
};

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const HEX32 = /^[0-9a-f]{32}$/;
const HEX64 = /^(sha256:)?[0-9a-f]{64}$/;
/** A reference others may see: no spaces, no user info (`@`), no query or fragment (where tokens travel). */
const PUBLIC_REF = /^[A-Za-z0-9][A-Za-z0-9._:/~-]{0,199}$/;
/** Key names that announce private material, for a clearer refusal than "unknown field". */
const PRIVATE_KEY_NAME = /pass(word)?|secret|token|credential|private|e-?mail|phone|ssn|api[-_]?key|cookie|session/i;

export function isPublicRef(ref: string): boolean {
  return HEX32.test(ref) || HEX64.test(ref) || (PUBLIC_REF.test(ref) && privateMaterialIn(ref) === null);
}

/**
 * Problems with one object's structured content (field paths relative to `at`, e.g. `objects[0].content`), empty
 * when the content is acceptable for its object type.
 */
export function contentProblems(objectType: string, content: unknown, at = 'content'): ErrorDetail[] {
  const schema = CONTENT_SCHEMAS[objectType as ObjectType];
  if (!schema) return []; // the object type itself is refused on its own field
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return [{ field: at, issue: 'must be a JSON object' }];
  const problems: ErrorDetail[] = [];
  if (Buffer.byteLength(JSON.stringify(content), 'utf8') > MAX_CONTENT_BYTES) problems.push({ field: at, issue: `at most ${MAX_CONTENT_BYTES} bytes of JSON` });
  const record = content as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (schema[key]) continue;
    const why = PRIVATE_KEY_NAME.test(key) ? 'private material is not accepted in memory content' : 'unknown field';
    problems.push({ field: `${at}.${key}`, issue: `${why}; a ${objectType} holds ${Object.keys(schema).join(', ')}` });
  }
  for (const [key, rule] of Object.entries(schema)) {
    const field = `${at}.${key}`;
    const value = record[key];
    if (value === undefined || value === null) {
      if ('required' in rule && rule.required) problems.push({ field, issue: `required for a ${objectType}` });
      continue;
    }
    switch (rule.type) {
      case 'text':
        if (typeof value !== 'string' || value.length === 0 || value.length > rule.max) problems.push({ field, issue: `a string of 1 to ${rule.max} characters` });
        else if (rule.oneOf && !rule.oneOf.includes(value)) problems.push({ field, issue: `one of ${rule.oneOf.join(', ')}` });
        break;
      case 'datetime':
        if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) problems.push({ field, issue: 'an RFC 3339 timestamp' });
        break;
      case 'boolean':
        if (typeof value !== 'boolean') problems.push({ field, issue: 'a boolean' });
        break;
      case 'texts':
        if (!Array.isArray(value) || value.length > rule.maxItems || !value.every((v) => typeof v === 'string' && v.length > 0 && v.length <= rule.max)) {
          problems.push({ field, issue: `an array of at most ${rule.maxItems} strings of 1 to ${rule.max} characters` });
        } else if (rule.refs) {
          value.forEach((v: string, i) => {
            if (!isPublicRef(v)) problems.push({ field: `${field}[${i}]`, issue: 'a public-safe identifier or commitment' });
          });
        }
        break;
    }
  }
  const found = findIn(content, privateMaterialIn);
  if (found) problems.push({ field: `${at}${found.path}`, issue: secretIssue(found.kind) });
  return problems;
}

/** The refusal of a text that looks like a credential (its kind named, its value never echoed). */
export const secretIssue = (kind: string): string => `looks like a credential or private data (${kind}); credentials and private material never enter agentic memory`;
