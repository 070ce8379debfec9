import { z } from 'zod';

/**
 * Request bodies are strict at every depth: an unknown key anywhere in what a client sends is refused,
 * naming its path (`approval.policy: unrecognized key`), never silently dropped. zod's `z.object`
 * strips unknown keys, so a nested typo (`{"approval": {"policy": "plan"}}`) used to answer 200 and
 * change nothing.
 *
 * Why one deep function rather than `.strict()` on each object: request schemas share parts with
 * stored data, config files and replies (budgets, MCP server configs), and those readers must stay
 * tolerant. `strictRequest` derives a strict copy of a whole request
 * schema where it is used as a request, leaving the shared parts as they are, and no nested object
 * can be forgotten (a new field's object is strict the day it is added).
 *
 * An object that already says what its other keys are (`.catchall(...)`, `.passthrough()`,
 * `z.looseObject`) keeps that: it is a deliberate choice, and its known fields are still walked.
 */

const strictCopies = new WeakMap<z.ZodType, z.ZodType>();

/** A copy of `schema` whose every object (at every depth, through unions, arrays, records, optionals…) refuses unknown keys. */
export function strictRequest<S extends z.ZodType>(schema: S): S {
  return strictCopy(schema) as S;
}

function strictCopy(schema: z.ZodType): z.ZodType {
  const known = strictCopies.get(schema);
  if (known) return known;
  const copy = copyOf(schema);
  strictCopies.set(schema, copy);
  return copy;
}

/** A clone keeping the schema's checks and (through `parent`) its metadata, with strict children. */
function cloneWith(schema: z.ZodType, changes: Record<string, unknown>): z.ZodType {
  // `clone` with `parent` keeps descriptions and examples (the registries read them through the parent)
  // but not a component id, so a strict copy of a named schema is inlined, not confused with the original.
  return schema.clone({ ...schema._zod.def, ...changes } as typeof schema._zod.def, { parent: true });
}

function copyOf(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(Object.entries(def.shape as Record<string, z.ZodType>).map(([k, v]) => [k, strictCopy(v)]));
      const catchall = def.catchall as z.ZodType | undefined;
      return cloneWith(schema, { shape, catchall: catchall ? strictCopy(catchall) : z.never() });
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'catch':
    case 'readonly':
      return cloneWith(schema, { innerType: strictCopy(def.innerType as z.ZodType) });
    case 'array':
      return cloneWith(schema, { element: strictCopy(def.element as z.ZodType) });
    case 'union':
      return cloneWith(schema, { options: (def.options as z.ZodType[]).map(strictCopy) });
    case 'intersection':
      return cloneWith(schema, { left: strictCopy(def.left as z.ZodType), right: strictCopy(def.right as z.ZodType) });
    case 'record':
      return cloneWith(schema, { keyType: strictCopy(def.keyType as z.ZodType), valueType: strictCopy(def.valueType as z.ZodType) });
    case 'tuple':
      return cloneWith(schema, { items: (def.items as z.ZodType[]).map(strictCopy), rest: def.rest ? strictCopy(def.rest as z.ZodType) : null });
    case 'pipe':
      return cloneWith(schema, { in: strictCopy(def.in as z.ZodType), out: strictCopy(def.out as z.ZodType) });
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      return cloneWith(schema, { getter: () => strictCopy(getter()) });
    }
    default:
      // Scalars, enums, literals, unknown, transforms: nothing below them can hold a key.
      return schema;
  }
}

/**
 * One line per problem, each naming where it is: `approval.policy: unrecognized key`. zod reports
 * unknown keys once per object with the object's path; a client needs each key's own path.
 */
export function describeRequestIssues(error: z.ZodError, whole = 'body'): string {
  return error.issues
    .flatMap((issue) => {
      if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${pathText([...issue.path, key], whole)}: unrecognized key`);
      return [`${pathText(issue.path, whole)}: ${issue.message}`];
    })
    .join('; ');
}

function pathText(path: readonly PropertyKey[], whole: string): string {
  return path.map(String).join('.') || whole;
}
