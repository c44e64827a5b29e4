/**
 * RFC 8785 canonical JSON written out in the test, independently of the platform's (which uses safe-stable-stringify):
 * what a client recomputing `metadata_hash` would write. Keys sorted by UTF-16 code units, numbers in ECMAScript form.
 */
export function canonicalize(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalize).join(',')}]`;
  const keys = Object.keys(value as Record<string, unknown>).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalize((value as Record<string, unknown>)[k])}`).join(',')}}`;
}
