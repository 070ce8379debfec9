import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { HookDefinitionBody } from '../../../contracts/job-hook';
import { jobSpecSchema, type JobSpec } from '../../../contracts/job-spec';

/**
 * A hook's template filled from a delivery's body (docs/jobs.md, "Triggers"): each `${name}` in a
 * string of the template becomes the value its JSON pointer reads from the body, and the result must
 * parse as a job spec. What cannot be filled is the sender's problem, answered 422
 * HOOK_DELIVERY_REJECTED naming the placeholder or the spec's path; nothing is started.
 */

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Every placeholder the template's strings use (keys included), for the definition's check. */
export function placeholdersIn(template: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(PLACEHOLDER)) found.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        walk(k);
        walk(child);
      }
    }
  };
  walk(template);
  return found;
}

/** A definition whose template uses a placeholder it does not define, or whose key is none: refused (400). */
export function checkDefinition(body: HookDefinitionBody): void {
  const undefinedOnes = [...placeholdersIn(body.template)].filter((p) => !(p in body.values));
  if (undefinedOnes.length > 0) throw new StrandError(ErrorCode.INVALID_REQUEST, `the template uses placeholders that values does not define: ${undefinedOnes.join(', ')}`, { placeholders: undefinedOnes });
  if (body.key !== undefined && !(body.key in body.values)) throw new StrandError(ErrorCode.INVALID_REQUEST, `key names ${body.key}, which values does not define`);
}

/** RFC 6901: `""` is the whole document, `/a/0/b~1c` reads a → 0 → "b/c". Undefined when a step is missing. */
export function readPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let node = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const step = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(step)) node = node[Number(step)];
    else if (node && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, step)) node = (node as Record<string, unknown>)[step];
    else return undefined;
  }
  return node;
}

function rejected(message: string, details: Record<string, unknown>): StrandError {
  return new StrandError(ErrorCode.HOOK_DELIVERY_REJECTED, message, details);
}

/** Each placeholder's value as text: strings as they are, numbers and booleans spelt, objects and lists as JSON; a missing or null value is refused. */
export function valuesFrom(body: unknown, values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [placeholder, pointer] of Object.entries(values)) {
    const v = readPointer(body, pointer);
    if (v === undefined || v === null) throw rejected(`the delivery has no value for \${${placeholder}} at ${pointer === '' ? 'the body' : pointer}`, { placeholder, pointer });
    out[placeholder] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** The template with every placeholder replaced, parsed as a job spec. */
export function fillTemplate(template: Record<string, unknown>, values: Record<string, string>): JobSpec {
  const fill = (v: unknown): unknown => {
    if (typeof v === 'string') return v.replace(PLACEHOLDER, (_m, name: string) => values[name] ?? _m);
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, child]) => [fill(k) as string, fill(child)]));
    return v;
  };
  const parsed = jobSpecSchema.safeParse(fill(template));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map(String).join('.');
    throw rejected(`the filled template is not a job spec: ${path || '(the spec)'}: ${issue.message}`, { path, issues: parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })) });
  }
  return parsed.data;
}
