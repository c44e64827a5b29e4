/** Pure helpers of the platform: the test ledger's decide/evolve (given/when/then), decimals, cursors, errors. */
import { HttpException, NotFoundException } from '@nestjs/common';
import { fold } from '../../src/platform/command/decider';
import { RuleViolation, StateConflict, VersionConflict } from '../../src/platform/errors';
import { mapError } from '../../src/platform/http/error-envelope';
import { decodeCursor, encodeCursor, pageLimit, rawPage, rawPageAfter } from '../../src/platform/http/pagination';
import { isDecimalString, validateDto } from '../../src/platform/http/validation';
import { IsInt, IsString, Min } from 'class-validator';
import { loadPlatformConfig } from '../../src/platform/config/platform-config';
import { ledgerDecider, type LedgerCommand, type LedgerEvent } from '../support/test-ledger/ledger.domain';

const ctx = { now: new Date('2026-11-22T00:00:00Z'), newId: () => 'f'.repeat(32) };
const given = (events: LedgerEvent[]) => ({
  when: (command: LedgerCommand) => () => ledgerDecider.decide(command, fold(ledgerDecider, events), ctx),
});
const opened: LedgerEvent = { type: 'LedgerOpened', data: { ledger_id: 'l1', owner: 'ada' } };

describe('test ledger decider (given/when/then)', () => {
  it('opens a ledger once', () => {
    expect(given([]).when({ kind: 'OpenLedger', ledger_id: 'l1', owner: 'ada' })()).toEqual([opened]);
    expect(given([opened]).when({ kind: 'OpenLedger', ledger_id: 'l1', owner: 'ada' })).toThrow(StateConflict);
  });
  it('debits only what the balance holds', () => {
    const credited: LedgerEvent = { type: 'LedgerCredited', data: { ledger_id: 'l1', amount: '10' } };
    expect(given([opened, credited]).when({ kind: 'DebitLedger', ledger_id: 'l1', amount: '10' })()).toEqual([
      { type: 'LedgerDebited', data: { ledger_id: 'l1', amount: '10' } },
    ]);
    expect(given([opened, credited]).when({ kind: 'DebitLedger', ledger_id: 'l1', amount: '11' })).toThrow(RuleViolation);
    expect(given([]).when({ kind: 'CreditLedger', ledger_id: 'l1', amount: '1' })).toThrow(StateConflict);
  });
});

describe('decimal strings', () => {
  it.each([
    ['10', {}, true], ['10.50', {}, true], ['0.000000000000000001', {}, true], ['0', {}, true],
    ['-1', {}, false], ['-1', { signed: true }, true], ['0', { positive: true }, false], ['0.00', { positive: true }, false],
    ['01', {}, false], ['1.', {}, false], ['.5', {}, false], ['1e5', {}, false], [' 1', {}, false],
    ['1.234', { maxFractionDigits: 2 }, false], [10, {}, false], [null, {}, false],
  ] as const)('%p with %p is %p', (value, options, expected) => {
    expect(isDecimalString(value, options)).toBe(expected);
  });
});

describe('cursors and limits', () => {
  it('round-trips a cursor and rejects anything else', () => {
    expect(decodeCursor(encodeCursor(['2026-01-01T00:00:00Z', 'abc']), 2)).toEqual(['2026-01-01T00:00:00Z', 'abc']);
    expect(() => decodeCursor(encodeCursor(['a']), 2)).toThrow(/Invalid cursor/);
    expect(() => decodeCursor('%%%', 1)).toThrow(/Invalid cursor/);
    expect(() => decodeCursor(Buffer.from('{"a":1}').toString('base64url'), 1)).toThrow(/Invalid cursor/);
  });
  it('bounds limits', () => {
    expect(pageLimit(undefined, { default: 50, max: 200 })).toBe(50);
    expect(pageLimit('200', { default: 50, max: 200 })).toBe(200);
    expect(() => pageLimit('201', { default: 50, max: 200 })).toThrow(/limit/);
  });
});

describe('error mapping', () => {
  it('maps platform errors with their status and current_version', () => {
    const m = mapError(new VersionConflict('s', '3', 5n), 'r1');
    expect(m.status).toBe(409);
    expect(m.body.error).toMatchObject({ code: 'VERSION_CONFLICT', request_id: 'r1', current_version: 5 });
    expect(mapError(new VersionConflict('s', '3', 2n ** 60n), 'r').body.error.current_version).toBe('1152921504606846976');
  });
  it('maps framework errors and hides unknown ones', () => {
    expect(mapError(new NotFoundException(), 'r').body.error.code).toBe('NOT_FOUND');
    expect(mapError(new HttpException('x', 415), 'r').status).toBe(415);
    expect(mapError(Object.assign(new Error('big'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }), 'r').body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const internal = mapError(new Error('SELECT secret FROM t'), 'r');
    expect(internal).toMatchObject({ status: 500, internal: true });
    expect(JSON.stringify(internal.body)).not.toContain('SELECT');
  });
});

describe('configuration', () => {
  it('applies defaults and names every invalid variable', () => {
    const c = loadPlatformConfig({});
    expect(c).toMatchObject({ port: 3000, readYourWritesTimeoutMs: 2000, idempotencyTtlSeconds: 86400, projectionsAutostart: true });
    expect(() => loadPlatformConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', EVENTSTORE_CONNECTION_STRING: 'http://x' })).toThrow(
      /PORT[\s\S]*EVENTSTORE_CONNECTION_STRING[\s\S]*DATABASE_URL|PORT[\s\S]*DATABASE_URL/,
    );
  });

  it('has slow-client limits by default and refuses a headers timeout longer than the whole request', () => {
    expect(loadPlatformConfig({}).http).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000, socketIdleTimeoutMs: 120_000, maxConnections: 4096 });
    expect(() => loadPlatformConfig({ HTTP_HEADERS_TIMEOUT_MS: '40000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/);
    expect(() => loadPlatformConfig({ HTTP_MAX_CONNECTIONS: '0' })).toThrow(/HTTP_MAX_CONNECTIONS/);
  });
});

describe('DTO validation (memoized rule lookups)', () => {
  it('sees rules registered after earlier validations, for new classes and subclasses alike', async () => {
    class Base {
      @IsString() name!: string;
    }
    await expect(validateDto(Base, { name: 'a' })).resolves.toMatchObject({ name: 'a' });
    await expect(validateDto(Base, { name: 1 })).rejects.toMatchObject({ details: [{ field: 'name', issue: 'name must be a string' }] });
    // Declared after Base was validated (its lookups memoized): the subclass's own rule and the inherited one apply.
    class Derived extends Base {
      @IsInt() @Min(1) count!: number;
    }
    const refused = await validateDto(Derived, { name: 2, count: 0 }).catch((e: { details: Array<{ field: string }> }) => e.details.map((d) => d.field).sort());
    expect(refused).toEqual(['count', 'name']);
    await expect(validateDto(Derived, { name: 'b', count: 3 })).resolves.toMatchObject({ name: 'b', count: 3 });
    // Base is unchanged by its subclass.
    await expect(validateDto(Base, { name: 'c', count: 0 })).resolves.toMatchObject({ name: 'c' });
    // A rule added to Base at run time (after both were memoized) reaches Base and, inherited, Derived.
    IsString()(Base.prototype, 'title');
    await expect(validateDto(Base, { name: 'd', title: 5 })).rejects.toMatchObject({ details: [{ field: 'title' }] });
    await expect(validateDto(Derived, { name: 'd', count: 1, title: 5 })).rejects.toMatchObject({ details: [{ field: 'title' }] });
  });
});

describe('raw keyset pages', () => {
  const rows = ['00000000000000000009', '00000000000000000007', '00000000000000000004'].map((position) => ({ position }));
  it('takes limit of the limit + 1 rows read, with a cursor only when there are more, bound to its scope', () => {
    const first = rawPage(rows, 2, (r) => r.position, 'list-a');
    expect(first.rows).toEqual(rows.slice(0, 2));
    expect(rawPageAfter(first.next_cursor, 'list-a')).toBe('00000000000000000007');
    expect(() => rawPageAfter(first.next_cursor, 'list-b')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(rawPage(rows, 3, (r) => r.position, 'list-a').next_cursor).toBeUndefined();
    expect(rawPageAfter(undefined, 'list-a')).toBeNull();
    expect(() => rawPageAfter(encodeCursor(['7', 'list-a']), 'list-a')).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });
});
