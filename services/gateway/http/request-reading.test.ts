import { createGatewayAuth } from '../auth/tokens';
import { createHttpApp, type HttpDeps } from './app';

/**
 * Requests are read as they were before the routes became their own OpenAPI definitions: a JSON body
 * whatever its content type, an empty body as `{}`, the contract's INVALID_REQUEST for anything the
 * route's schemas refuse (never the validation library's own 400/415 bodies), the first of a repeated
 * query key, an empty transcript format as the default.
 */
function appRecording(maxBodyBytes = 1024) {
  const calls: Array<[string, ...unknown[]]> = [];
  const sessions = {
    create: async (input: unknown) => (calls.push(['create', input]), { session_id: 's1', status: 'active', meta: { created_at: 1 } }),
    list: async (query: unknown) => (calls.push(['list', query]), { sessions: [] }),
    // The prompt route goes through SessionService.prompt (no store read first on the common path).
    prompt: async (id: string, _principal: unknown, command: unknown) => (calls.push(['prompt', id, command]), { agent_state: 'thinking', turn_id: 't1', queued: false }),
  };
  const transcripts = {
    render: async (id: string, format: string) => (calls.push(['render', id, format]), { contentType: 'text/markdown; charset=utf-8', body: '# hi' }),
    list: async (project: unknown) => (calls.push(['transcripts', project]), { transcripts: [] }),
  };
  const deps = {
    sessions,
    transcripts,
    keepaliveMs: 15_000,
    maxBodyBytes,
    log: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    auth: createGatewayAuth(new Map()),
    rateLimit: { perSecond: 1000, burst: 1000 },
  } as unknown as HttpDeps;
  return { app: createHttpApp(deps), calls };
}

const post = (body: string, contentType?: string): RequestInit => ({ method: 'POST', body, headers: contentType ? { 'Content-Type': contentType } : {} });

test('a JSON body is read whatever its content type, and an empty body is {}', async () => {
  const { app, calls } = appRecording();
  const plain = await app.request('/api/sessions', post('{"project_path":"/p"}', 'text/plain'));
  const form = await app.request('/api/sessions/s1/prompt', post('{"text":"hi"}', 'application/x-www-form-urlencoded'));
  // A JSON client with one query key: the body is handed on as read (Hono's body cache), not rebuilt.
  expect((await app.request('/api/sessions/s1/prompt?queue=1', post('{"text":"as json", "request_id":"r1"}', 'Application/JSON'))).status).toBe(202);
  const none = await app.request('/api/sessions', post('{"project_path":"/q"}'));
  expect([plain.status, form.status, none.status]).toEqual([201, 202, 201]);
  expect(calls).toEqual([
    ['create', { project_path: '/p' }],
    ['prompt', 's1', { text: 'hi', behavior: 'reject' }],
    ['prompt', 's1', { text: 'as json', behavior: 'queue', request_id: 'r1' }],
    ['create', { project_path: '/q' }],
  ]);
  const empty = await app.request('/api/sessions', post(''));
  expect([empty.status, await empty.json()]).toEqual([400, { error: { code: 'INVALID_REQUEST', message: 'project_path: Invalid input: expected string, received undefined', details: {} } }]);
});

test('what the schemas refuse answers the contract error body', async () => {
  const { app, calls } = appRecording();
  const notJson = await app.request('/api/sessions', post('{nope', 'application/json'));
  expect([notJson.status, await notJson.json()]).toEqual([400, { error: { code: 'INVALID_REQUEST', message: 'request body is not valid JSON', details: {} } }]);
  const wrongType = await app.request('/api/sessions', post('{"project_path":5}', 'application/json'));
  expect(((await wrongType.json()) as any).error).toEqual({ code: 'INVALID_REQUEST', message: 'project_path: Invalid input: expected string, received number', details: {} });
  const badQuery = await app.request('/api/sessions?limit=many');
  expect([badQuery.status, ((await badQuery.json()) as any).error.code]).toEqual([400, 'INVALID_REQUEST']);
  const badFormat = await app.request('/api/sessions/s1/transcript?format=pdf');
  expect([badFormat.status, ((await badFormat.json()) as any).error.message]).toEqual([400, 'unknown transcript format "pdf" (json, markdown or org)']);
  const chat = await app.request('/v1/chat/stream', post('{nope'));
  expect([chat.status, await chat.json()]).toEqual([400, { error: { code: 'INVALID_REQUEST', message: 'request body is not valid JSON', details: {} } }]);
  const chatShape = await app.request('/v1/chat/stream', post('{"message":"hi","history":[],"model":"scripted/echo","extra":1}', 'text/plain'));
  expect([chatShape.status, ((await chatShape.json()) as any).error.code]).toEqual([400, 'INVALID_REQUEST']);
  const unknown = await app.request('/api/nothing-here');
  expect([unknown.status, ((await unknown.json()) as any).error.code]).toEqual([404, 'NOT_FOUND']);
  expect(calls).toEqual([]);
});

test('a repeated query key is read by its first value; an empty format or project means none', async () => {
  const { app, calls } = appRecording();
  expect((await app.request('/api/sessions?limit=2&limit=many&status=idle')).status).toBe(200);
  expect((await app.request('/api/sessions/s1/prompt?queue=1&queue=0', post('{"text":"hi"}', 'application/json'))).status).toBe(202);
  const markdown = await app.request('/api/sessions/s1/transcript?format=');
  expect([markdown.status, markdown.headers.get('content-type'), await markdown.text()]).toEqual([200, 'text/markdown; charset=utf-8', '# hi']);
  expect((await app.request('/api/transcripts?project=')).status).toBe(200);
  expect(calls).toEqual([
    ['list', { limit: 2, status: 'idle' }],
    ['prompt', 's1', { text: 'hi', behavior: 'queue' }],
    ['render', 's1', 'json'],
    ['transcripts', undefined],
  ]);
});

/**
 * JSON nested deeper than the stack (the fuzz test sends up to 60,000 `[`s) is valid JSON that
 * `JSON.parse` reads but `JSON.stringify` cannot write back: the body handed to the route's validator
 * is the client's own text, so it is refused as any other wrong shape, never a 500.
 */
test('a body nested deeper than the stack answers INVALID_REQUEST on every JSON route', async () => {
  const { app, calls } = appRecording(1024 * 1024);
  const deep = '['.repeat(60_000) + ']'.repeat(60_000);
  const deepInField = `{"project_path":${'['.repeat(60_000)}${']'.repeat(60_000)}}`;
  const answers = [];
  for (const [path, body, type] of [
    ['/api/sessions', deep, 'application/json'],
    ['/api/sessions', deepInField, 'text/plain'],
    ['/api/sessions/s1/prompt?queue=1&queue=0', deep, 'application/x-www-form-urlencoded'],
    ['/api/sessions/s1/steer', deep, 'application/json; charset=utf-16'],
    ['/api/sessions/s1/approve', deep, undefined],
    ['/v1/chat/stream', deep, 'application/json'],
  ] as const) {
    const res = await app.request(path, post(body, type));
    answers.push([path, res.status, ((await res.json()) as any).error.code]);
  }
  expect(answers).toEqual([
    ['/api/sessions', 400, 'INVALID_REQUEST'],
    ['/api/sessions', 400, 'INVALID_REQUEST'],
    ['/api/sessions/s1/prompt?queue=1&queue=0', 400, 'INVALID_REQUEST'],
    ['/api/sessions/s1/steer', 400, 'INVALID_REQUEST'],
    ['/api/sessions/s1/approve', 400, 'INVALID_REQUEST'],
    ['/v1/chat/stream', 400, 'INVALID_REQUEST'],
  ]);
  const unclosed = await app.request('/api/sessions', post('['.repeat(60_000), 'application/json'));
  expect([unclosed.status, await unclosed.json()]).toEqual([400, { error: { code: 'INVALID_REQUEST', message: 'request body is not valid JSON', details: {} } }]);
  expect(calls).toEqual([]);
});
