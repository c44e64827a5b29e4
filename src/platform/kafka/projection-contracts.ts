/**
 * Data contracts of the projection topics (`<prefix>.projections.<read-model>`): each published table says what its
 * values are (ProjectionContract, on its ProjectionOutbox), and `projectionSchema` turns that into the JSON Schema
 * (draft 2020-12) checked in as docs/schemas/projection-<read-model>.schema.json. The value of a topic is the record
 * as the API shows it, so its schema is derived from the API's own definition: the OpenAPI component of the record
 * (docs/openapi.json, generated from the DTOs that validate and document the routes), less the members the topic
 * leaves out. Pure: the CLI (`npm run projection-schemas`) and the test that keeps the files current call it.
 */

export interface ProjectionContract {
  /** One line: what a message value is. */
  title: string;
  /** What the message key is (the row's id), e.g. "the value's order_uuid". */
  key: string;
  /** What a reader needs beyond the fields: what one message stands for, how it relates to the API. */
  description: string;
  /**
   * The OpenAPI component (docs/openapi.json `components.schemas`) the value is an instance of. Absent: the value is
   * no API record and its schema is written by hand in docs/schemas (the wallet budgets' reservation rows).
   */
  component?: string;
  /**
   * Members of the component the topic leaves out (per-viewer `actions`, personal fields), each with why. A member of
   * a nested record is named by its path: `.` steps into a member, `[]` into an array's items (`leaderboard[].reason`);
   * the record it is left out of is a component, so it is left out wherever this topic's value holds that component.
   */
  omit?: Readonly<Record<string, string>>;
  /** Message headers beyond `read_model`, `position`, `event_id` (and `snapshot` on seeds), each with what it holds. */
  headers?: Readonly<Record<string, string>>;
}

type Schema = Record<string, unknown>;
export interface OpenApiDocument {
  components: { schemas: Record<string, Schema> };
}

const REF = '#/components/schemas/';
const STANDARD_HEADERS = 'read_model (the topic\'s read model), position (global log position of the event that made the change; per key it never decreases), event_id (that event; on a seed message, header snapshot: true, the seed\'s id)';

/** The file a topic's schema is checked in as, relative to the repository root. */
export const projectionSchemaPath = (readModel: string): string => `docs/schemas/projection-${readModel}.schema.json`;

/**
 * The JSON Schema of a projection topic's values: the component converted from OpenAPI 3.0 to JSON Schema 2020-12
 * (`nullable` to a `null` type, `example` to `examples`, component references to `$defs`), closed
 * (`additionalProperties: false`) wherever the API's record lists its members, with the omitted members removed.
 */
export function projectionSchema(readModel: string, contract: ProjectionContract, openapi: OpenApiDocument): Schema {
  if (!contract.component) throw new Error(`projection ${readModel} has no OpenAPI component: its schema is written by hand`);
  const defs: Record<string, Schema> = {};
  const component = (name: string): Schema => {
    const found = openapi.components.schemas[name];
    if (!found) throw new Error(`projection ${readModel}: OpenAPI component ${name} is not in the document`);
    return found;
  };
  const convert = (s: Schema): Schema => {
    if (typeof s.$ref === 'string') {
      const name = s.$ref.slice(REF.length);
      if (!(name in defs)) {
        defs[name] = {}; // reserved first: a component that refers to itself
        defs[name] = convert(component(name));
      }
      return { $ref: `#/$defs/${name}` };
    }
    const out: Schema = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'nullable' || k === 'example') continue;
      if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Record<string, Schema>).map(([p, ps]) => [p, convert(ps)]));
      else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object' && v !== null)) out[k] = convert(v as Schema);
      else if (k === 'allOf' || k === 'oneOf' || k === 'anyOf') out[k] = (v as Schema[]).map(convert);
      else out[k] = v;
    }
    if (s.example !== undefined) out.examples = [s.example];
    if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
    if (s.nullable !== true) return out;
    // A nullable record that is a component (`allOf: [{$ref}]`, as @nestjs/swagger writes it): null must not have to
    // pass the component's own `type: object` too, so only a plain typed schema takes `null` into its type.
    if (typeof out.type === 'string' && !out.allOf && !out.anyOf && !out.oneOf) {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      return out;
    }
    return { anyOf: [out, { type: 'null' }] };
  };
  const root = convert({ ...component(contract.component) });
  const omit = contract.omit ?? {};
  /** A converted schema with its `$defs` reference (and a nullable or described `allOf` of one) followed. */
  const resolved = (s: Schema): Schema => {
    if (typeof s.$ref === 'string') return defs[s.$ref.slice('#/$defs/'.length)] ?? s;
    const [only] = (Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.allOf) ? s.allOf : []) as Schema[];
    return only && (s.allOf ? (s.allOf as Schema[]).length === 1 : true) && !s.properties ? resolved(only) : s;
  };
  for (const path of Object.keys(omit)) {
    const steps = path.split('.');
    const member = steps.pop()!;
    let record: Schema | undefined = root;
    for (const step of steps) {
      const into = step.endsWith('[]');
      const at: Schema | undefined = (resolved(record!).properties as Record<string, Schema> | undefined)?.[into ? step.slice(0, -2) : step];
      record = at && (into ? (resolved(at).items as Schema | undefined) : at);
      if (!record) break;
    }
    const target = record && resolved(record);
    const properties = target?.properties as Record<string, Schema> | undefined;
    if (!target || !properties || !(member in properties)) throw new Error(`projection ${readModel}: ${contract.component} has no member ${path} to omit`);
    delete properties[member];
    if (Array.isArray(target.required)) target.required = target.required.filter((r) => r !== member);
  }
  const headers = Object.entries(contract.headers ?? {}).map(([h, what]) => `${h} (${what})`);
  const left = Object.entries(omit).map(([m, why]) => `${m} (${why})`);
  const description = [
    contract.description,
    `The ${contract.component} record of the API${left.length ? `, without ${left.join(', ')}` : ''}.`,
    `Log-compacted; key = ${contract.key}; a null value is a tombstone (the row was deleted).`,
    `Headers: ${[STANDARD_HEADERS, ...headers].join('; ')}.`,
  ].join(' ');
  delete root.description; // the component's own, for the API: the topic's says more
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `platform/kafka/projection-${readModel}.schema.json`,
    title: contract.title,
    description,
    ...root,
    ...(Object.keys(defs).length ? { $defs: Object.fromEntries(Object.keys(defs).sort().map((n) => [n, defs[n]])) } : {}),
  };
}

/** The file's text: two-space JSON with a final newline, as every generated document. */
export const schemaText = (schema: Schema): string => `${JSON.stringify(schema, null, 2)}\n`;
