/** The e2e response check against the OpenAPI document (test/support/openapi-check.ts) can fail, and says why. */
import { openApiResponseCheck } from '../support/openapi-check';

const doc = {
  paths: {
    '/api/v1/things/{thing_uuid}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '404': { $ref: '#/components/responses/NotFound' },
        },
      },
    },
    '/api/v1/things/latest': { get: { operationId: 'getLatestThing', responses: { '200': { description: 'untyped' } } } },
  },
  components: {
    schemas: {
      Thing: { type: 'object', additionalProperties: false, required: ['id', 'price'], properties: { id: { type: 'string' }, price: { type: 'string', nullable: true, example: '1.5' } } },
      Envelope: { type: 'object', required: ['success'], properties: { success: { type: 'boolean', enum: [false] } } },
    },
    responses: { NotFound: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } } },
  },
};
const json = 'application/json; charset=utf-8';

describe('openApiResponseCheck', () => {
  const check = openApiResponseCheck(doc);

  it('given a body that matches the declared schema (null where nullable), then it passes', () => {
    expect(check.check('GET', '/api/v1/things/abc?x=1', 200, '{"id":"abc","price":null}', json)).toBeNull();
    expect(check.check('GET', '/api/v1/things/abc', 404, '{"success":false}', json)).toBeNull();
  });

  it('given a body with a field the schema does not allow, or one missing, then it names the operation and the mismatch', () => {
    expect(check.check('GET', '/api/v1/things/abc', 200, '{"id":"abc","price":"1","extra":1}', json)).toMatch(/^getThing 200: .*additional properties/);
    expect(check.check('GET', '/api/v1/things/abc', 200, '{"price":"1"}', json)).toMatch(/must have required property 'id'/);
    expect(check.check('GET', '/api/v1/things/abc', 404, '{"success":true}', json)).toMatch(/getThing 404/);
  });

  it('given a status the operation does not declare, then it says so', () => {
    expect(check.check('GET', '/api/v1/things/abc', 409, '{}', json)).toBe('getThing answered 409, which it does not declare (declared: 200, 404)');
  });

  it('matches a literal path before a template, and leaves routes outside the document alone', () => {
    expect(check.check('GET', '/api/v1/things/latest', 200, 'anything', 'text/plain')).toBeNull();
    expect(check.check('GET', '/docs', 200, '<html>', 'text/html')).toBeNull();
  });
});

describe('openApiResponseCheck on a schema that does not close itself', () => {
  it('refuses a field the document does not declare', () => {
    const open = { paths: { '/x': { get: { operationId: 'getX', responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } } } } } } };
    expect(openApiResponseCheck(open).check('GET', '/x', 200, '{"a":"1"}', json)).toBeNull();
    expect(openApiResponseCheck(open).check('GET', '/x', 200, '{"a":"1","b":2}', json)).toMatch(/additional properties/);
  });
});

describe('openApiResponseCheck and OpenAPI 3.0 nullable references', () => {
  it('accepts null or the referenced object where a nullable property refers to a schema', () => {
    const d = {
      paths: { '/w': { get: { operationId: 'getW', responses: { '200': { content: { 'application/json': { schema: { type: 'object', properties: { w: { nullable: true, type: 'object', allOf: [{ $ref: '#/components/schemas/W' }] } } } } } } } } } },
      components: { schemas: { W: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } },
    };
    const c = openApiResponseCheck(d);
    expect(c.check('GET', '/w', 200, '{"w":null}', json)).toBeNull();
    expect(c.check('GET', '/w', 200, '{"w":{"id":"1"}}', json)).toBeNull();
    expect(c.check('GET', '/w', 200, '{"w":{"id":1}}', json)).toMatch(/getW 200/);
  });
});
