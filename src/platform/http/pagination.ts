/**
 * The one pagination helper: `limit` plus an opaque cursor. Cursors are base64url JSON of the last row's sort
 * keys; a cursor that does not decode to the expected shape is a 400, never a 500. `keysetPage` pages TypeORM query
 * builders; `rawPage` / `rawPageAfter` page the raw-SQL read paths (orders, AI wallets, agentic memory).
 */
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { ValidationFailed } from '../errors';
import { Optional } from './validation';

export class PageQuery {
  // A query value arrives as text; the document types it as the integer a client sends.
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 9999, description: 'Page size (each list has its own default and maximum).', example: 50 })
  @Optional()
  @Matches(/^\d{1,4}$/, { message: 'limit must be a positive integer' })
  limit?: string;

  @ApiPropertyOptional({ description: 'Opaque cursor from the previous page.' })
  @Optional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export interface LimitRule {
  default: number;
  max: number;
  min?: number;
}

export function pageLimit(raw: string | undefined, rule: LimitRule): number {
  if (raw === undefined || raw === '') return rule.default;
  const n = Number(raw);
  const min = rule.min ?? 1;
  if (!Number.isInteger(n) || n < min || n > rule.max) {
    throw new ValidationFailed('Invalid limit.', [{ field: 'limit', issue: `must be an integer from ${min} to ${rule.max}` }]);
  }
  return n;
}

export type CursorValue = string | number;

export function encodeCursor(values: CursorValue[]): string {
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): CursorValue[] {
  const invalid = (): never => {
    throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: 'not a cursor this endpoint issued' }]);
  };
  if (!/^[A-Za-z0-9_-]{1,512}$/.test(cursor)) return invalid();
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return invalid();
  }
  if (!Array.isArray(values) || values.length !== arity || !values.every((v) => typeof v === 'string' || typeof v === 'number')) return invalid();
  return values as CursorValue[];
}

export interface KeysetOrder {
  /** Column expression, e.g. `n.created_at`. */
  column: string;
  /** Property of the loaded entity holding the column's value. */
  property: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | undefined;
}

/**
 * Keyset pagination (stable while rows are added): orders by the given columns, all in one direction, the last
 * being unique; fetches limit+1 rows to know whether a next page exists.
 */
export async function keysetPage<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  order: KeysetOrder[],
  direction: 'ASC' | 'DESC',
  limit: number,
  cursor: string | undefined,
): Promise<Page<T>> {
  if (cursor) {
    const values = decodeCursor(cursor, order.length);
    const op = direction === 'DESC' ? '<' : '>';
    // (a, b) < (x, y) spelled portably: a < x OR (a = x AND b < y).
    const clauses: string[] = [];
    const params: Record<string, CursorValue> = {};
    order.forEach((o, i) => {
      const equal = order.slice(0, i).map((p, j) => `${p.column} = :k${j}`);
      clauses.push(`(${[...equal, `${o.column} ${op} :k${i}`].join(' AND ')})`);
      params[`k${i}`] = values[i];
    });
    qb.andWhere(`(${clauses.join(' OR ')})`, params);
  }
  order.forEach((o, i) => (i === 0 ? qb.orderBy(o.column, direction) : qb.addOrderBy(o.column, direction)));
  const rows = await qb.limit(limit + 1).getMany();
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor(order.map((o) => (last as Record<string, CursorValue>)[o.property])) : undefined;
  return { items, nextCursor };
}

/**
 * Keyset pages over raw SQL (hot read paths): rows are read `ORDER BY <key>` with `LIMIT limit + 1`, where the key is
 * a zero-padded 20-digit string (a log position or revision). The cursor carries the last key and the `scope` it was
 * issued for (a list and its filters): reused elsewhere it is a 400.
 */
export function rawPage<R>(rows: R[], limit: number, key: (row: R) => string, scope: string): { rows: R[]; next_cursor?: string } {
  const taken = rows.slice(0, limit);
  return { rows: taken, ...(rows.length > limit ? { next_cursor: encodeCursor([key(taken[taken.length - 1]), scope]) } : {}) };
}

/** The key a `rawPage` cursor carries, or null without a cursor; a cursor issued for another scope is a 400. */
export function rawPageAfter(cursor: string | undefined, scope: string): string | null {
  if (!cursor) return null;
  const [key, issuedFor] = decodeCursor(cursor, 2).map(String);
  if (issuedFor !== scope || !/^\d{20}$/.test(key)) throw new ValidationFailed('Invalid cursor.', [{ field: 'cursor', issue: 'not issued for this list' }]);
  return key;
}
