/**
 * The projection topics' data contracts (src/platform/kafka/projection-contracts.ts): every published table has a
 * schema file; those whose values are API records are generated from the OpenAPI document and must be what the code
 * declares now (npm run projection-schemas writes them); the conversion is checked on a small document.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { projectionSchemaFiles, projectionTopicsTable, withProjectionTopics } from '../../src/cli/projection-schemas';
import { projectionSchema, type OpenApiDocument } from '../../src/platform/kafka/projection-contracts';

const ROOT = join(__dirname, '../..');
const openapi = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as OpenApiDocument;

describe('projection topic schemas', () => {
  const files = projectionSchemaFiles(openapi);

  it('every published table has its schema file, and the generated ones are current (npm run projection-schemas)', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const f of files) {
      expect(existsSync(join(ROOT, f.path))).toBe(true);
      if (f.text !== null) expect({ path: f.path, text: readFileSync(join(ROOT, f.path), 'utf8') }).toEqual({ path: f.path, text: f.text });
    }
  });

  it("docs/kafka.md's table of projection topics is what the contracts declare (npm run projection-schemas)", () => {
    const doc = readFileSync(join(ROOT, 'docs/kafka.md'), 'utf8');
    expect(withProjectionTopics(doc, projectionTopicsTable())).toBe(doc);
    for (const f of files) expect(doc).toContain(`\`<prefix>.projections.${f.readModel}\``);
  });

  it('every schema file compiles as JSON Schema 2020-12', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    for (const f of files) expect(() => ajv.compile(JSON.parse(readFileSync(join(ROOT, f.path), 'utf8')))).not.toThrow();
  });

  it('converts OpenAPI 3.0 to 2020-12: nullable, example, $ref to $defs, closed records, omitted members', () => {
    const doc: OpenApiDocument = {
      components: {
        schemas: {
          Thing: {
            type: 'object',
            description: 'for the API',
            required: ['id', 'actions', 'child'],
            properties: {
              id: { type: 'string', example: 'a1' },
              note: { type: 'string', nullable: true },
              kind: { type: 'string', enum: ['A', 'B'], nullable: true },
              child: { $ref: '#/components/schemas/Child' },
              maybe: { nullable: true, allOf: [{ $ref: '#/components/schemas/Child' }] },
              actions: { type: 'array', items: { type: 'string' } },
            },
          },
          Child: { type: 'object', properties: { n: { type: 'integer' } } },
        },
      },
    };
    const schema = projectionSchema('things', { title: 'T', key: "the value's id", description: 'A thing.', component: 'Thing', omit: { actions: 'per viewer' } }, doc);
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'platform/kafka/projection-things.schema.json',
      required: ['id', 'child'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', examples: ['a1'] },
        note: { type: ['string', 'null'] },
        kind: { type: ['string', 'null'], enum: ['A', 'B', null] },
        child: { $ref: '#/$defs/Child' },
        maybe: { anyOf: [{ allOf: [{ $ref: '#/$defs/Child' }] }, { type: 'null' }] },
      },
      $defs: { Child: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false } },
    });
    expect((schema.properties as Record<string, unknown>).actions).toBeUndefined();
    expect(schema.description).toMatch(/without actions \(per viewer\).*key = the value's id/);
    const ajv = addFormats(new Ajv2020({ strict: false }));
    const valid = ajv.compile(schema);
    expect(valid({ id: 'x', child: { n: 1 }, note: null, maybe: null })).toBe(true);
    expect(valid({ id: 'x', child: { n: 1 }, extra: 1 })).toBe(false); // closed
    expect(valid({ id: 'x', child: { n: 'one' } })).toBe(false);
    expect(() => projectionSchema('things', { title: 'T', key: 'id', description: '', component: 'Thing', omit: { nope: 'x' } }, doc)).toThrow(/no member nope/);
    expect(() => projectionSchema('things', { title: 'T', key: 'id', description: '', component: 'Missing' }, doc)).toThrow(/Missing/);
  });

  it('leaves out a member of a nested record by its path (. into a member, [] into the items)', () => {
    const doc: OpenApiDocument = {
      components: {
        schemas: {
          Board: { type: 'object', required: ['id', 'rows'], properties: { id: { type: 'string' }, rows: { type: 'array', items: { $ref: '#/components/schemas/Row' } } } },
          Row: { type: 'object', required: ['n', 'reason'], properties: { n: { type: 'integer' }, reason: { type: 'string', nullable: true } } },
        },
      },
    };
    const schema = projectionSchema('boards', { title: 'B', key: 'id', description: 'A board.', component: 'Board', omit: { 'rows[].reason': 'personal' } }, doc);
    expect(schema.$defs).toEqual({ Row: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false } });
    expect(schema.description).toMatch(/without rows\[\]\.reason \(personal\)/);
    const valid = addFormats(new Ajv2020({ strict: false })).compile(schema);
    expect(valid({ id: 'b', rows: [{ n: 1 }] })).toBe(true);
    expect(valid({ id: 'b', rows: [{ n: 1, reason: 'x' }] })).toBe(false);
    expect(() => projectionSchema('boards', { title: 'B', key: 'id', description: '', component: 'Board', omit: { 'rows[].nope': 'x' } }, doc)).toThrow(/no member rows\[\]\.nope/);
    expect(() => projectionSchema('boards', { title: 'B', key: 'id', description: '', component: 'Board', omit: { 'id.x': 'x' } }, doc)).toThrow(/no member id\.x/);
  });
});
