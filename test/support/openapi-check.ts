/**
 * Every response an e2e test receives is checked against the OpenAPI document the app serves (issue 20): the
 * operation is found by method and path template, the status must be one the operation declares, and a body the
 * document gives a schema for must match it (ajv, strict about the document's own keywords). A mismatch fails the
 * test that made the request, naming the operation, the status and what did not match.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: object }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, Response>; schemas?: Record<string, object> };
}

export interface ResponseCheck {
  /** Null when the response conforms; otherwise why not. */
  check(method: string, url: string, status: number, body: string, contentType: string | undefined): string | null;
  /** The operationId when the document declares this status without a body schema (a body still to be typed). */
  untyped(method: string, url: string, status: number): string | null;
  /** The operationId this request reaches, or null (not an API operation). */
  operationOf(method: string, url: string): string | null;
}

export function openApiResponseCheck(document: Document): ResponseCheck {
  const ajv = new Ajv({ strict: true, allErrors: true, validateFormats: true });
  addFormats(ajv);
  // OpenAPI 3.0 keywords that are annotations, not assertions.
  for (const keyword of ['example', 'xml', 'externalDocs', 'discriminator']) ajv.addKeyword(keyword);
  const schemas = (document as { components?: { schemas?: Record<string, object> } }).components?.schemas ?? {};
  ajv.addSchema(closed(rebase({ $id: 'openapi.json', $defs: schemas })));
  const routes = Object.entries(document.paths).map(([template, item]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}$`),
    item,
    literal: !template.includes('{'),
  }));
  // Literal paths win over templates (/workspaces/active before /workspaces/{workspace_id}).
  routes.sort((a, b) => Number(b.literal) - Number(a.literal));
  const compiled = new Map<string, ValidateFunction>();

  const resolve = (r: Response): Response => (r.$ref ? (document.components?.responses?.[r.$ref.split('/').pop() as string] ?? r) : r);

  const find = (method: string, url: string) => routes.find((r) => r.pattern.test(url.split('?')[0]) && r.item[method.toLowerCase()])?.item[method.toLowerCase()];
  return {
    operationOf(method, url) {
      return find(method, url)?.operationId ?? null;
    },
    untyped(method, url, status) {
      const operation = find(method, url);
      const declared = operation?.responses[String(status)];
      return operation && declared && !resolve(declared).content ? operation.operationId : null;
    },
    check(method, url, status, body, contentType) {
      const path = url.split('?')[0];
      const route = routes.find((r) => r.pattern.test(path) && r.item[method.toLowerCase()]);
      if (!route) return null; // not an API operation (the docs page, an unknown route's 404)
      const operation = route.item[method.toLowerCase()];
      const declared = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
      if (!declared) return `${operation.operationId} answered ${status}, which it does not declare (declared: ${Object.keys(operation.responses).join(', ')})`;
      const schema = resolve(declared).content?.['application/json']?.schema;
      if (!schema) return null;
      if (!/^application\/json/.test(contentType ?? '')) return `${operation.operationId} ${status}: declared JSON, answered ${contentType}`;
      const key = `${operation.operationId} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(closed(rebase(schema)));
        compiled.set(key, validate);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return `${key}: the body is not JSON`;
      }
      if (validate(parsed)) return null;
      return `${key}: ${ajv.errorsText(validate.errors, { separator: '; ' })}; body ${body.slice(0, 300)}`;
    },
  };
}

/**
 * Strict about answers: an object schema that lists its properties allows no others unless it says so, so a field
 * the document does not declare fails the check (the document, not the code, is the contract).
 */
function closed<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(closed) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.properties && out.additionalProperties === undefined && !out.allOf && !out.oneOf && !out.anyOf) out.additionalProperties = false;
  // OpenAPI 3.0's `nullable` beside a reference (`allOf: [$ref]`, or no `type`): null or the referenced schema.
  if (out.nullable === true && (out.type === undefined || out.allOf !== undefined)) {
    const { nullable: _nullable, ...rest } = out;
    return { anyOf: [{ type: 'null' }, rest] } as T;
  }
  return out as T;
}

/** Points the document's `#/components/schemas/...` references at the registered schemas. */
function rebase(schema: object): object {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\/components\/schemas\//g, '"$ref":"openapi.json#/$defs/'));
}
