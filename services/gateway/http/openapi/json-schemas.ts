import { z } from 'zod';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = Record<string, unknown>;

export type SchemaIo = 'input' | 'output';

const COMPONENTS = '#/components/schemas/';

const options = (io: SchemaIo) => ({ target: 'draft-2020-12' as const, io, unrepresentable: 'any' as const });

/** Drops the keys that only make sense at the root of a stand-alone schema document. */
function asComponent(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * The `components.schemas` of the document, from zod schemas: each request body is described as a
 * client writes it (`io: input`: defaults optional), each reply as the gateway sends it (`output`).
 * A schema registered here is emitted once and referenced everywhere it appears, also inside other
 * components (that is how the recursive content blocks of messages stay finite).
 */
export class SchemaComponents {
  private readonly names = new Map<z.ZodType, { name: string; io: SchemaIo }>();
  private readonly taken = new Set<string>();

  /**
   * `shared` are schemas used by several replies, registered first under these names so every reply
   * refers to one component instead of repeating it.
   */
  constructor(shared: ReadonlyArray<readonly [z.ZodType, string]>) {
    for (const [schema, name] of shared) this.register(schema, name, 'output');
  }

  private register(schema: z.ZodType, name: string, io: SchemaIo): string {
    const known = this.names.get(schema);
    if (known) {
      if (known.io !== io) throw new Error(`schema ${known.name} is used both as a request and as a reply: give each use its own zod value`);
      return known.name;
    }
    if (this.taken.has(name)) throw new Error(`two different schemas want the component name ${name}`);
    this.taken.add(name);
    this.names.set(schema, { name, io });
    return name;
  }

  /** A `$ref` to `schema`, registered under `name` unless it already has one. */
  ref(schema: z.ZodType, name: string, io: SchemaIo): JsonSchema {
    return { $ref: `${COMPONENTS}${this.register(schema, name, io)}` };
  }

  /** Every registered schema as JSON Schema, by component name. */
  render(): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    for (const io of ['input', 'output'] as const) {
      const registry = z.registry<{ id: string }>();
      for (const [schema, entry] of this.names) if (entry.io === io) registry.add(schema, { id: entry.name });
      const { schemas } = z.toJSONSchema(registry, { ...options(io), uri: (id) => `${COMPONENTS}${id}` });
      for (const [name, schema] of Object.entries(schemas)) {
        // zod puts sub-schemas it must share (cycles) under `__shared`, which a component ref cannot reach.
        if (name === '__shared') throw new Error(`a recursive schema has no component name: register it (${Object.keys((schema as JsonSchema).$defs ?? {}).join(', ')})`);
        out[name] = asComponent(schema as JsonSchema);
      }
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }
}

/**
 * A small schema written inline (a query or header parameter): it must not refer to anything,
 * since a `#/$defs/...` pointer inside an OpenAPI document would point at the document's root.
 */
export function inlineSchema(schema: z.ZodType, io: SchemaIo): JsonSchema {
  const json = asComponent(z.toJSONSchema(schema, options(io)) as JsonSchema);
  const text = JSON.stringify(json);
  if (text.includes('"$ref"') || text.includes('"$defs"')) throw new Error(`an inline schema refers to other schemas: ${text.slice(0, 200)}`);
  return json;
}
