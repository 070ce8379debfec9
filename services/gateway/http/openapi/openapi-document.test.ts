import Ajv2020 from 'ajv/dist/2020';
import { inspectRoutes } from 'hono/dev';
import { agentEventSchema, type AgentEvent } from '../../../../contracts/agent-events';
import { transcriptFormatSchema } from '../../../../contracts/http-api';
import { toHttpEvent } from '../../mapping/http-events';
import { TRANSCRIPT_FORMATS } from '../../transcripts/render';
import { appWithFakes } from './app-with-fakes';
import { buildOpenApiDocument } from './build-document';
import { OPENAPI_STRUCTURE } from './openapi-structure';

/**
 * The document against the app: it lists exactly the routes the Hono app registers, it is a
 * well-formed OpenAPI 3.1 document whose every `$ref` resolves and whose every schema compiles, and
 * the SSE union it publishes is what the event mapper really sends.
 */

const doc = buildOpenApiDocument(appWithFakes()) as any;

/** `/api/sessions/:id` → `/api/sessions/{id}`. */
const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

test('the document lists exactly the routes the app registers, each once', () => {
  const registered = inspectRoutes(appWithFakes())
    .filter((r) => !r.isMiddleware)
    .map((r) => `${r.method} ${openApiPath(r.path)}`);
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
  expect(new Set(registered).size).toBe(registered.length);
  expect([...registered].sort()).toEqual([...documented].sort());
  const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((item) => Object.values(item).map((op) => op.operationId));
  expect(new Set(ids).size).toBe(documented.length);
});

const pointerSegment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every `$ref` in the document, with where it is (a JSON pointer to the object holding it). */
function refsOf(value: unknown, at = '#'): Array<{ at: string; ref: string }> {
  if (Array.isArray(value)) return value.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ at, ref: v }] : refsOf(v, `${at}/${pointerSegment(k)}`)));
}

/** Pointers to every `schema` of a parameter, body, response or header below `value`. */
function schemaPointers(value: unknown, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => schemaPointers(v, `${at}/${i}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'schema' ? [`${at}/schema`] : schemaPointers(v, `${at}/${pointerSegment(k)}`)));
}

function resolvePointer(root: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), root);
}

test('the document is structurally OpenAPI 3.1 and every $ref resolves inside it', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  const validate = ajv.compile(OPENAPI_STRUCTURE);
  expect(validate(doc) ? [] : validate.errors).toEqual([]);
  const refs = refsOf(doc);
  expect(refs.length).toBeGreaterThan(50);
  const dangling = refs.filter(({ ref }) => !ref.startsWith('#/') || resolvePointer(doc, ref) === undefined);
  expect(dangling).toEqual([]);
  // Every component schema and every schema of a parameter, body or response compiles as JSON Schema 2020-12 within the document.
  const schemas = new Ajv2020({ strict: false, validateFormats: false });
  schemas.addSchema(doc, 'openapi.json');
  const pointers = [...Object.keys(doc.components.schemas).map((n) => `#/components/schemas/${n}`), ...schemaPointers(doc.paths, '#/paths'), ...schemaPointers(doc.components.responses, '#/components/responses')];
  expect(pointers.length).toBeGreaterThan(100);
  const failures = pointers.flatMap((at) => {
    try {
      schemas.compile({ $ref: `openapi.json${at}` });
      return [];
    } catch (err) {
      return [`${at}: ${(err as Error).message}`];
    }
  });
  expect(failures).toEqual([]);
});

test('every path template names its parameters, and only public routes go without the bearer scheme', () => {
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const [method, op] of Object.entries(item)) {
      const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name).sort();
      expect([`${method} ${path}`, declared]).toEqual([`${method} ${path}`, inPath]);
      // A hook delivery is authenticated by its signature (docs/jobs.md, "Triggers"); the hook's other routes take a token.
      const open = ['/healthz', '/livez', '/api/openapi.json', '/api/docs', '/api/docs/{asset}', '/', '/operator', '/web/{asset}'].includes(path) || `${method} ${path}` === 'post /api/hooks/{name}';
      expect([path, op.security]).toEqual([path, open ? [] : undefined]);
      if (!open) expect([path, Object.keys(op.responses)]).toEqual([path, expect.arrayContaining(['401', '429', '500'])]);
    }
  }
  expect(doc.security).toEqual([{ bearer: [] }]);
});

/** One canonical event of each type, optional fields set, as the worker publishes them. */
const SAMPLES: AgentEvent[] = [
  { type: 'session.state', phase: 'thinking', model: 'scripted/echo', thinking_level: 'off', queue_length: 0, turn_id: 't1', streaming: true, retry_attempt: 0, details: 'x' },
  { type: 'turn.started', turn_id: 't1', prompt: 'hi' },
  { type: 'assistant.delta', turn_id: 't1', step: 0, text: 'a' },
  { type: 'assistant.thinking_delta', turn_id: 't1', step: 0, text: 'b' },
  { type: 'assistant.message', turn_id: 't1', step: 0, entry_id: 't1:s0:assistant', text: 'ab', content: [], stop_reason: 'end', usage: { input: 1, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 } },
  { type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'read_file', params: { path: 'x' }, requires_approval: false },
  { type: 'tool.executing', tool_call_id: 'c1' },
  { type: 'tool.output', tool_call_id: 'c1', content: 'out' },
  { type: 'tool.result', tool_call_id: 'c1', status: 'skipped', is_error: false, summary: 's', result: { ok: true } },
  { type: 'file.changed', path: 'a.txt', operation: 'edit', timestamp: 1 },
  { type: 'usage', input: 1, output: 2, cache_read: 3, cache_write: 4, cost_usd: 0.5 },
  { type: 'approval.requested', tool_call_id: 'c1', tool: 'write_file', params: {}, timeout_s: 60 },
  { type: 'approval.resolved', tool_call_id: 'c1', decision: 'approved' },
  { type: 'retry.scheduled', turn_id: 't1', step: 0, attempt: 1, max_attempts: 3, delay_ms: 1000, kind: 'rate_limited', reason: '429' },
  { type: 'stream.reset', turn_id: 't1', step: 0 },
  { type: 'compaction.started', reason: 'manual' },
  { type: 'compaction.finished', summary: 's', tokens_before: 10 },
  { type: 'checklist', items: [{ id: '1', text: 'x', status: 'done' }] },
  { type: 'budget.exceeded', turn_id: 't', step: 1, spent_usd: 0.5, spent_tokens: 1200, limit: { max_cost_usd: 0.5, max_tokens: null } },
  { type: 'conversation.moved', reason: 'revert', active_leaf: 't1:s0:assistant' },
  { type: 'notice', level: 'info', message: 'm' },
  { type: 'error', code: 'LLM_API_ERROR', message: 'boom', turn_id: 't1', provider: 'scripted', status: 500, kind: 'permanent' },
  { type: 'turn.finished', turn_id: 't1', outcome: 'done', steps: 1 },
];

test('the SSE union the document publishes is exactly what the event mapper sends', () => {
  expect(SAMPLES.map((e) => e.type).sort()).toEqual(agentEventSchema.options.map((o) => o.shape.type.value).sort());
  const ajv = new Ajv2020({ strict: false });
  ajv.addSchema(doc, 'openapi.json');
  const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/SessionEventData' });
  const sent = new Set<string>();
  for (const event of SAMPLES) {
    const frame = toHttpEvent({ v: 1, session_id: 's', ts: 1, event: agentEventSchema.parse(event) });
    if (!frame) continue;
    expect([frame.event, validate(frame.data) ? null : validate.errors]).toEqual([frame.data.type, null]);
    sent.add(frame.event);
  }
  // A sub-agent's event on its parent's stream (docs/subagents.md).
  const marked = toHttpEvent({ v: 1, session_id: 's', ts: 1, subagent: { tool_call_id: 'c1', session_id: 's~task~t1~c1' }, event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: 'x' } })!;
  expect([marked.event, validate(marked.data) ? null : validate.errors]).toEqual(['subagent', null]);
  sent.add(marked.event);
  const documented = doc.components.schemas.SessionEventData.oneOf.flatMap((s: any) => s.properties.type.enum ?? [s.properties.type.const]);
  expect([...sent].sort()).toEqual([...documented].sort());
});

test('the transcript formats the contract documents are the ones the renderer knows', () => {
  expect(transcriptFormatSchema.options).toEqual([...TRANSCRIPT_FORMATS]);
});

test('the document and the docs page are served without a token, before auth, with caching', async () => {
  const app = appWithFakes();
  expect((await app.request('/api/sessions')).status).toBe(401);
  const res = await app.request('/api/openapi.json');
  expect(res.status).toBe(200);
  // The built document, with the server this request reached in front (openapi-servers.test.ts).
  expect(await res.json()).toEqual({ servers: [{ url: 'http://localhost' }], ...doc });
  const etag = res.headers.get('etag')!;
  expect((await app.request('/api/openapi.json', { headers: { 'If-None-Match': etag } })).status).toBe(304);
  const page = await app.request('/api/docs');
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  const css = await app.request('/api/docs/swagger-ui.css');
  expect([css.status, css.headers.get('content-type'), css.headers.get('cache-control')]).toEqual([200, 'text/css; charset=utf-8', 'public, max-age=31536000, immutable']);
  const unknown = await app.request('/api/docs/..%2Fpackage.json');
  expect(unknown.status).toBe(400);
  expect(((await unknown.json()) as any).error.code).toBe('INVALID_REQUEST');
});
