/**
 * `Optional()` and `OptionalNullable()` through the platform's validation pipe: an absent field passes both; `null`
 * is validated (and refused by the field's own rule) under `Optional()`, and skipped under `OptionalNullable()`; a
 * wrong type is refused by both. And no request DTO reaches for class-validator's IsOptional any more.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IsIn, IsString, Length, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { Optional, OptionalNullable, PlatformValidationPipe } from '../../src/platform/http/validation';
import { ValidationFailed, type ErrorDetail } from '../../src/platform/errors';
import { NotificationListQuery } from '../../src/modules/notifications/dto/notifications.dto';
import { PageQuery } from '../../src/platform/http/pagination';

class Inner {
  @IsString()
  name!: string;
}

class Sample {
  @IsString()
  required!: string;

  @Optional() @IsString() @Length(1, 10)
  note?: string;

  @OptionalNullable() @IsString() @Length(1, 10)
  nickname?: string | null;

  @Optional() @IsIn(['A', 'B'])
  kind?: string;

  @OptionalNullable() @ValidateNested() @Type(() => Inner)
  inner?: Inner | null;
}

const pipe = new PlatformValidationPipe();
const body = (value: unknown, metatype: Function = Sample) => pipe.transform(value, { type: 'body', metatype: metatype as never });
const query = (value: unknown, metatype: Function) => pipe.transform(value, { type: 'query', metatype: metatype as never });

async function refusal(run: Promise<unknown>): Promise<ValidationFailed> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationFailed);
  return error as ValidationFailed;
}
const fields = (e: ValidationFailed): string[] => [...new Set(e.details.map((d: ErrorDetail) => d.field))];

describe('Optional()', () => {
  it('accepts the field absent', async () => {
    await expect(body({ required: 'x' })).resolves.toEqual({ required: 'x' });
  });

  it('accepts a valid value', async () => {
    await expect(body({ required: 'x', note: 'hello', kind: 'A' })).resolves.toMatchObject({ note: 'hello', kind: 'A' });
  });

  it('refuses null with the field rule’s own message', async () => {
    const e = await refusal(body({ required: 'x', note: null }));
    expect(e.code).toBe('VALIDATION_FAILED');
    expect(fields(e)).toEqual(['note']);
    expect(e.details).toContainEqual({ field: 'note', issue: 'note must be a string' });
    const kind = await refusal(body({ required: 'x', kind: null }));
    expect(fields(kind)).toEqual(['kind']);
    expect(kind.details[0].issue).toMatch(/^kind must be one of the following values: A, B$/);
  });

  it('refuses a wrong type', async () => {
    const e = await refusal(body({ required: 'x', note: 5 }));
    expect(fields(e)).toEqual(['note']);
    expect(e.details).toContainEqual({ field: 'note', issue: 'note must be a string' });
  });

  it('validates query classes the same way (query strings cannot carry null; the classes still refuse it)', async () => {
    await expect(query({}, NotificationListQuery)).resolves.toEqual({});
    expect(fields(await refusal(query({ status: null }, NotificationListQuery)))).toEqual(['status']);
    expect(fields(await refusal(query({ limit: null, cursor: null }, PageQuery)))).toEqual(['limit', 'cursor']);
  });
});

describe('OptionalNullable()', () => {
  it('accepts the field absent', async () => {
    await expect(body({ required: 'x' })).resolves.toEqual({ required: 'x' });
  });

  it('accepts null and passes it on as null', async () => {
    await expect(body({ required: 'x', nickname: null, inner: null })).resolves.toEqual({ required: 'x', nickname: null, inner: null });
  });

  it('still validates a present value: a wrong type or a bad nested object is refused', async () => {
    const e = await refusal(body({ required: 'x', nickname: 7 }));
    expect(fields(e)).toEqual(['nickname']);
    expect(e.details).toContainEqual({ field: 'nickname', issue: 'nickname must be a string' });
    const long = await refusal(body({ required: 'x', nickname: 'far too long a name' }));
    expect(fields(long)).toEqual(['nickname']);
    const nested = await refusal(body({ required: 'x', inner: { name: 3 } }));
    expect(fields(nested)).toEqual(['inner.name']);
  });

  it('does not make a required field optional: null there is still refused', async () => {
    expect(fields(await refusal(body({ required: null, nickname: null })))).toEqual(['required']);
  });
});

describe('request DTOs', () => {
  it('use Optional()/OptionalNullable(), never class-validator’s IsOptional (it lets null through)', () => {
    const root = join(__dirname, '../../src');
    const files = [
      ...readdirSync(join(root, 'modules')).flatMap((m) => {
        const dir = join(root, 'modules', m, 'dto');
        try {
          return readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));
        } catch {
          return [];
        }
      }),
      join(root, 'modules/ai-wallets/ai-wallets.controller.ts'),
      join(root, 'platform/http/pagination.ts'),
    ];
    expect(files.length).toBeGreaterThan(8);
    const offenders = files.filter((f) => /\bIsOptional\b/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
