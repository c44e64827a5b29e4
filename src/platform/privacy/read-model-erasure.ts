/**
 * Read models that keep a row's API record as JSON (intents, approvals, activity, memory objects and requests) scrub
 * an erased person's words from it (docs/privacy.md): the rows whose record mentions the person are read, changed by
 * a pure `scrub`, and written back, in the projector's transaction. Portable: the match is a LIKE on the 32-hex id.
 */
import type { EntityManager } from 'typeorm';
import { portableSql } from '../read-model/read-model.datasource';

export async function scrubRecords<R extends Record<string, unknown>>(
  tx: EntityManager,
  target: { table: string; key: string | string[]; column?: string },
  subject: string,
  scrub: (record: R) => R | null,
): Promise<number> {
  if (!/^[0-9A-Za-z:_-]+$/.test(subject)) throw new Error(`not a subject id: ${subject}`);
  const column = target.column ?? 'record';
  const keys = Array.isArray(target.key) ? target.key : [target.key];
  const rows: Array<Record<string, string>> = await tx.query(
    portableSql(tx, `SELECT ${[...keys, column].join(', ')} FROM ${target.table} WHERE ${column} LIKE ?`),
    [`%${subject}%`],
  );
  let changed = 0;
  for (const row of rows) {
    const next = scrub(JSON.parse(row[column]) as R);
    if (next === null) continue;
    await tx.query(portableSql(tx, `UPDATE ${target.table} SET ${column} = ? WHERE ${keys.map((k) => `${k} = ?`).join(' AND ')}`), [JSON.stringify(next), ...keys.map((k) => row[k])]);
    changed++;
  }
  return changed;
}
