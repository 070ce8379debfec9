import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSse, readUntil, type SseConnection, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId } from '../harness/ws-rpc-client';
import { dataOf, EdnTestClient, topicOf } from './edn-session-client';

/**
 * Budgets on the real stack (docs/budgets.md). A scripted model reports exact usage: step 0 lists the
 * project (150 tokens: 100 in, 50 out; $0.15 at the test catalog's price), step 1 answers. With a cap
 * of 100 tokens, step 0 runs and the turn pauses before step 1 in phase `waiting_budget`, announcing
 * `budget.exceeded`; raising the cap (PATCH …/settings) continues it, an interrupt ends it, and the
 * pause survives a restart of the worker. A WebSocket chat and an EDN client (psi) hear the pause in
 * their own protocol. The stack's STRAND_BUDGET_TOKENS gives every new session a (large) first cap.
 */
jest.setTimeout(180_000);

let stack: TestStack;
let base: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-budgets-'));
const scripts = path.join(tmp, 'scripts');
const workspace = path.join(tmp, 'project');
const MODEL = 'scripted/budget-steps';
const DEFAULT_TOKENS = 1_000_000;

beforeAll(async () => {
  fs.mkdirSync(scripts, { recursive: true });
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello\n');
  const steps = [
    [{ type: 'text', text: 'Looking around.' }, { type: 'tool_call', name: 'list_files', args: { path: '.' } }, { type: 'usage', input: 100, output: 50 }],
    [{ type: 'text', text: 'All done.' }, { type: 'usage', input: 200, output: 20 }],
  ];
  fs.writeFileSync(path.join(scripts, 'budget-steps.json'), JSON.stringify({ steps }));
  // A price for the scripted model (USD per million tokens), so its steps cost something.
  const models = path.join(tmp, 'models.json');
  const price = { input: 1000, output: 1000, cache_read: 0, cache_write: 0 };
  fs.writeFileSync(models, JSON.stringify({ models: [{ provider: 'scripted', id: 'budget-steps', name: 'budget steps', context_window: 200000, max_output_tokens: 8192, price }] }));
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_MODELS_FILE: models, STRAND_SCRIPTED_DELTA_DELAY_MS: '2', STRAND_BUDGET_TOKENS: String(DEFAULT_TOKENS) });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);
const kinds = (events: SseEvent[]) => events.map((e) => e.event);

async function newSession(): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: MODEL });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

/** Opens the session's events, sends the prompt, and reads until the turn waits for budget. */
async function promptUntilPaused(sid: string, body: Record<string, unknown>): Promise<{ events: SseConnection; seen: SseEvent[]; turnId: string }> {
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const accepted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, body);
  expect(accepted.status).toBe(202);
  const seen = await readUntil(events, (e) => e.event === 'budget.exceeded', 60_000);
  return { events, seen, turnId: accepted.body.turn_id as string };
}

/**
 * Polls until `check` holds. The turn tells its session where it is with a signal that leaves with
 * the workflow task after its own state and event are published, so a read right after the event
 * may still find the session a moment behind; it converges.
 */
async function until(check: () => Promise<boolean>, what = 'the session to say waiting_budget'): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const finished = (turnId: string) => (e: SseEvent) => e.event === 'turn.finished' && data(e).turn_id === turnId;

async function assistantTexts(sid: string): Promise<string[]> {
  const messages = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages as Array<{ message: { role: string; content: Array<{ type: string; text?: string }> } }>;
  return messages.filter((m) => m.message.role === 'assistant').map((m) => m.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''));
}

test('a turn pauses at the cap (waiting_budget, budget.exceeded) and goes on when the cap is raised', async () => {
  const sid = await newSession();
  // The gateway's default cap is the new session's own.
  expect((await http(base, 'GET', `/api/sessions/${sid}/settings`)).body.budget).toEqual({ max_tokens: DEFAULT_TOKENS });
  const set = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 100, max_cost_usd: 5 } });
  expect(set.status).toBe(200);
  expect(set.body.budget).toEqual({ max_tokens: 100, max_cost_usd: 5 });

  const { events, seen, turnId } = await promptUntilPaused(sid, { text: 'look around' });
  try {
    // Step 0 ran and answered; the waiting state comes before the announcement.
    expect(kinds(seen)).toContain('tool.result');
    const waiting = seen.findIndex((e) => e.event === 'agent.state' && data(e).state === 'waiting_budget');
    expect(waiting).toBeGreaterThan(seen.findIndex((e) => e.event === 'tool.result'));
    expect(waiting).toBeLessThan(seen.length - 1);
    expect(data(seen[seen.length - 1]!)).toEqual({ type: 'budget.exceeded', turn_id: turnId, spent_usd: 0.15, spent_tokens: 150, limit: { max_cost_usd: 5, max_tokens: 100 } });
    expect(await assistantTexts(sid)).toEqual(['Looking around.']);

    // Every read of the session says it waits, and what it spent against what cap.
    await until(async () => (await http(base, 'GET', `/api/sessions/${sid}`)).body.agent_state === 'waiting_budget');
    const listed = (await http(base, 'GET', '/api/sessions?limit=100')).body.sessions.find((s: { session_id: string }) => s.session_id === sid);
    expect(listed).toMatchObject({ agent_state: 'waiting_budget', budget: { max_tokens: 100, max_cost_usd: 5 }, spent: { tokens: 150, cost_usd: 0.15 } });
    // A session without caps is listed without reading its transcript: no spent, no budget.
    const uncapped = (await http(base, 'POST', '/api/sessions', { project_path: workspace })).body.session_id;
    expect((await http(base, 'PATCH', `/api/sessions/${uncapped}/settings`, { budget: { max_tokens: null, max_cost_usd: null } })).body.budget).toBeUndefined();
    const listedUncapped = (await http(base, 'GET', '/api/sessions?limit=100')).body.sessions.find((s: { session_id: string }) => s.session_id === uncapped);
    expect(listedUncapped).toBeDefined();
    expect(listedUncapped.spent).toBeUndefined();
    expect(listedUncapped.budget).toBeUndefined();
    const stats = (await http(base, 'GET', `/api/sessions/${sid}/stats`)).body;
    expect(stats).toMatchObject({ budget: { max_tokens: 100 }, usage: { input: 100, output: 50, cost_usd: 0.15 } });

    // Raising one cap (the other stays) continues the turn where it stopped.
    const raised = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 10_000 } });
    expect(raised.body.budget).toEqual({ max_tokens: 10_000, max_cost_usd: 5 });
    const rest = await readUntil(events, finished(turnId), 60_000);
    expect(kinds(rest)).not.toContain('budget.exceeded');
    expect(data(rest[rest.length - 1]!)).toMatchObject({ outcome: 'done' });
    expect(await assistantTexts(sid)).toEqual(['Looking around.', 'All done.']);
  } finally {
    events.close();
  }
  // Null clears a cap; clearing both leaves no budget at all.
  const cleared = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: null, max_cost_usd: null } });
  expect(cleared.body.budget).toBeUndefined();
});

test('an interrupt (HTTP: it aborts) ends a turn that waits for budget; the model is not called again', async () => {
  const sid = await newSession();
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_cost_usd: 0.1 } });
  const { events, seen, turnId } = await promptUntilPaused(sid, { text: 'look around' });
  try {
    expect(data(seen[seen.length - 1]!)).toMatchObject({ spent_usd: 0.15, limit: { max_cost_usd: 0.1, max_tokens: DEFAULT_TOKENS } });
    expect((await http(base, 'POST', `/api/sessions/${sid}/interrupt`)).status).toBeLessThan(300);
    const rest = await readUntil(events, finished(turnId), 30_000);
    expect(data(rest[rest.length - 1]!)).toMatchObject({ outcome: 'aborted' });
  } finally {
    events.close();
  }
  expect(await assistantTexts(sid)).toEqual(['Looking around.']);
  expect((await http(base, 'GET', `/api/sessions/${sid}`)).body.agent_state).toBe('idle');
});

test("a prompt's own budget: the lower cap applies, so raising the session's does not lift it", async () => {
  const sid = await newSession();
  const { events, seen, turnId } = await promptUntilPaused(sid, { text: 'look around', budget: { max_tokens: 120 } });
  try {
    expect(data(seen[seen.length - 1]!).limit).toEqual({ max_cost_usd: null, max_tokens: 120 });
    // The session's cap goes up; the prompt's is still the lower one: announced again, still waiting.
    await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 50_000 } });
    const again = await readUntil(events, (e) => e.event === 'budget.exceeded', 30_000);
    expect(data(again[again.length - 1]!)).toMatchObject({ spent_tokens: 150, limit: { max_tokens: 120 } });
    await until(async () => (await http(base, 'GET', `/api/sessions/${sid}`)).body.agent_state === 'waiting_budget');
    await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
    const rest = await readUntil(events, finished(turnId), 30_000);
    expect(data(rest[rest.length - 1]!)).toMatchObject({ outcome: 'aborted' });
  } finally {
    events.close();
  }
});

test('the pause survives a restart of the worker; raising the cap afterwards continues the turn', async () => {
  const sid = await newSession();
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 100 } });
  const { events, turnId } = await promptUntilPaused(sid, { text: 'look around' });
  try {
    await stack.process('worker').kill();
    await stack.restart('worker');
    // The new worker rebuilds the session from its history: still waiting, nothing run again.
    await until(async () => (await http(base, 'GET', `/api/sessions/${sid}`)).body.agent_state === 'waiting_budget');
    // Clearing the cap is raising it.
    const cleared = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: null } });
    expect(cleared.status).toBe(200);
    const rest = await readUntil(events, finished(turnId), 60_000);
    expect(data(rest[rest.length - 1]!)).toMatchObject({ outcome: 'done' });
  } finally {
    events.close();
  }
  expect(await assistantTexts(sid)).toEqual(['Looking around.', 'All done.']);
});

test('a WebSocket chat hears the pause as a notice naming the cap, and ends done once the cap is raised', async () => {
  const sid = await newSession();
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 100 } });
  const c = await connectRpc(`${base.replace(/^http/, 'ws')}/v1/rpc`);
  try {
    const id = rpcId();
    c.send(chatStart(id, 'look around', { sessionId: sid, workspace, model: MODEL }));
    const notice = await c.waitFor((f) => f.id === id && f.type === 'chat.event' && f.event.type === 'notice' && /budget reached/.test(f.event.message), 60_000);
    expect(notice.event.message).toContain(`spent $0.15 and 150 tokens of 100 tokens; the turn waits`);
    expect(notice.event.message).toContain(`PATCH /api/sessions/${sid}/settings`);
    await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 10_000 } });
    const end = await c.terminal(id, 60_000);
    expect(end.type).toBe('chat.done');
    expect(c.invalid).toEqual([]);
  } finally {
    c.close();
  }
});

test("an EDN client (psi) sees the pause as a ui/notification, get_session_stats carries the caps, and its interrupt ends the turn", async () => {
  const sid = await newSession();
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { budget: { max_tokens: 100 } });
  const c = await EdnTestClient.tcp(stack.urls.edn);
  try {
    await c.request('handshake', { 'client-info': { name: 'test', version: '0', 'protocol-version': '1.0', features: [] } }, 60_000);
    await c.request('subscribe', { topics: ['session/updated', 'ui/notification', 'assistant/message', 'error'] });
    await c.request('switch_session', { 'session-id': sid });
    const from = c.frames.length;
    await c.request('prompt', { message: 'look around' });
    const note = await c.waitFor((f) => topicOf(f) === 'ui/notification' && /^budget reached/.test(String(dataOf(f).message)), 60_000, from);
    expect(dataOf(note)).toMatchObject({ level: 'warning', 'session-id': sid });
    expect(String(dataOf(note).message)).toContain('spent $0.15 and 150 tokens of 100 tokens; the turn waits');
    await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['agent-phase'] === 'waiting_budget', 30_000, from);
    const stats = (await c.request('get_session_stats')).stats as Record<string, unknown>;
    expect(stats).toMatchObject({ budget: { 'max-cost-usd': null, 'max-tokens': 100 }, cost: 0.15, tokens: { total: 150 } });

    // psi's interrupt: the waiting turn ends at once, aborted, with a notice saying why; the model is not called again.
    await c.request('interrupt');
    await c.waitFor((f) => topicOf(f) === 'ui/notification' && /waited for a higher budget/.test(String(dataOf(f).message)), 30_000, from);
    await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['is-streaming'] === false, 30_000, from);
    expect(c.violations).toEqual([]);
  } finally {
    c.close();
  }
  expect(await assistantTexts(sid)).toEqual(['Looking around.']);
});
