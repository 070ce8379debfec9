import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId } from '../harness/ws-rpc-client';

/**
 * Bad input gets a clear error at every depth, on HTTP and WebSocket: an unknown key inside a nested
 * object (the approval policy, a prompt's context, an image, an MCP server, a history item) is refused
 * with the key and where it was, and nothing changes. Before, nested objects dropped such keys: `PATCH
 * …/settings {"approval": {"policy": "plan"}}` answered 200 and changed nothing.
 */
let stack: TestStack;
let base: string;

beforeAll(async () => {
  stack = await startTestStack();
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

test('HTTP: a nested unknown key is a 400 naming it, and the settings stay as they were', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  const before = (await http(base, 'GET', `/api/sessions/${sid}/settings`)).body;

  const refused = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { policy: 'plan' } });
  expect([refused.status, refused.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  expect(refused.body.error.message).toMatch(/approval.*policy/);
  expect((await http(base, 'GET', `/api/sessions/${sid}/settings`)).body).toEqual(before);

  const cases: Array<[string, string, unknown, RegExp]> = [
    ['POST', '/api/sessions', { project_path: '/tmp', config: { auto_approve_readonly: true, colour: 'red' } }, /config.*colour/],
    ['POST', '/api/sessions', { project_path: '/tmp', mcp_servers: { files: { command: 'x', enviroment: {} } } }, /enviroment/],
    ['POST', `/api/sessions/${sid}/prompt`, { text: 'hi', context: { current_file: 'a.ts', line: 3 } }, /context.*line/],
    ['POST', `/api/sessions/${sid}/prompt`, { text: 'hi', images: [{ media_type: 'image/png', data: 'AAAA', name: 'a.png' }] }, /images.*name/],
    ['POST', `/api/sessions/${sid}/steer`, { text: 'hi', urgent: true }, /urgent/],
  ];
  for (const [method, route, body, named] of cases) {
    const res = await http(base, method, route, body);
    expect([route, res.status, res.body.error?.code]).toEqual([route, 400, 'INVALID_REQUEST']);
    expect(res.body.error.message).toMatch(named);
  }
  // Nothing was prompted or created by the refused requests.
  expect((await http(base, 'GET', `/api/sessions/${sid}`)).body.message_count).toBe(0);
}, 60_000);

test('WebSocket: an unknown key inside a history item is an error naming it', async () => {
  const c = await connectRpc(`${base.replace(/^http/, 'ws')}/v1/rpc`);
  try {
    const id = rpcId();
    c.send(chatStart(id, 'hi', { history: [{ id: 'h1', role: 'user', content: 'earlier', kind: 'text', timestamp: '2026-11-29T00:00:00Z', author: 'me' }] }));
    expect((await c.waitFor((f) => f.id === id)).error).toMatch(/author/);
  } finally {
    c.close();
  }
}, 60_000);

test('HTTP: the message names the unknown key by its own path, and a known key beside it is not applied either', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  const before = (await http(base, 'GET', `/api/sessions/${sid}/settings`)).body;

  const refused = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { policy: 'plan' } });
  expect(refused.body.error.message).toBe('approval.policy: unrecognized key');
  const mixed = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { name: 'renamed', approval: { plan_mode: true, policy: 'plan' } });
  expect([mixed.status, mixed.body.error.message]).toEqual([400, 'approval.policy: unrecognized key']);
  expect((await http(base, 'GET', `/api/sessions/${sid}/settings`)).body).toEqual(before);

  // The same change without the stray key is applied: the refusal was the key, not the route.
  const applied = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: true } });
  expect([applied.status, applied.body.approval.plan_mode]).toEqual([200, true]);
}, 60_000);

test('WebSocket: a chat.start with a nested unknown key is one error frame naming its path; the session is untouched', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp', model: 'scripted/echo' })).body.session_id as string;
  const messagesBefore = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body;
  const settingsBefore = (await http(base, 'GET', `/api/sessions/${sid}/settings`)).body;
  const c = await connectRpc(`${base.replace(/^http/, 'ws')}/v1/rpc`);
  try {
    const id = rpcId();
    c.send(chatStart(id, 'hello', { sessionId: sid, workspace: '/tmp', activeSkills: [{ name: 'plan', instructions: 'plan first', policy: 'plan' }] }));
    const terminal = await c.terminal(id);
    expect([terminal.type, terminal.error]).toEqual(['error', 'invalid RPC message: payload.request.activeSkills.0.policy: unrecognized key']);
    expect(c.of(id).map((f) => f.type)).toEqual(['error']);

    // Every client frame is strict, not only the chat request: an unknown payload on status.get too.
    const other = rpcId();
    c.send({ id: other, type: 'status.get', payload: { verbose: true } });
    expect((await c.terminal(other)).error).toBe('invalid RPC message: payload: unrecognized key');

    expect((await http(base, 'GET', `/api/sessions/${sid}/messages`)).body).toEqual(messagesBefore);
    expect((await http(base, 'GET', `/api/sessions/${sid}/settings`)).body).toEqual(settingsBefore);
    expect(c.invalid).toEqual([]);
  } finally {
    c.close();
  }
}, 60_000);
