import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/** One answer as a client received it; SSE answers give their frames instead of a text. */
export interface Answer {
  method: string;
  /** The path without the query (`/api/sessions/abc/events`). */
  path: string;
  status: number;
  contentType: string | null;
  text?: string;
  frames?: Array<{ event: string; data: string }>;
}

type Json = any;

const segment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

function resolve(doc: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: Json, key) => node?.[key], doc);
}

/**
 * Checks real answers against an OpenAPI document: the route and status are documented, the content
 * type is one the status lists, and the body (each frame's `data` for an event stream) validates
 * against the document's JSON Schema for it. Records which operation answered which status, and
 * which error codes were seen, so a test can tell what it has not exercised yet.
 */
export class OpenApiCheck {
  /** `operationId status` pairs answered so far. */
  readonly answered = new Set<string>();
  /** Error codes seen in error bodies, with the status they came with. */
  readonly codes = new Map<string, number>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: Array<{ method: string; re: RegExp; pointer: string; op: Json }> = [];

  constructor(private readonly doc: Json) {
    this.ajv.addSchema(doc, 'openapi.json');
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      const re = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries<Json>(item)) this.operations.push({ method: method.toUpperCase(), re, pointer: `#/paths/${segment(template)}/${method}`, op });
    }
  }

  /** Every operation id of the document. */
  operationIds(): string[] {
    return this.operations.map((o) => o.op.operationId as string);
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (!v) this.validators.set(pointer, (v = this.ajv.compile({ $ref: `openapi.json${pointer}` })));
    return v;
  }

  private validate(pointer: string, value: unknown, what: string): string[] {
    const v = this.validator(pointer);
    return v(value) ? [] : [`${what} does not match ${pointer}: ${this.ajv.errorsText(v.errors, { separator: '; ' })} — got ${JSON.stringify(value).slice(0, 400)}`];
  }

  /** What is wrong with `answer` according to the document (nothing: an empty list). */
  problems(answer: Answer): string[] {
    const where = `${answer.method} ${answer.path} → ${answer.status}`;
    const found = this.operations.find((o) => o.method === answer.method && o.re.test(answer.path));
    if (!found) return [`${where}: no such operation in the document`];
    let response = found.op.responses[String(answer.status)];
    let pointer = `${found.pointer}/responses/${answer.status}`;
    if (!response) return [`${where}: status not documented for ${found.op.operationId} (${Object.keys(found.op.responses).join(', ')})`];
    if (response.$ref) [pointer, response] = [response.$ref, resolve(this.doc, response.$ref)];
    this.answered.add(`${found.op.operationId} ${answer.status}`);
    if (!response.content) return answer.text ? [`${where}: a body, but the document says none`] : [];
    const type = (answer.contentType ?? '').split(';')[0]!.trim();
    const media = response.content[type];
    if (!media) return [`${where}: content type "${type}" not documented (${Object.keys(response.content).join(', ')})`];
    if (!media.schema || media.schema.type === 'string') return [];
    const schemaAt = `${pointer}/content/${segment(type)}/schema`;
    if (type === 'text/event-stream') {
      return (answer.frames ?? []).flatMap((f, i) => {
        const data = JSON.parse(f.data);
        const named = f.event === 'message' || f.event === data.type ? [] : [`${where}: frame ${i} is event "${f.event}" with data type "${data.type}"`];
        return [...named, ...this.validate(schemaAt, data, `${where} frame ${i}`)];
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(answer.text ?? '');
    } catch {
      return [`${where}: body is not JSON: ${(answer.text ?? '').slice(0, 200)}`];
    }
    const code = (body as { error?: { code?: unknown } }).error?.code;
    if (typeof code === 'string') this.codes.set(code, answer.status);
    return this.validate(schemaAt, body, where);
  }
}
