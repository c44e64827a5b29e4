/**
 * `npm run event-schemas` writes the data contract of every event type: docs/schemas/events/<module>.schema.json
 * (JSON Schema draft 2020-12, a `$defs` entry per event type, named as the type, the schema of its `data` as Kafka and
 * the audit export carry it) and docs/schemas/events/index.json (event type to its definition). Not written by hand:
 *
 * 1. Each module's event unions are the type arguments of its `declareEventClasses<…>(…)` calls (its domain's
 *    privacy.ts): ts-json-schema-generator turns each into a schema, which is split into one schema per event type
 *    (the union member whose `type` is that type).
 * 2. The data is published in committed form (commitment.ts committedData, sealing.ts): every personal or secret field
 *    (the module's field classes, at any declared depth) holds `{"$sealed_field": "<path>"}` (or null where the type
 *    allows null: a null value is not sealed), and `$sealed_values` holds only `{"$sealed_digest": <hex>}`.
 *
 * The files are committed, so a review shows every change to an event's contract; `--check` fails when they are not
 * what the code declares (test/unit/event-schemas.spec.ts checks the same). docs/schemas/events/README.md says how to
 * use them and how they may change.
 */
import 'reflect-metadata';
// Loading the modules registers their field classes.
import '../app.module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { createFormatter, createParser, DEFAULT_CONFIG, SchemaGenerator, type CompletedConfig } from 'ts-json-schema-generator';
import { SEALED_DIGEST_MARK } from '../platform/commitments/commitment';
import { eventsTopic } from '../platform/kafka/topics';
import { declaredEventClasses, pathsOfClass, type FieldClassMap } from '../platform/privacy/field-classes';
import { SEALED_FIELD, SEALED_VALUES } from '../platform/privacy/sealing';
import { REPO_ROOT } from './generated-doc';

/** Relative to the repository's root. */
export const EVENT_SCHEMAS_DIR = 'docs/schemas/events';
export const EVENT_SCHEMA_INDEX = `${EVENT_SCHEMAS_DIR}/index.json`;
export const eventSchemaFile = (module: string): string => `${module}.schema.json`;
/** Modules whose events never leave the tests (test/support/test-ledger). */
const NOT_PUBLISHED = new Set(['test-ledger']);

type Schema = { [key: string]: unknown };
const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The definitions every file shares (names starting with `$` are never an event type). */
const SEALED_FIELD_DEF = SEALED_FIELD; // "$sealed_field"
const SEALED_VALUES_DEF = SEALED_VALUES; // "$sealed_values"
const defRef = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
const SHARED_DEFS: Record<string, Schema> = {
  [SEALED_FIELD_DEF]: {
    description: 'A personal or secret field in committed form: the value is sealed (encrypted under its data subject\'s key) and never published; the reference names the field\'s dotted path.',
    type: 'object',
    properties: { [SEALED_FIELD]: { type: 'string', minLength: 1 } },
    required: [SEALED_FIELD],
    additionalProperties: false,
  },
  [SEALED_VALUES_DEF]: {
    description: 'The event\'s sealed values in committed form: only the lowercase hex SHA-256 of their canonical JSON (docs/audit.md 1.1), which the event commitment covers.',
    type: 'object',
    properties: { [SEALED_DIGEST_MARK]: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    required: [SEALED_DIGEST_MARK],
    additionalProperties: false,
  },
};

/** One declareEventClasses call of a module's privacy file: the module it names and the union it is given. */
interface DeclaredUnion {
  module: string;
  file: string;
  node: ts.TypeNode;
}

function privacyFiles(): string[] {
  const modules = join(REPO_ROOT, 'src/modules');
  return readdirSync(modules)
    .map((m) => join(modules, m, 'domain/privacy.ts'))
    .filter((f) => existsSync(f))
    .sort();
}

function declaredUnions(program: ts.Program, files: string[]): DeclaredUnion[] {
  const unions: DeclaredUnion[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'declareEventClasses') {
        const [union] = node.typeArguments ?? [];
        const [module] = node.arguments;
        if (!union || !module || !ts.isStringLiteral(module)) throw new Error(`${file}: declareEventClasses needs its event union as type argument and its module as a string literal`);
        unions.push({ module: module.text, file, node: union });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return unions;
}

const refName = (s: Schema): string | undefined => (typeof s.$ref === 'string' && s.$ref.startsWith('#/definitions/') ? decodeURIComponent(s.$ref.slice('#/definitions/'.length)) : undefined);

function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (isObject(value)) {
    const name = refName(value);
    if (name) out.add(name);
    for (const v of Object.values(value)) refsIn(v, out);
  }
  return out;
}

/** The definitions on a cycle (JsonValue): kept as shared definitions, every other one inlined. */
function recursiveDefinitions(definitions: Record<string, Schema>): Set<string> {
  const recursive = new Set<string>();
  for (const name of Object.keys(definitions)) {
    const seen = new Set<string>();
    const stack = [...refsIn(definitions[name])];
    while (stack.length) {
      const next = stack.pop() as string;
      if (next === name) {
        recursive.add(name);
        break;
      }
      if (seen.has(next) || !definitions[next]) continue;
      seen.add(next);
      stack.push(...refsIn(definitions[next]));
    }
  }
  return recursive;
}

/** The generator's draft-07 output as draft 2020-12, its references inlined but for recursive ones (`$<Name>`). */
function inlined(value: unknown, definitions: Record<string, Schema>, recursive: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => inlined(v, definitions, recursive));
  if (!isObject(value)) return value;
  const name = refName(value);
  const { $ref: _ref, ...siblings } = value;
  if (name) {
    if (recursive.has(name)) return Object.keys(siblings).length ? { ...(inlined(siblings, definitions, recursive) as Schema), ...defRef(`$${name}`) } : defRef(`$${name}`);
    const target = definitions[name];
    if (!target) throw new Error(`the generator referred to ${name}, which it did not define`);
    return inlined({ ...target, ...siblings }, definitions, recursive);
  }
  const out: Schema = {};
  for (const [key, member] of Object.entries(value)) out[key] = inlined(member, definitions, recursive);
  // Tuples: draft-07 `items: [...]` (+ `additionalItems`) is 2020-12 `prefixItems` (+ `items`).
  if (Array.isArray(out.items)) {
    out.prefixItems = out.items;
    delete out.items;
    if ('additionalItems' in out) {
      out.items = out.additionalItems;
      delete out.additionalItems;
    }
  }
  return out;
}

/** The union's members: event type to the schema of its data (a member may stand for several types). */
function membersOf(schema: Schema, where: string): Map<string, Schema> {
  const out = new Map<string, Schema>();
  const walk = (s: Schema): void => {
    if (Array.isArray(s.anyOf)) {
      for (const branch of s.anyOf as Schema[]) walk(branch);
      return;
    }
    const props = s.properties as Record<string, Schema> | undefined;
    const type = props?.type;
    const data = props?.data;
    if (!type || !data) throw new Error(`${where}: a member of the event union is not { type; data }: ${JSON.stringify(s).slice(0, 200)}`);
    const types = type.const !== undefined ? [type.const] : Array.isArray(type.enum) ? type.enum : [];
    if (types.length === 0 || types.some((t) => typeof t !== 'string')) throw new Error(`${where}: an event union member's type is not a string literal: ${JSON.stringify(type)}`);
    for (const t of types as string[]) {
      if (out.has(t)) throw new Error(`${where}: ${t} is in the union twice`);
      out.set(t, data);
    }
  };
  walk(schema);
  return out;
}

const allowsNull = (s: Schema): boolean =>
  s.type === 'null' ||
  (Array.isArray(s.type) && s.type.includes('null')) ||
  s.const === null ||
  (Array.isArray(s.enum) && s.enum.includes(null)) ||
  (Array.isArray(s.anyOf) && (s.anyOf as Schema[]).some(allowsNull));

const isObjectSchema = (s: Schema): boolean => s.type === 'object' || isObject(s.properties) || Array.isArray(s.anyOf);

/**
 * `data`'s schema in committed form: each personal or secret field's schema is the sealed reference (or null), at
 * every depth its classes descend to, in every object branch of a union.
 */
function sealed(schema: Schema, classes: FieldClassMap, where: string): Schema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as Schema[]).map((b) => (isObjectSchema(b) && !allowsNullOnly(b) ? sealed(b, classes, where) : b)) };
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (!properties) throw new Error(`${where} is not an object with properties: cannot place its sealed fields`);
  const next: Record<string, Schema> = { ...properties };
  for (const [field, c] of Object.entries(classes)) {
    const member = properties[field];
    if (!member) throw new Error(`${where}.${field} is classified but not in the TypeScript type`);
    if (c === 'personal' || c === 'secret') next[field] = allowsNull(member) ? { anyOf: [defRef(SEALED_FIELD_DEF), { type: 'null' }] } : defRef(SEALED_FIELD_DEF);
    else if (typeof c !== 'string' && protectedPaths(c).length > 0) next[field] = sealed(member, c, `${where}.${field}`);
  }
  return { ...schema, properties: next };
}
const allowsNullOnly = (s: Schema): boolean => s.type === 'null';
const protectedPaths = (c: FieldClassMap): string[] => [...pathsOfClass(c, 'personal'), ...pathsOfClass(c, 'secret')];

/** Adds the optional `$sealed_values` member to every object branch of the data. */
function withSealedValues(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as Schema[]).map((b) => (isObject(b.properties) ? withSealedValues(b) : b)) };
  return { ...schema, properties: { ...(schema.properties as Schema), [SEALED_VALUES]: defRef(SEALED_VALUES_DEF) } };
}

/** Deterministic text: every object's keys sorted, `required` sorted; other arrays keep their order. */
function sortedDeep(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => sortedDeep(v));
    return key === 'required' ? [...(items as string[])].sort() : items;
  }
  if (!isObject(value)) return value;
  const out: Schema = {};
  for (const k of Object.keys(value).sort()) out[k] = sortedDeep(value[k], k);
  return out;
}

const textOf = (value: unknown): string => `${JSON.stringify(sortedDeep(value), null, 2)}\n`;

/** The TypeScript program of the modules' privacy files (and all they import), as the generator reads it. */
function programOf(files: string[]): ts.Program {
  const tsconfig = join(REPO_ROOT, 'tsconfig.json');
  const read = ts.readConfigFile(tsconfig, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, REPO_ROOT);
  return ts.createProgram(files, { ...parsed.options, noEmit: true, sourceMap: false });
}

/**
 * Every file's path (relative to the repository's root) and text: docs/schemas/events/<module>.schema.json per module
 * and index.json. Throws when the declared event types and the unions' types differ, or a type cannot be generated.
 */
export function generateEventSchemaFiles(): Map<string, string> {
  const files = privacyFiles();
  const program = programOf(files);
  const config: CompletedConfig = {
    ...DEFAULT_CONFIG,
    expose: 'export',
    topRef: false,
    jsDoc: 'none',
    additionalProperties: false,
    skipTypeCheck: true,
    encodeRefs: false,
    functions: 'fail',
    strictTuples: true,
  };
  const generator = new SchemaGenerator(program, createParser(program, config), createFormatter(config), config);

  const declared = new Map<string, { module: string; fields: FieldClassMap }>();
  for (const d of declaredEventClasses()) if (!NOT_PUBLISHED.has(d.module)) declared.set(d.type, d);

  const byModule = new Map<string, { defs: Record<string, Schema>; shared: Record<string, Schema> }>();
  for (const union of declaredUnions(program, files)) {
    const where = `${union.file.slice(REPO_ROOT.length + 1)} (${union.node.getText().slice(0, 80)})`;
    const generated = generator.createSchemaFromNodes([union.node]) as Schema;
    const definitions = (generated.definitions ?? {}) as Record<string, Schema>;
    const recursive = recursiveDefinitions(definitions);
    const { $schema: _draft, definitions: _defs, ...root } = generated;
    const module = byModule.get(union.module) ?? { defs: {}, shared: {} };
    byModule.set(union.module, module);
    for (const name of recursive) {
      const body = inlined(definitions[name], definitions, recursive) as Schema;
      const known = module.shared[`$${name}`];
      if (known && textOf(known) !== textOf(body)) throw new Error(`${union.module}: two different types are named ${name}`);
      module.shared[`$${name}`] = body;
    }
    for (const [type, data] of membersOf(inlined(root, definitions, recursive) as Schema, where)) {
      const d = declared.get(type);
      if (!d) throw new Error(`${where}: ${type} is in the union but has no field classes`);
      if (d.module !== union.module) throw new Error(`${type} is declared by ${d.module} but in a union of ${union.module}`);
      if (module.defs[type]) throw new Error(`${union.module}: ${type} is in two unions`);
      const protectedData = protectedPaths(d.fields).length > 0;
      module.defs[type] = protectedData ? withSealedValues(sealed(data, d.fields, type)) : data;
    }
  }
  const missing = [...declared.keys()].filter((t) => !byModule.get(declared.get(t)?.module as string)?.defs[t]);
  if (missing.length) throw new Error(`event types declared but in no union a declareEventClasses call names: ${missing.join(', ')}`);

  const out = new Map<string, string>();
  const index: Record<string, string> = {};
  for (const module of [...byModule.keys()].sort()) {
    const { defs, shared } = byModule.get(module) as { defs: Record<string, Schema>; shared: Record<string, Schema> };
    const types = Object.keys(defs).sort();
    const usesSealed = JSON.stringify(defs).includes(`#/$defs/${SEALED_FIELD_DEF}`);
    const file = eventSchemaFile(module);
    for (const t of types) index[t] = `${file}#/$defs/${t}`;
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `platform/kafka/events/${file}`,
      title: `Event data of the ${module} module (the data of an event envelope on ${eventsTopic('platform', module)})`,
      description:
        `The committed form of each ${module} event type's data, generated from its TypeScript type by npm run event-schemas (do not edit). ` +
        'Pick the definition by the envelope\'s `type`: $defs[type] is the schema of its `data` (index.json maps every type to its file). ' +
        'This schema itself validates an object {type, data} (an envelope as a whole), choosing the definition by `type`; an unknown type matches none. ' +
        `Personal and secret fields are published as {"${SEALED_FIELD}": "<path>"} (${SEALED_FIELD_DEF}), their digest in ${SEALED_VALUES} (${SEALED_VALUES_DEF}). ` +
        'Definitions whose name starts with $ are shared parts, not event types. See README.md in this folder.',
      type: 'object',
      required: ['type', 'data'],
      oneOf: types.map((t) => ({ properties: { type: { const: t }, data: defRef(t) }, required: ['type', 'data'] })),
      $defs: { ...defs, ...shared, ...(usesSealed ? SHARED_DEFS : {}) },
    };
    out.set(`${EVENT_SCHEMAS_DIR}/${file}`, textOf(schema));
  }
  out.set(EVENT_SCHEMA_INDEX, textOf(index));
  return out;
}

function main(): void {
  const check = process.argv.includes('--check');
  const started = Date.now();
  const files = generateEventSchemaFiles();
  const dir = join(REPO_ROOT, EVENT_SCHEMAS_DIR);
  const stale: string[] = [];
  for (const [path, text] of files) {
    const file = join(REPO_ROOT, path);
    const committed = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (committed === text) continue;
    stale.push(path);
    if (!check) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, text);
      process.stdout.write(`wrote ${path}\n`);
    }
  }
  // A module's file whose module no longer declares events.
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const path = `${EVENT_SCHEMAS_DIR}/${name}`;
    if (!name.endsWith('.json') || files.has(path)) continue;
    stale.push(path);
    if (!check) {
      rmSync(join(REPO_ROOT, path));
      process.stdout.write(`removed ${path}\n`);
    }
  }
  if (check && stale.length > 0) {
    process.stderr.write(`${stale.join(', ')}: not what the event types declare: run npm run event-schemas and commit the files\n`);
    process.exit(1);
  }
  if (stale.length === 0) process.stdout.write(`${EVENT_SCHEMAS_DIR} is up to date\n`);
  process.stdout.write(`(${files.size} files in ${Date.now() - started} ms)\n`);
}

if (require.main === module) {
  try {
    main();
  } catch (error: unknown) {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  }
}
