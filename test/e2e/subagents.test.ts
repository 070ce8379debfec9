import { Client, Connection } from '@temporalio/client';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { interruptUpdate } from '../../contracts/session-workflow';
import { sessionWorkflowId } from '../../contracts/workflow-ids';

/**
 * Durable subagents on the real stack (docs/subagents.md). One scripted model plays parent and child
 * (a sub-agent runs on its parent's model): step 0 calls `task` twice and read_file; in the parent the
 * tasks run as child workflows, in a child both task calls are refused (depth cap) and read_file runs;
 * step 1 answers with the last tool result's first line. So each child answers with README.md's first
 * line, which becomes its task call's result, and the parent answers after both.
 */
let stack: TestStack;
let base: string;
let connection: Connection;
let client: Client;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-subagent-scripts-'));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-subagent-ws-'));

function script(name: string, answerDelayMs: number): void {
  const task = (id: string, description: string) => ({ type: 'tool_call', id, name: 'task', args: { description, prompt: 'Read README.md and report its first line.' } });
  fs.writeFileSync(
    path.join(scripts, `${name}.json`),
    JSON.stringify({
      steps: [
        [{ type: 'text', text: 'Delegating.' }, task('task_a', 'first look'), task('task_b', 'second look'), { type: 'tool_call', name: 'read_file', args: { path: 'README.md' } }],
        [{ type: 'delay', ms: answerDelayMs }, { type: 'text', text: 'Answer: {{tool_result_first_line}}' }],
      ],
    }),
  );
}

beforeAll(async () => {
  fs.writeFileSync(path.join(workspace, 'README.md'), '# Subagent demo\nsecond line\n');
  script('sub-parallel', 1_500);
  script('sub-slow', 60_000);
  script('sub-crash', 6_000);
  // A sub-agent with a long job: eight more steps of a 2 s think and a read (the parent never gets past step 0 here).
  const task = (id: string) => ({ type: 'tool_call', id, name: 'task', args: { description: id, prompt: 'Read README.md many times.' } });
  const read = { type: 'tool_call', name: 'read_file', args: { path: 'README.md' } };
  const steps = [[{ type: 'text', text: 'Delegating.' }, task('task_a'), task('task_b'), read], ...Array.from({ length: 8 }, () => [{ type: 'delay', ms: 2_000 }, { type: 'text', text: 'Reading again.' }, read]), [{ type: 'text', text: 'Answer: done' }]];
  fs.writeFileSync(path.join(scripts, 'sub-interrupt.json'), JSON.stringify({ steps }));
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts });
  base = stack.urls.gateway;
  connection = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection });
}, 180_000);

afterAll(async () => {
  await connection?.close();
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);
/** Step 1's answer: the first line of the last tool result, read_file's numbered first line of README.md. */
const ANSWER = 'Answer:      1\t# Subagent demo';
const childId = (sid: string, call: string) => `session:${sid}:turn:1:task:${call}`;

async function startSession(model: string): Promise<{ sid: string; events: Awaited<ReturnType<typeof openSse>> }> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model });
  const sid = created.body.session_id as string;
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'look at the README twice' })).status).toBe(202);
  return { sid, events };
}

/** Until both children have had a tool result matching `result` (their read of README.md), on the parent's stream. */
async function bothChildrenRead(events: Awaited<ReturnType<typeof openSse>>, result = /Subagent/): Promise<void> {
  const seen = new Set<string>();
  await readUntil(events, (e) => {
    if (e.event === 'subagent' && data(e).event === 'tool.result' && result.test(JSON.stringify(data(e).data.result))) seen.add(data(e).tool_call_id);
    return seen.size === 2;
  }, 60_000);
}

test('two task calls run as parallel child workflows; each answer is its tool result; the parent answers after them', async () => {
  const { sid, events } = await startSession('scripted/sub-parallel');
  const all = await readUntil(events, (e) => e.event === 'turn.finished', 90_000);
  events.close();
  expect(data(all[all.length - 1]!)).toMatchObject({ turn_id: 't1', outcome: 'done' });

  // Both children ran as children of the turn, at the same time.
  const [a, b] = await Promise.all(['task_a', 'task_b'].map((c) => client.workflow.getHandle(childId(sid, c)).describe()));
  for (const d of [a!, b!]) {
    expect(d.status.name).toBe('COMPLETED');
    expect(d.parentExecution?.workflowId).toBe(`session:${sid}:turn:1`);
  }
  expect(a!.startTime.getTime()).toBeLessThan(b!.closeTime!.getTime());
  expect(b!.startTime.getTime()).toBeLessThan(a!.closeTime!.getTime());

  // The parent's conversation: each task's result is its child's answer, then the parent's own answer.
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const results = stored.filter((m: any) => m.message.role === 'function_result');
  const byCall = Object.fromEntries(results.map((m: any) => [m.message.function_call_id, m.message]));
  for (const call of ['task_a', 'task_b']) {
    expect(byCall[call]).toMatchObject({ function_id: 'task', is_error: false, content: [{ type: 'text', text: ANSWER }] });
    expect(byCall[call].details.subagent).toMatchObject({ session_id: `${sid}~task~t1~${call}`, outcome: 'done', steps: 2 });
    expect(byCall[call].details.subagent.usage.output).toBeGreaterThan(0);
  }
  // The session's spending includes its sub-agents' (what /stats shows and the budget check compares).
  const own = stored.filter((m: any) => m.message.role === 'assistant').reduce((n: number, m: any) => n + m.message.usage.output, 0);
  const children = ['task_a', 'task_b'].reduce((n, c) => n + byCall[c].details.subagent.usage.output, 0);
  expect((await http(base, 'GET', `/api/sessions/${sid}/stats`)).body.usage.output).toBe(own + children);
  const last = stored[stored.length - 1].message;
  expect(last.role).toBe('assistant');
  expect(last.content).toEqual([{ type: 'text', text: ANSWER }]);
  expect(stored.filter((m: any) => m.message.role === 'assistant')).toHaveLength(2);

  // The sub-sessions exist, linked to the parent; a child's task calls were refused (no recursion).
  for (const call of ['task_a', 'task_b']) {
    const sub = await http(base, 'GET', `/api/sessions/${encodeURIComponent(`${sid}~task~t1~${call}`)}/messages`);
    expect(sub.status).toBe(200);
    const roles = sub.body.messages.map((m: any) => m.message.role);
    expect(roles).toEqual(['user', 'assistant', 'function_result', 'function_result', 'function_result', 'assistant']);
    const refused = sub.body.messages.filter((m: any) => m.message.function_id === 'task');
    expect(refused.map((m: any) => m.message.content[0].text)).toEqual([expect.stringMatching(/not run: a sub-agent may only use/), expect.stringMatching(/not run: a sub-agent may only use/)]);
  }

  // SSE: the children's events arrive marked as `subagent` frames; the parent's own text is its own answer only.
  const frames = all.filter((e) => e.event === 'subagent').map(data);
  for (const call of ['task_a', 'task_b']) {
    const mine = frames.filter((f) => f.tool_call_id === call);
    expect(mine.every((f) => f.session_id === `${sid}~task~t1~${call}`)).toBe(true);
    expect(mine.map((f) => f.event)).toEqual(expect.arrayContaining(['message.delta', 'tool.call', 'tool.result', 'message.done']));
    expect(mine.filter((f) => f.event === 'message.done').map((f) => f.data.content)).toContain(ANSWER);
  }
  const parentText = all.filter((e) => e.event === 'message.delta').map((e) => data(e).content).join('');
  expect(parentText.startsWith('Delegating.')).toBe(true);
  expect(parentText.split(ANSWER)).toHaveLength(2);
  // Each task's result event is the parent's (unmarked), after its child's last marked frame.
  const resultAt = (call: string) => all.findIndex((e) => e.event === 'tool.result' && data(e).tool_call_id === call);
  const lastChildFrame = (call: string) => all.map((e, i) => (e.event === 'subagent' && data(e).tool_call_id === call ? i : -1)).reduce((x, y) => Math.max(x, y), -1);
  for (const call of ['task_a', 'task_b']) expect(resultAt(call)).toBeGreaterThan(lastChildFrame(call));
}, 150_000);

test('aborting the parent cancels its running children; the parent turn ends aborted', async () => {
  const { sid, events } = await startSession('scripted/sub-slow');
  // Both children are in their (long) answer step: each has had its read_file result.
  await bothChildrenRead(events, /README|Subagent/);
  // HTTP's abort: answers once the turn has ended.
  const interrupted = await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
  expect({ status: interrupted.status, body: interrupted.body }).toMatchObject({ status: 200 });
  const rest = await readUntil(events, (e) => e.event === 'turn.finished', 60_000);
  events.close();
  expect(data(rest[rest.length - 1]!)).toMatchObject({ turn_id: 't1', outcome: 'aborted' });
  for (const call of ['task_a', 'task_b']) {
    const d = await client.workflow.getHandle(childId(sid, call)).describe();
    expect(d.status.name).toBe('CANCELLED');
  }
  // Every task call still has its result in the parent's conversation: cut off by the abort.
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const results = stored.filter((m: any) => m.message.function_id === 'task').map((m: any) => m.message);
  expect(results.map((m: any) => [m.function_call_id, m.is_error])).toEqual([['task_a', true], ['task_b', true]]);
  expect(results.every((m: any) => /aborted/.test(m.content[0].text))).toBe(true);
}, 150_000);

test("an interrupt (psi's C-c C-c: stop at the next step boundary) reaches the running sub-agents: each stops after its current step, and so does the parent", async () => {
  const { sid, events } = await startSession('scripted/sub-interrupt');
  await bothChildrenRead(events);
  // What EDN's interrupt op sends (edn-session.test.ts drives the op itself): the session workflow's interrupt update.
  const asked = await client.workflow.getHandle(sessionWorkflowId(sid)).executeUpdate(interruptUpdate, { args: [{}] });
  expect(asked).toMatchObject({ pending: true, turn_id: 't1' });
  const rest = await readUntil(events, (e) => e.event === 'turn.finished', 60_000);
  events.close();
  expect(data(rest[rest.length - 1]!)).toMatchObject({ turn_id: 't1', outcome: 'done' });
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  // The parent stopped after step 0: no second model step.
  expect(stored.some((m: any) => m.entry_id === 't1:s1:assistant')).toBe(false);
  for (const call of ['task_a', 'task_b']) {
    const result = stored.find((m: any) => m.message.function_call_id === call).message;
    expect(result.is_error).toBe(true);
    expect(result.content[0].text).toMatch(/^The sub-agent was interrupted \(the turn was asked to stop\) after [23] steps/);
    expect((await client.workflow.getHandle(childId(sid, call)).describe()).status.name).toBe('COMPLETED');
    // Of its ten steps it ran the one under way and no more (not all ten, as it did before interrupts were passed on).
    const sub = (await http(base, 'GET', `/api/sessions/${encodeURIComponent(`${sid}~task~t1~${call}`)}/messages`)).body.messages;
    expect(sub.filter((m: any) => m.message.role === 'assistant').length).toBeLessThanOrEqual(3);
  }
}, 150_000);

test('kill -9 the worker while the children run: after a restart they and the parent finish, each answer stored once', async () => {
  const { sid, events } = await startSession('scripted/sub-crash');
  await bothChildrenRead(events);
  await stack.process('worker').kill();
  await stack.restart('worker');
  const rest = await readUntil(events, (e) => e.event === 'turn.finished', 120_000);
  events.close();
  expect(data(rest[rest.length - 1]!)).toMatchObject({ turn_id: 't1', outcome: 'done' });
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant', 't1:s0:tool:task_a', 't1:s0:tool:task_b', expect.stringMatching(/^t1:s0:tool:/), 't1:s1:assistant']);
  for (const call of ['task_a', 'task_b']) {
    expect(stored.find((m: any) => m.message.function_call_id === call).message.content[0].text).toBe(ANSWER);
    const d = await client.workflow.getHandle(childId(sid, call)).describe();
    expect(d.status.name).toBe('COMPLETED');
    const sub = (await http(base, 'GET', `/api/sessions/${encodeURIComponent(`${sid}~task~t1~${call}`)}/messages`)).body.messages;
    expect(sub.filter((m: any) => m.message.role === 'assistant')).toHaveLength(2);
  }
}, 200_000);
