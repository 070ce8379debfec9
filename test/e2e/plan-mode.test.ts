import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Plan mode over HTTP on the real stack (docs/plan-mode.md): with `approval.plan_mode` on, a scripted
 * model reads a file (runs) and then writes one (refused: not written, not asked about, a rejected
 * result the model reads and quotes); switched off with PATCH, the same prompt writes the file, and
 * the first turn's exchange is still in the conversation.
 */
let stack: TestStack;
let base: string;
let fake: FakeProviderServer<FakeAnthropicReply>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-plan-mode-'));
const scripts = path.join(tmp, 'scripts');
const workspace = path.join(tmp, 'project');

beforeAll(async () => {
  fs.mkdirSync(scripts, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const steps = [
    [{ type: 'text', text: 'Reading first.' }, { type: 'tool_call', name: 'read_file', args: { path: 'notes.txt' } }],
    [{ type: 'tool_call', name: 'write_file', args: { path: 'out.txt', content: 'written' } }],
    [{ type: 'text', text: 'Result: {{tool_result_first_line}}' }],
  ];
  fs.writeFileSync(path.join(scripts, 'plan-write.json'), JSON.stringify({ steps }));
  fake = await startFakeAnthropicServer();
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '2', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.baseURL });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await fake?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);

/** Sends a prompt and reads the session's events until its turn finished. */
async function turn(sid: string, text: string): Promise<SseEvent[]> {
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    const accepted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text });
    expect(accepted.status).toBe(202);
    return await readUntil(events, (e) => e.event === 'turn.finished' && data(e).turn_id === accepted.body.turn_id, 60_000);
  } finally {
    events.close();
  }
}

test('plan mode refuses the write as a result the model reads; switched off, the same prompt writes the file', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/plan-write' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;

  // One field of the policy changes; the others keep their values.
  expect((await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { timeout_s: 120 } })).status).toBe(200);
  const on = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: true } });
  expect(on.status).toBe(200);
  expect(on.body.approval).toMatchObject({ plan_mode: true, timeout_s: 120, auto_approve_readonly: true, always_allow: [] });
  expect((await http(base, 'GET', `/api/sessions/${sid}/settings`)).body.approval.plan_mode).toBe(true);

  const planned = await turn(sid, 'write out.txt');
  expect(fs.existsSync(path.join(workspace, 'out.txt'))).toBe(false);
  const kinds = planned.map((e) => e.event);
  expect(kinds).not.toContain('approval.requested');
  expect(kinds).not.toContain('file.changed');
  const calls = planned.filter((e) => e.event === 'tool.call').map(data);
  expect(calls.map((c) => [c.tool, c.requires_approval])).toEqual([
    ['read_file', false],
    ['write_file', false],
  ]);
  const results = planned.filter((e) => e.event === 'tool.result').map(data);
  expect(results.map((r) => r.status)).toEqual(['success', 'rejected']);
  expect(results[1].result).toMatch(/^Plan mode is on: this write_file call was not run\.\n.*switch plan mode off/);
  expect(data(planned.find((e) => e.event === 'turn.finished')!)).toMatchObject({ outcome: 'done' });
  const messages = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const last = messages[messages.length - 1].message;
  // Stored as a result that is not an error: the call did what plan mode promises.
  expect(messages[messages.length - 2].message).toMatchObject({ role: 'function_result', function_id: 'write_file', is_error: false, details: { plan_mode: true } });
  expect(last.content).toEqual([{ type: 'text', text: 'Result: Plan mode is on: this write_file call was not run.' }]);

  // Off again, with write_file allowed so the turn needs nobody: the plan is carried out.
  const off = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: false, always_allow: ['write_file'] } });
  expect(off.body.approval).toMatchObject({ plan_mode: false, timeout_s: 120 });
  const done = await turn(sid, 'write out.txt');
  expect(fs.readFileSync(path.join(workspace, 'out.txt'), 'utf8')).toBe('written');
  expect(done.filter((e) => e.event === 'tool.result').map((e) => data(e).status)).toEqual(['success', 'success']);
  expect(done.map((e) => e.event)).toContain('file.changed');
  // The first turn, refusal included, is still the conversation the second turn continued.
  const after = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages.map((m: { message: { role: string; content: unknown } }) => m.message);
  expect(after.filter((m: { role: string }) => m.role === 'user')).toHaveLength(2);
  expect(JSON.stringify(after)).toContain('Plan mode is on: this write_file call was not run.');
  expect(after[after.length - 1].content[0].text).toMatch(/^Result: /);
  expect(after[after.length - 1].content[0].text).not.toContain('Plan mode');
});

test('on the wire (Anthropic): the system prompt says plan mode only while it is on; the refusal and the plan stay in the conversation', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'anthropic/claude-sonnet-4-6' });
  const sid = created.body.session_id as string;
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: true } });
  fake.reply(
    { blocks: [{ type: 'tool_use', id: 'toolu_w', name: 'write_file', input: { path: 'wire.txt', content: 'x' } }], usage: { input_tokens: 100, output_tokens: 10 } },
    { blocks: [{ type: 'text', text: 'Plan:\n1. write wire.txt' }], usage: { input_tokens: 120, output_tokens: 10 } },
  );
  const first = fake.requests.length;
  await turn(sid, 'plan wire.txt');
  expect(fs.existsSync(path.join(workspace, 'wire.txt'))).toBe(false);
  const [ask, answer] = fake.requests.slice(first);
  expect(JSON.stringify(ask!.body.system)).toContain('Plan mode is on.');
  const refusal = (answer!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).at(-1)!.content.find((b) => b.type === 'tool_result')!;
  expect(refusal).toMatchObject({ tool_use_id: 'toolu_w' });
  expect(refusal.is_error).not.toBe(true);
  expect(JSON.stringify(refusal.content)).toContain('Plan mode is on: this write_file call was not run.');

  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { plan_mode: false } });
  fake.reply({ blocks: [{ type: 'text', text: 'Going ahead.' }], usage: { input_tokens: 150, output_tokens: 5 } });
  const before = fake.requests.length;
  await turn(sid, 'go ahead');
  const next = fake.requests[before]!.body;
  expect(JSON.stringify(next.system)).not.toContain('Plan mode is on.');
  const history = JSON.stringify(next.messages);
  expect(history).toContain('Plan mode is on: this write_file call was not run.');
  expect(history).toContain('1. write wire.txt');
});
