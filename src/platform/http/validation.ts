/**
 * DTO validation with class-validator. Shapes the seeds mark "no extra fields" carry `@NoExtraFields()` and reject
 * unknown fields by name; every other shape drops them. JSON numbers never pass where a decimal string is due.
 */
import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, registerDecorator, validate, ValidateIf, type ValidationError, type ValidationOptions } from 'class-validator';
import { ValidationFailed, type ErrorDetail } from '../errors';
import { markStage } from '../observability/server-timing';

const NO_EXTRA_FIELDS = Symbol('noExtraFields');

/**
 * class-validator finds a class's rules by walking every DTO class it knows, on every object it validates and every
 * lookup of ours: about a tenth of a small request's CPU. Rules are registered when the classes load and never change
 * after, so lookups are memoized per class and options; registering a rule later clears the memo.
 */
function memoizeRuleLookups(): void {
  type Storage = ReturnType<typeof getMetadataStorage> & { __memoized?: true };
  const storage = getMetadataStorage() as Storage;
  if (storage.__memoized) return;
  storage.__memoized = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const memo = new Map<Function | string, Map<string, ReturnType<typeof lookup>>>();
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}|${always}|${strictGroups}|${groups?.join(',') ?? ''}`;
    let byOptions = memo.get(target);
    if (!byOptions) memo.set(target, (byOptions = new Map()));
    let metas = byOptions.get(key);
    // A frozen copy: no caller can change what the next one gets.
    if (!metas) byOptions.set(key, (metas = Object.freeze(lookup(target, schema, always, strictGroups, groups)) as ReturnType<typeof lookup>));
    return metas;
  };
  for (const method of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema'] as const) {
    const original = storage[method].bind(storage) as (arg: never) => void;
    (storage as unknown as Record<string, unknown>)[method] = (arg: never) => {
      memo.clear();
      original(arg);
    };
  }
}
memoizeRuleLookups();

/**
 * An optional request field: it may be absent, and a JSON `null` is validated like any other value, so the field's
 * own rules (`@IsString()`, `@Matches()`…) reject it with their message. Why not class-validator's `@IsOptional()`:
 * that skips validation for `null` too, and a null then reaches handlers written for "absent or a string" (a 500)
 * or an event its projector cannot read. Use this unless the seeds mark the field "may be null".
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined);
}

/**
 * An optional field the seeds document as nullable (`?` in document 001's legend, "null or …" in document 000):
 * absent and `null` both skip validation. The handler receives `null` and must treat it (usually: as absent); type
 * the property `T | null` so the compiler makes it.
 */
export function OptionalNullable(): PropertyDecorator {
  return ValidateIf((_object: unknown, value: unknown) => value !== undefined && value !== null);
}

/** Names of the DTO classes marked @NoExtraFields(): the OpenAPI builder closes their schemas (additionalProperties: false). */
export const CLOSED_SHAPES = new Set<string>();
/** Query DTOs marked so: OpenAPI lists query parameters one by one (no schema to close); the server refuses others. */
export const CLOSED_QUERY_SHAPES = new Set<string>();

/** Marks a DTO whose shape allows no unknown fields (the seeds' "no extra fields allowed"); `query`: a query string's. */
export function NoExtraFields(options: { query?: boolean } = {}): ClassDecorator {
  return (target) => {
    Reflect.defineMetadata(NO_EXTRA_FIELDS, true, target);
    (options.query ? CLOSED_QUERY_SHAPES : CLOSED_SHAPES).add(target.name);
  };
}

function allowsNoExtraFields(target: Function): boolean {
  return Reflect.getOwnMetadata(NO_EXTRA_FIELDS, target) === true;
}

/** Properties class-validator knows for a class (its own and inherited). */
function knownProperties(target: Function): Set<string> {
  const metas = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
  return new Set(metas.map((m) => m.propertyName));
}

function findExtraFields(value: unknown, path: string, out: ErrorDetail[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, i) => findExtraFields(v, `${path}[${i}]`, out));
    return;
  }
  const ctor = (value as object).constructor;
  const strict = ctor !== Object && allowsNoExtraFields(ctor);
  const known = ctor !== Object ? knownProperties(ctor) : null;
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    if (strict && known && !known.has(key)) out.push({ field, issue: 'unknown field: this shape allows no extra fields' });
    else findExtraFields((value as Record<string, unknown>)[key], field, out);
  }
}

export function flattenValidationErrors(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    for (const issue of Object.values(e.constraints ?? {})) out.push({ field, issue });
    if (e.children?.length) out.push(...flattenValidationErrors(e.children, field));
  }
  return out;
}

/** Validates a plain value against a DTO class; returns the instance (unknown fields of open shapes removed). */
export async function validateDto<T extends object>(cls: new () => T, value: unknown, where = 'body'): Promise<T> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ValidationFailed(`The ${where} must be a JSON object.`, [{ field: where, issue: 'must be a JSON object' }]);
  }
  const instance = plainToInstance(cls, value, { enableImplicitConversion: false });
  const extra: ErrorDetail[] = [];
  findExtraFields(instance, '', extra);
  const errors = await validate(instance, { whitelist: true, forbidNonWhitelisted: false, forbidUnknownValues: true, validationError: { target: false, value: false } });
  const details = [...extra, ...flattenValidationErrors(errors)];
  if (details.length > 0) throw new ValidationFailed(`The ${where} is invalid.`, details);
  return instance;
}

/** Whether a class declares any validation or refuses extra fields: fixed once its decorators have run. */
const validated = new WeakMap<Function, boolean>();

@Injectable()
export class PlatformValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const cls = metadata.metatype;
    if (!cls || metadata.type === 'custom' || [String, Number, Boolean, Array, Object].includes(cls as never)) return value;
    let checked = validated.get(cls);
    if (checked === undefined) {
      checked = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false).length > 0 || allowsNoExtraFields(cls);
      validated.set(cls, checked);
    }
    if (!checked) return value;
    const valid = await validateDto(cls as new () => object, value ?? {}, metadata.type === 'query' ? 'query' : metadata.type === 'param' ? 'path' : 'body');
    markStage('validation');
    return valid;
  }
}

const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;

export interface DecimalStringOptions {
  /** Require > 0. */
  positive?: boolean;
  /** Allow a leading minus. */
  signed?: boolean;
  maxFractionDigits?: number;
  maxIntegerDigits?: number;
}

/** True when `value` is a decimal string as the platform's wire format has them. */
export function isDecimalString(value: unknown, options: DecimalStringOptions = {}): boolean {
  if (typeof value !== 'string' || !DECIMAL.test(value)) return false;
  const negative = value.startsWith('-');
  if (negative && !options.signed) return false;
  const [int, frac = ''] = value.replace('-', '').split('.');
  if (options.maxFractionDigits !== undefined && frac.length > options.maxFractionDigits) return false;
  if (int.length > (options.maxIntegerDigits ?? 30)) return false;
  if (options.positive && (negative || /^0*(\.0*)?$/.test(value.replace('-', '')))) return false;
  return true;
}

/** A decimal string (amounts, prices, quantities). A JSON number is rejected with a message that says so. */
export function IsDecimalString(options: DecimalStringOptions = {}, validationOptions?: ValidationOptions): PropertyDecorator {
  return (object, propertyName) => {
    registerDecorator({
      name: 'isDecimalString',
      target: object.constructor,
      propertyName: propertyName as string,
      options: validationOptions,
      validator: {
        validate: (value: unknown) => isDecimalString(value, options),
        defaultMessage: (args) => {
          if (typeof args?.value === 'number') return `${args.property} must be a decimal string such as "10.50", not a JSON number`;
          const rules = [options.positive ? 'positive' : options.signed ? 'signed' : 'non-negative'];
          if (options.maxFractionDigits !== undefined) rules.push(`at most ${options.maxFractionDigits} fractional digits`);
          return `${args?.property} must be a ${rules.join(', ')} decimal string such as "10.50"`;
        },
      },
    });
  };
}
