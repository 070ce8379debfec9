import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The coding agent end to end: the real stack, the real Anthropic SDK in the worker, talking to a
 * local server that speaks the Messages API's streaming format. A turn reads a file, edits it after
 * an approval and answers; a rejected edit; a 429 retried after its retry-after — asserting the files
 * on disk, the SSE sequence and the exact entries in the store.
 */
let stack: TestStack;
let fake: FakeProviderServer<FakeAnthropicReply>;
let base: string;
let workspace: string;
let transcripts: string;

beforeAll(async () => {
  fake = await startFakeAnthropicServer();
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-ws-'));
  transcripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-transcripts-'));
  stack = await startTestStack({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.baseURL, STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6', STRAND_TRANSCRIPTS_DIR: transcripts });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await fake?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(transcripts, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);
const finished = (e: SseEvent) => e.event === 'turn.finished';

async function session(config?: Record<string, unknown>): Promise<string> {
  const res = await http(base, 'POST', '/api/sessions', { project_path: workspace, ...(config ? { config } : {}) });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

test('reads a file, edits it after an approval, and answers', async () => {
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  fake.reply(
    { blocks: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_read', name: 'read_file', input_json: ['{"pa', 'th": "notes', '.txt"}'] }], usage: { input_tokens: 1000, output_tokens: 20 } },
    { blocks: [{ type: 'tool_use', id: 'toolu_edit', name: 'edit_file', input: { path: 'notes.txt', old: 'world', new: 'strand' } }], usage: { input_tokens: 1100, output_tokens: 30 } },
    { blocks: [{ type: 'text', text: 'Replaced world with strand.' }], usage: { input_tokens: 1200, output_tokens: 10 } },
  );
  const sid = await session({ save_transcript: true });
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const accepted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'Say strand instead of world in notes.txt' });
  expect(accepted.status).toBe(202);

  const untilApproval = await readUntil(events, (e) => e.event === 'tool.call' && data(e).tool === 'edit_file');
  const edit = data(untilApproval[untilApproval.length - 1]!);
  expect(edit).toMatchObject({ tool_call_id: 'toolu_edit', params: { path: 'notes.txt', old: 'world', new: 'strand' }, requires_approval: true });
  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello world\n');
  // A fast client approves the instant the call is announced.
  expect((await http(base, 'POST', `/api/sessions/${sid}/approve`, { tool_call_id: 'toolu_edit' })).body).toEqual({ status: 'approved', tool_call_id: 'toolu_edit' });
  const rest = await readUntil(events, finished);
  events.close();
  const all = [...untilApproval, ...rest];

  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');
  // The turn's own events, in order (session states interleave with them as they are reported).
  const types = all.map((e) => e.event).filter((t) => t !== 'message.delta' && t !== 'usage' && t !== 'agent.state');
  expect(types).toEqual([
    'message.done', // step 0: text + read_file call
    'tool.call',
    'tool.result',
    'message.done', // step 1: edit_file call
    'tool.call',
    'file.changed',
    'tool.result',
    'message.done', // step 2: the answer
    'turn.finished',
  ]);
  const states = all.filter((e) => e.event === 'agent.state').map((e) => data(e).state);
  expect(states[0]).toBe('thinking');
  expect(states).toContain('waiting_approval');
  expect(states.indexOf('waiting_approval')).toBeLessThan(states.lastIndexOf('tool_execution'));
  expect(new Set(states)).toEqual(new Set(['thinking', 'tool_execution', 'waiting_approval']));
  expect(data(all.find((e) => e.event === 'file.changed')!)).toMatchObject({ path: 'notes.txt', operation: 'edit' });
  const results = all.filter((e) => e.event === 'tool.result').map(data);
  expect(results.map((r) => [r.tool_call_id, r.status])).toEqual([['toolu_read', 'success'], ['toolu_edit', 'success']]);
  expect(results[0].result).toContain('hello world');

  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => [m.entry_id, m.message.role])).toEqual([
    ['t1:user', 'user'],
    ['t1:s0:assistant', 'assistant'],
    ['t1:s0:tool:toolu_read', 'function_result'],
    ['t1:s1:assistant', 'assistant'],
    ['t1:s1:tool:toolu_edit', 'function_result'],
    ['t1:s2:assistant', 'assistant'],
  ]);
  expect(stored[1].message.content).toEqual([{ type: 'text', text: 'Let me look.' }, { type: 'function_call', id: 'toolu_read', function_id: 'read_file', arguments: { path: 'notes.txt' } }]);
  expect(stored[1].message).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6', stop_reason: 'function_call' });
  expect(stored[1].message.usage.cost_usd).toBeGreaterThan(0);
  expect(stored[5].message.content).toEqual([{ type: 'text', text: 'Replaced world with strand.' }]);
  // Usage and cost are summed per session (and per turn in /api/jobs).
  const stats = (await http(base, 'GET', `/api/sessions/${sid}/stats`)).body;
  expect(stats).toMatchObject({ model: 'anthropic/claude-sonnet-4-6', steps: 3, turns: 1, messages: { user: 1, assistant: 3, tool_results: 2, total: 6 } });
  expect(stats.usage.input).toBe(3300);
  expect(stats.usage.cost_usd).toBeCloseTo(stored.filter((m: any) => m.message.role === 'assistant').reduce((n: number, m: any) => n + m.message.usage.cost_usd, 0), 6);
  expect(stats.context.window).toBe(200_000);

  // What the model was sent: the system prompt with the workspace, every tool, the results so far.
  const sent = fake.requests.slice(-3).map((r) => r.body);
  expect(JSON.stringify(sent[0].system)).toContain(workspace);
  expect(sent[0].tools.map((t: any) => t.name)).toContain('edit_file');
  expect(sent[0].tools.map((t: any) => t.name).sort()).toEqual(['delete_file', 'edit_file', 'git_diff', 'git_status', 'list_files', 'read_file', 'search_files', 'shell_exec', 'task', 'write_file']);
  const lastTurn = sent[2].messages;
  expect(JSON.stringify(lastTurn)).toContain('toolu_edit');
  expect(JSON.stringify(lastTurn[2])).toContain('hello world'); // the read_file result, as a tool_result

  // Transcripts: json round-trips, markdown and org render the tool calls; listed by project with the files changed.
  const json = (await fetch(`${base}/api/sessions/${sid}/transcript?format=json`).then((r) => r.json())) as any;
  expect(json.messages.map((m: any) => m.entry_id)).toEqual(stored.map((m: any) => m.entry_id));
  expect(json.files_changed).toEqual(['notes.txt']);
  const md = await fetch(`${base}/api/sessions/${sid}/transcript?format=markdown`).then((r) => r.text());
  expect(md).toContain('**Tool call: `edit_file`**');
  const org = await fetch(`${base}/api/sessions/${sid}/transcript?format=org`).then((r) => r.text());
  expect(org).toContain(`#+SESSION_ID: ${sid}`);
  expect(org).toContain('#+MODEL: anthropic/claude-sonnet-4-6');
  expect((await http(base, 'GET', `/api/sessions/${sid}/transcript?format=pdf`)).status).toBe(400);
  const listed = await http(base, 'GET', `/api/transcripts?project=${encodeURIComponent(workspace)}`);
  expect(listed.body.transcripts.find((t: any) => t.session_id === sid)).toMatchObject({ project_path: workspace, message_count: 6, files_changed: ['notes.txt'] });
  // save_transcript: deleting the session writes its transcript and answers where.
  const deleted = await http(base, 'DELETE', `/api/sessions/${sid}`);
  expect(deleted.body.status).toBe('closed');
  expect(deleted.body.transcript_path.startsWith(transcripts)).toBe(true);
  expect(fs.readFileSync(deleted.body.transcript_path, 'utf8')).toContain('Replaced world with strand.');
}, 90_000);

test('a rejected edit leaves the file alone and the model reads the reason', async () => {
  fs.writeFileSync(path.join(workspace, 'keep.txt'), 'keep me\n');
  fake.reply(
    { blocks: [{ type: 'tool_use', id: 'toolu_del', name: 'delete_file', input: { path: 'keep.txt' } }] },
    { blocks: [{ type: 'text', text: 'Understood, I left it.' }] },
  );
  const sid = await session();
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'Remove keep.txt' });
  await readUntil(events, (e) => e.event === 'agent.state' && data(e).state === 'waiting_approval');
  const pending = await http(base, 'GET', `/api/sessions/${sid}/approvals`);
  expect(pending.body.approvals).toEqual([{ tool_call_id: 'toolu_del', tool: 'delete_file', params: { path: 'keep.txt' }, turn_id: 't1' }]);
  const rejected = await http(base, 'POST', `/api/sessions/${sid}/reject`, { tool_call_id: 'toolu_del', reason: 'we still need that file' });
  expect(rejected.body).toEqual({ status: 'rejected', tool_call_id: 'toolu_del' });
  expect((await http(base, 'POST', `/api/sessions/${sid}/reject`, { tool_call_id: 'toolu_del' })).status).toBe(404);
  const rest = await readUntil(events, finished);
  events.close();
  expect(fs.existsSync(path.join(workspace, 'keep.txt'))).toBe(true);
  expect(data(rest.find((e) => e.event === 'tool.result')!)).toMatchObject({ tool_call_id: 'toolu_del', status: 'rejected' });
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant', 't1:s0:tool:toolu_del', 't1:s1:assistant']);
  expect(stored[2].message).toMatchObject({ is_error: true, content: [{ type: 'text', text: 'The user rejected this delete_file call: we still need that file' }] });
  expect(JSON.stringify(fake.requests[fake.requests.length - 1]!.body.messages)).toContain('we still need that file');
}, 60_000);

test('a 429 is retried after its retry-after, announced, and the answer is stored once', async () => {
  fake.reply(
    { error: { status: 429, type: 'rate_limit_error', message: 'slow down', headers: { 'retry-after': '1' } } },
    { blocks: [{ type: 'text', text: 'Here after waiting.' }] },
  );
  const sid = await session();
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const t0 = Date.now();
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hi' });
  const all = await readUntil(events, finished);
  events.close();
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
  const retry = data(all.find((e) => e.event === 'retry')!);
  expect(retry).toMatchObject({ attempt: 1, delay_ms: 1000 });
  expect(retry.reason).toMatch(/429|rate/i);
  expect(all.filter((e) => e.event === 'agent.state').map((e) => data(e).state)).toEqual(['thinking', 'retrying', 'thinking']);
  expect(all.findIndex((e) => e.event === 'stream.reset')).toBeGreaterThan(all.findIndex((e) => e.event === 'retry'));
  expect(data(all[all.length - 1]!)).toMatchObject({ outcome: 'done' });
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
  expect(stored[1].message.content).toEqual([{ type: 'text', text: 'Here after waiting.' }]);
}, 60_000);
