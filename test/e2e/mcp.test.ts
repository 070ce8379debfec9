import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AcpTestAgent } from '../harness/acp-client';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { startFixtureHttpServer, type FixtureHttpServer } from '../fixtures/mcp/http-server';
import { RED_PIXEL_PNG } from '../fixtures/mcp/tools';

/**
 * MCP servers on the real stack (docs/mcp.md), the model a fake Anthropic API that calls their
 * tools: a session's stdio server (a secret in its env) and Streamable HTTP server (a secret header)
 * are offered as mcp__<server>__<tool> with their schemas; results (text and an image) reach the model;
 * the non-read-only tool asks for approval (and plan mode refuses it); a broken server is a notice while the rest works; a
 * server killed between turns is started again; GET …/mcp lists states and tools; no secret appears
 * in any answer, event, stored message or log line; ACP session/new's mcpServers reach the tools.
 */
jest.setTimeout(120_000);

const SECRET = 'fixture-secret-7f3a9c';
const HTTP_TOKEN = 'http-token-4b1d2e';
const MODEL = 'anthropic/claude-sonnet-4-6';
const fixture = path.resolve(__dirname, '../fixtures/mcp/stdio-server.ts');
const tsx = path.resolve(__dirname, '../../node_modules/.bin/tsx');

let stack: TestStack;
let base: string;
let fake: FakeProviderServer<FakeAnthropicReply>;
let remote: FixtureHttpServer;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-mcp-e2e-'));
const workspace = path.join(tmp, 'project');
const notes = path.join(tmp, 'remote-notes');
/** Every raw SSE frame and HTTP answer the test read, searched for secrets at the end. */
const seen: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(workspace, { recursive: true });
  fs.mkdirSync(notes, { recursive: true });
  fake = await startFakeAnthropicServer();
  remote = await startFixtureHttpServer({ name: 'remote', token: HTTP_TOKEN, notesDir: notes });
  // No user config file: the worker's XDG_CONFIG_HOME points into the test's directory.
  stack = await startTestStack({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.baseURL, XDG_CONFIG_HOME: path.join(tmp, 'config'), STRAND_LOG_LEVEL: 'info' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await remote?.close();
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);
const use = (name: string, input: Record<string, unknown>, id: string) => ({ type: 'tool_use' as const, id, name, input });
const usage = { input_tokens: 100, output_tokens: 10 };

async function get(route: string) {
  const res = await http(base, 'GET', route);
  seen.push(JSON.stringify(res.body));
  return res;
}

/** Sends a prompt, approves what `approve` names when asked, and reads the events until the turn finished. */
async function turn(sid: string, text: string, approve: string[] = []): Promise<SseEvent[]> {
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    const accepted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text });
    expect(accepted.status).toBe(202);
    const got = await readUntil(
      events,
      (e) => {
        // HTTP clients learn of approvals from tool.call's requires_approval (docs/http.md).
        if (e.event === 'tool.call' && data(e).requires_approval && approve.includes(data(e).tool_call_id)) void http(base, 'POST', `/api/sessions/${sid}/approve`, { tool_call_id: data(e).tool_call_id });
        return e.event === 'turn.finished' && data(e).turn_id === accepted.body.turn_id;
      },
      60_000,
    );
    seen.push(...got.map((e) => `${e.event} ${e.data}`));
    return got;
  } catch (err) {
    // What the services said, to tell a hung turn from a failed one.
    const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
    const session = await http(base, 'GET', `/api/sessions/${sid}`);
    process.stderr.write(`--- session ${JSON.stringify(session.body)}\n--- messages ${JSON.stringify(messages.body).slice(0, 3000)}\n--- provider requests ${fake.requests.length}\n--- stack output ---\n${stack.output.slice(-60).join('\n')}\n`);
    throw err;
  } finally {
    events.close();
  }
}

const servers = () => ({
  local: { command: tsx, args: [fixture, 'local'], env: { MCP_FIXTURE_TOKEN: SECRET } },
  remote: { url: remote.url, headers: { Authorization: `Bearer ${HTTP_TOKEN}` } },
});

test('stdio and HTTP tools reach the model with their schemas; results, images and approvals; GET …/mcp', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: MODEL, mcp_servers: servers() });
  expect(created.status).toBe(201);
  seen.push(JSON.stringify(created.body));
  const sid = created.body.session_id as string;
  fake.reply(
    {
      blocks: [use('mcp__local__lookup', { word: 'abc' }, 'toolu_lookup'), use('mcp__remote__snapshot', {}, 'toolu_snap'), use('mcp__remote__note_write', { name: 'n1', text: 'hello' }, 'toolu_note')],
      usage,
    },
    { blocks: [{ type: 'text', text: 'All done.' }], usage },
  );
  const first = fake.requests.length;
  const events = await turn(sid, 'use the tools', ['toolu_note']);

  const [ask, answer] = fake.requests.slice(first);
  const tools = ask!.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>;
  const names = tools.map((t) => t.name);
  expect(names).toEqual(expect.arrayContaining(['read_file', 'mcp__local__lookup', 'mcp__local__note_write', 'mcp__remote__lookup', 'mcp__remote__snapshot', 'mcp__remote__sleep']));
  expect(tools.find((t) => t.name === 'mcp__local__lookup')!.input_schema).toMatchObject({ type: 'object', properties: { word: { type: 'string' } }, required: ['word'] });

  // Only the tool without readOnlyHint asked; it ran once approved.
  const calls = events.filter((e) => e.event === 'tool.call').map(data);
  expect(calls.map((c) => [c.tool, c.requires_approval])).toEqual([
    ['mcp__local__lookup', false],
    ['mcp__remote__snapshot', false],
    ['mcp__remote__note_write', true],
  ]);
  // Approved calls run concurrently: their results come in any order.
  expect(events.filter((e) => e.event === 'tool.result').map((e) => [data(e).tool_call_id, data(e).status]).sort()).toEqual([
    ['toolu_lookup', 'success'],
    ['toolu_note', 'success'],
    ['toolu_snap', 'success'],
  ]);
  expect(fs.readFileSync(path.join(notes, 'n1.note'), 'utf8')).toBe('hello');
  expect(remote.requests.every((r) => r.authorized)).toBe(true);

  // The results reach the model: text (the env reached the stdio server), and the image as an image block.
  const results = (answer!.body.messages as Array<{ content: Array<Record<string, any>> }>).at(-1)!.content.filter((b) => b.type === 'tool_result');
  expect(results.map((r) => r.tool_use_id)).toEqual(['toolu_lookup', 'toolu_snap', 'toolu_note']);
  expect(JSON.stringify(results[0]!.content)).toMatch(/local: abc means fixture-3 \(token ok\)/);
  expect(results[1]!.content).toEqual(expect.arrayContaining([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: RED_PIXEL_PNG } }]));
  expect(JSON.stringify(results[2]!.content)).toContain('note n1 written');

  const mcp = (await get(`/api/sessions/${sid}/mcp`)).body;
  expect(mcp.servers.map((s: any) => [s.name, s.source, s.transport, s.state])).toEqual([
    ['local', 'session', 'stdio', 'connected'],
    ['remote', 'session', 'http', 'connected'],
  ]);
  expect(mcp.servers[0].tools).toEqual(expect.arrayContaining([{ name: 'lookup', mcp_name: 'mcp__local__lookup', description: 'Look up a word in the fixture dictionary.', read_only: true }]));
  expect(mcp.servers[0].tools.find((t: any) => t.name === 'note_write').read_only).toBe(false);

  await get(`/api/sessions/${sid}`);
  await get(`/api/sessions/${sid}/messages`);
  await get(`/api/sessions/${sid}/settings`);
  await get('/api/sessions');
});

test('a broken server is a notice and the rest works; a server killed between turns is started again', async () => {
  const created = await http(base, 'POST', '/api/sessions', {
    project_path: workspace,
    model: MODEL,
    mcp_servers: { broken: { command: path.join(tmp, 'no-such-server'), env: { MCP_FIXTURE_TOKEN: SECRET } }, local: servers().local },
  });
  const sid = created.body.session_id as string;
  fake.reply({ blocks: [use('mcp__local__lookup', { word: 'a' }, 'toolu_1')], usage }, { blocks: [{ type: 'text', text: 'ok' }], usage });
  const first = await turn(sid, 'look up a');
  const notices = first.filter((e) => e.event === 'notice').map(data);
  expect(notices).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringMatching(/^MCP server broken: /) })]);
  const result = data(first.find((e) => e.event === 'tool.result')!);
  expect(result).toMatchObject({ status: 'success' });
  const pid = Number(/pid=(\d+)/.exec(result.result)![1]);
  const listed = (await get(`/api/sessions/${sid}/mcp`)).body.servers;
  expect(listed.map((s: any) => [s.name, s.state])).toEqual([
    ['broken', 'failed'],
    ['local', 'connected'],
  ]);
  expect(listed[0].error).toEqual(expect.any(String));

  // The server dies between turns: the next turn starts it again and the call works.
  process.kill(pid, 'SIGKILL');
  fake.reply({ blocks: [use('mcp__local__lookup', { word: 'b' }, 'toolu_2')], usage }, { blocks: [{ type: 'text', text: 'ok' }], usage });
  const second = await turn(sid, 'look up b');
  const again = data(second.find((e) => e.event === 'tool.result')!);
  expect(again).toMatchObject({ status: 'success' });
  expect(again.result).toMatch(/local: b means fixture-1 \(token ok\)/);
  expect(Number(/pid=(\d+)/.exec(again.result)![1])).not.toBe(pid);
});

test('plan mode refuses the MCP tool that is not annotated read-only and runs the read-only one', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: MODEL, mcp_servers: { local: servers().local } });
  const sid = created.body.session_id as string;
  expect((await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: true } })).status).toBe(200);
  fake.reply({ blocks: [use('mcp__local__lookup', { word: 'p' }, 'toolu_read'), use('mcp__local__note_write', { name: 'planned', text: 'x' }, 'toolu_write')], usage }, { blocks: [{ type: 'text', text: 'Plan: 1. write the note' }], usage });
  const events = await turn(sid, 'plan the note');
  expect(events.filter((e) => e.event === 'tool.call').map((e) => [data(e).tool, data(e).requires_approval])).toEqual([
    ['mcp__local__lookup', false],
    ['mcp__local__note_write', false],
  ]);
  const results = Object.fromEntries(events.filter((e) => e.event === 'tool.result').map((e) => [data(e).tool_call_id, data(e)]));
  expect(results.toolu_read).toMatchObject({ status: 'success' });
  expect(results.toolu_write).toMatchObject({ status: 'rejected' });
  expect(results.toolu_write.result).toMatch(/^Plan mode is on: this mcp__local__note_write call was not run\./);
  // The stdio server's working directory is the project: nothing was written there.
  expect(fs.existsSync(path.join(workspace, 'planned.note'))).toBe(false);
});

test('ACP: initialize offers http MCP servers; session/new mcpServers reach the tools', async () => {
  const agent = new AcpTestAgent(AcpTestAgent.env(stack.urls, { STRAND_DEFAULT_MODEL: MODEL, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.baseURL }));
  try {
    const init = await agent.initialize();
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false });
    const created = await agent.agent.request('session/new', {
      cwd: workspace,
      mcpServers: [{ name: 'acpsrv', command: tsx, args: [fixture, 'acpsrv'], env: [{ name: 'MCP_FIXTURE_TOKEN', value: SECRET }] }],
    });
    fake.reply({ blocks: [use('mcp__acpsrv__lookup', { word: 'xyz' }, 'toolu_acp')], usage }, { blocks: [{ type: 'text', text: 'found it' }], usage });
    const before = fake.requests.length;
    const done = await agent.agent.request('session/prompt', { sessionId: created.sessionId, prompt: [{ type: 'text', text: 'look up xyz' }] });
    expect(done.stopReason).toBe('end_turn');
    const [ask, answer] = fake.requests.slice(before);
    expect((ask!.body.tools as Array<{ name: string }>).map((t) => t.name)).toContain('mcp__acpsrv__lookup');
    expect(JSON.stringify(answer!.body.messages)).toMatch(/acpsrv: xyz means fixture-3 \(token ok\)/);
    const mcp = (await get(`/api/sessions/${created.sessionId}/mcp`)).body;
    expect(mcp.servers).toEqual([expect.objectContaining({ name: 'acpsrv', source: 'session', transport: 'stdio', state: 'connected' })]);
    seen.push(JSON.stringify(agent.updates(created.sessionId)));
  } finally {
    await agent.kill();
  }
});

test('no secret value in any answer, event, stored message or log line the tests read', () => {
  expect(seen.length).toBeGreaterThan(10);
  for (const text of [...seen, ...stack.output]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(HTTP_TOKEN);
  }
});
