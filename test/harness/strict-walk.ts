import { z } from 'zod';

/**
 * Walks request schemas for keys nobody declared (docs: "strict at every depth"), two ways:
 * `tolerantObjects` reads a schema's JSON Schema and names every object that does not say
 * `additionalProperties: false` (a map, whose keys are the client's own names, gives a schema for its
 * values instead); `unknownKeyPaths` takes a valid example and, for every map in it at any depth,
 * adds a key nobody declared and keeps the paths where the schema still accepts it.
 */
type JsonSchema = Record<string, unknown>;

export function tolerantObjects(schema: z.ZodType, at = 'params'): string[] {
  const doc = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return walk(doc, doc, at, new Set());
}

function resolve(doc: JsonSchema, ref: string): JsonSchema {
  return ref
    .slice(2)
    .split('/')
    .reduce<JsonSchema>((node, key) => node[key] as JsonSchema, doc);
}

function walk(doc: JsonSchema, schema: unknown, at: string, seen: Set<unknown>): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const s = schema as JsonSchema;
  const found: string[] = [];
  if (typeof s.$ref === 'string') found.push(...walk(doc, resolve(doc, s.$ref), at, seen));
  const isObject = s.type === 'object' || 'properties' in s;
  if (isObject) {
    const extra = s.additionalProperties;
    const isMap = !('properties' in s) && extra !== undefined && typeof extra === 'object';
    if (extra !== false && !isMap) found.push(at);
  }
  for (const [key, child] of Object.entries((s.properties as Record<string, unknown>) ?? {})) found.push(...walk(doc, child, `${at}.${key}`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const) {
    const list = s[key];
    if (Array.isArray(list)) list.forEach((child, i) => found.push(...walk(doc, child, `${at}/${key}/${i}`, seen)));
  }
  for (const key of ['items', 'additionalProperties'] as const) if (s[key] && typeof s[key] === 'object') found.push(...walk(doc, s[key], `${at}/${key}`, seen));
  return found;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

/** The paths of every plain map in `value` (the root is `[]`), depth first. */
export function mapPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (Array.isArray(value)) return value.flatMap((v, i) => mapPaths(v, [...path, i]));
  if (!isPlainObject(value)) return [];
  return [path, ...Object.entries(value).flatMap(([k, v]) => mapPaths(v, [...path, k]))];
}

/** Plain maps and vectors copied; anything else (an EDN keyword or set) kept as it is. */
function copyOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyOf);
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyOf(v)]));
  return value;
}

/** A deep copy of `value` with `key: true` added to the map at `path`. */
export function withKeyAt(value: unknown, path: Array<string | number>, key: string): unknown {
  const copy = copyOf(value) as Record<string | number, unknown>;
  const target = path.reduce<Record<string | number, unknown>>((node, k) => node[k] as Record<string | number, unknown>, copy);
  target[key] = true;
  return copy;
}
