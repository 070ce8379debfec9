/**
 * A JSON Schema (2020-12) of the parts of OpenAPI 3.1 this gateway's document uses, written from the
 * specification (https://spec.openapis.org/oas/v3.1.0): required fields, the allowed values of `in`,
 * `type` and status keys, and no unknown keys where the specification allows none (extensions `x-`
 * excepted). Tests check the generated document against it; the schemas inside the document are
 * checked by compiling them.
 */
const ext = { '^x-': {} };
const text = { type: 'string' };
const ref = { type: 'object', required: ['$ref'], properties: { $ref: { type: 'string', pattern: '^#/' } }, additionalProperties: false };
const schemaObject = { type: ['object', 'boolean'] };

const header = { type: 'object', properties: { description: text, required: { type: 'boolean' }, schema: schemaObject }, patternProperties: ext, additionalProperties: false };

const mediaType = { type: 'object', properties: { schema: schemaObject, example: {}, examples: { type: 'object' } }, patternProperties: ext, additionalProperties: false };
const content = { type: 'object', propertyNames: { pattern: '^[a-z*]+/[a-z0-9.+*-]+$' }, additionalProperties: { $ref: '#/$defs/mediaType' } };

const response = {
  type: 'object',
  required: ['description'],
  properties: { description: text, headers: { type: 'object', additionalProperties: { anyOf: [{ $ref: '#/$defs/header' }, { $ref: '#/$defs/ref' }] } }, content },
  patternProperties: ext,
  additionalProperties: false,
};

const parameter = {
  type: 'object',
  required: ['name', 'in', 'schema'],
  properties: {
    name: text,
    in: { enum: ['query', 'header', 'path', 'cookie'] },
    description: text,
    required: { type: 'boolean' },
    schema: schemaObject,
  },
  // A path parameter must say it is required (OpenAPI 3.1, "Parameter Object").
  if: { properties: { in: { const: 'path' } } },
  then: { required: ['required'], properties: { required: { const: true } } },
  patternProperties: ext,
  additionalProperties: false,
};

const securityRequirement = { type: 'object', additionalProperties: { type: 'array', items: text } };

const operation = {
  type: 'object',
  required: ['operationId', 'responses'],
  properties: {
    operationId: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
    summary: text,
    description: text,
    tags: { type: 'array', items: text },
    parameters: { type: 'array', items: { $ref: '#/$defs/parameter' } },
    requestBody: {
      type: 'object',
      required: ['content'],
      properties: { description: text, required: { type: 'boolean' }, content },
      additionalProperties: false,
    },
    responses: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^([1-5][0-9][0-9]|[1-5]XX|default)$' },
      additionalProperties: { anyOf: [{ $ref: '#/$defs/response' }, { $ref: '#/$defs/ref' }] },
    },
    security: { type: 'array', items: securityRequirement },
    deprecated: { type: 'boolean' },
  },
  patternProperties: ext,
  additionalProperties: false,
};

const pathItem = {
  type: 'object',
  propertyNames: { enum: ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'summary', 'description', 'parameters'] },
  additionalProperties: { $ref: '#/$defs/operation' },
};

export const OPENAPI_STRUCTURE = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: text, version: text, description: text, license: { type: 'object', required: ['name'], properties: { name: text, identifier: text } } },
      additionalProperties: false,
    },
    jsonSchemaDialect: { type: 'string', pattern: '^https?://' },
    tags: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: text, description: text }, additionalProperties: false } },
    security: { type: 'array', items: securityRequirement },
    // Paths start with a slash (`/` alone is the chat page); every segment is a literal or a whole `{name}` template.
    paths: { type: 'object', propertyNames: { pattern: '^(/|(/([A-Za-z0-9._-]+|\\{[A-Za-z0-9_]+\\}))+)$' }, additionalProperties: { $ref: '#/$defs/pathItem' } },
    components: {
      type: 'object',
      properties: {
        schemas: { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9._-]+$' }, additionalProperties: schemaObject },
        responses: { type: 'object', propertyNames: { pattern: '^[A-Za-z0-9._-]+$' }, additionalProperties: { $ref: '#/$defs/response' } },
        securitySchemes: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['type'],
            properties: { type: { enum: ['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect'] }, scheme: text, bearerFormat: text, description: text },
            // An http scheme names its scheme (OpenAPI 3.1, "Security Scheme Object").
            if: { properties: { type: { const: 'http' } } },
            then: { required: ['scheme'], properties: { scheme: { type: 'string', minLength: 1 } } },
          },
        },
      },
      additionalProperties: false,
    },
  },
  patternProperties: ext,
  additionalProperties: false,
  $defs: { ref, header, mediaType, response, parameter, operation, pathItem },
} as const;
