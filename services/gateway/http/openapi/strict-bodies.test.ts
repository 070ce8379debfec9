import { createGatewayAuth } from '../../auth/tokens';
import { createHttpApp, type HttpDeps } from '../app';
import { buildOpenApiDocument } from './build-document';

/**
 * Bad input gets a clear error: every request body the document publishes refuses unknown keys at
 * every depth (`additionalProperties: false` on each object with properties), so a misspelt or
 * misplaced field is a 400 naming it, never a 200 that silently changed nothing.
 */
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; additionalProperties?: boolean | Schema; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; $ref?: string };

const deps = {
  sessions: {},
  transcripts: {},
  store: {},
  nc: {},
  temporal: {},
  keepaliveMs: 15_000,
  maxBodyBytes: 1024,
  log: { error: () => undefined, warn: () => undefined },
  auth: createGatewayAuth(new Map([['tok', 'alice']])),
  rateLimit: { perSecond: 1000, burst: 1000 },
} as unknown as HttpDeps;
const doc = buildOpenApiDocument(createHttpApp(deps)) as unknown as {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
};

/** Every object schema below `schema` (refs followed once) that has properties but takes any other key: their paths. */
function looseObjects(schema: Schema, at: string, seen = new Set<string>()): string[] {
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return [];
    seen.add(schema.$ref);
    const target = doc.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')];
    return target ? looseObjects(target, at, seen) : [`${at}: unresolved ${schema.$ref}`];
  }
  const out: string[] = [];
  if (schema.properties && schema.additionalProperties !== false) out.push(at || '(the body)');
  for (const [key, child] of Object.entries(schema.properties ?? {})) out.push(...looseObjects(child, `${at}${at ? '.' : ''}${key}`, seen));
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out.push(...looseObjects(schema.additionalProperties, `${at}.*`, seen));
  if (schema.items) out.push(...looseObjects(schema.items, `${at}[]`, seen));
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) out.push(...looseObjects(alt, at, seen));
  return out;
}

test('every request body refuses unknown keys at every depth', () => {
  const bodies = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => (op.requestBody ? [{ route: `${method.toUpperCase()} ${path}`, schema: op.requestBody.content['application/json']!.schema }] : [])),
  );
  expect(bodies.length).toBeGreaterThanOrEqual(10);
  const loose = bodies.flatMap((b) => looseObjects(b.schema, '').map((where) => `${b.route}: ${where}`));
  expect(loose).toEqual([]);
});
