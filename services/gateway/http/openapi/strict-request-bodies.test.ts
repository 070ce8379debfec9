import { appWithFakes } from './app-with-fakes';

/**
 * Every request body the served OpenAPI document describes is strict at every depth: each object
 * schema with named properties says `additionalProperties: false`, and each map (an object whose keys
 * are the client's own names, such as `mcp_servers` or an MCP server's `env`) gives a schema for its
 * values. A nested object that tolerates unknown keys is how `{"approval": {"policy": "plan"}}` once
 * answered 200 and changed nothing.
 */

const app = appWithFakes;

type JsonSchema = Record<string, unknown>;

/** The schema a local `$ref` (`#/components/schemas/X`) points at. */
function resolve(doc: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<JsonSchema>((node, key) => node[key] as JsonSchema, doc);
}

/** Where below `schema` an object accepts keys nobody declared (a JSON-pointer-like path for each). */
function tolerantObjects(doc: JsonSchema, schema: unknown, at: string, seen = new Set<unknown>()): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const s = schema as JsonSchema;
  const found: string[] = [];
  if (typeof s.$ref === 'string') found.push(...tolerantObjects(doc, resolve(doc, s.$ref), `${at}→${s.$ref}`, seen));
  const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object')) || 'properties' in s;
  if (isObject) {
    const extra = s.additionalProperties;
    const isMap = !('properties' in s) && extra !== undefined && typeof extra === 'object';
    if (extra !== false && !isMap) found.push(at);
  }
  for (const [key, child] of Object.entries((s.properties as Record<string, unknown>) ?? {})) found.push(...tolerantObjects(doc, child, `${at}.${key}`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((child, i) => found.push(...tolerantObjects(doc, child, `${at}/${key}/${i}`, seen)));
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    if (s[key] && typeof s[key] === 'object') found.push(...tolerantObjects(doc, s[key], `${at}/${key}`, seen));
  }
  return found;
}

test('every request body object schema in the served document refuses unknown keys, at every depth', async () => {
  const res = await app().request('/api/openapi.json');
  expect(res.status).toBe(200);
  const doc = (await res.json()) as JsonSchema;
  const bodies: Array<{ where: string; schema: unknown }> = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) bodies.push({ where: `${method.toUpperCase()} ${path} (${type})`, schema: media.schema });
    }
  }
  // The walk has something to check: the bodies the settings, prompt and session routes take.
  expect(bodies.map((b) => b.where)).toEqual(expect.arrayContaining(['PATCH /api/sessions/{id}/settings (application/json)', 'POST /api/sessions (application/json)']));
  const tolerant = bodies.flatMap(({ where, schema }) => tolerantObjects(doc, schema, 'body').map((at) => `${where}: ${at}`));
  expect(tolerant).toEqual([]);
});
