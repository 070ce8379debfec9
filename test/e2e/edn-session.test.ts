import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isKeyword, type EdnMap } from '../../services/gateway/edn/edn-value';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { dataOf, EdnTestClient, kindOf, name, topicOf, type Frame } from './edn-session-client';

/**
 * The EDN session layer against the real stack, the way psi's Emacs client drives it (its exact
 * handshake, topic list and queries, v0.1.2049): over `strand rpc-edn` (stdio, as the editor spawns
 * it) and over the gateway's TCP listener. Prompt streaming and its event order, a tool approval
 * through a dialog, abort mid-stream, the /model picker, new/fork/switch with rehydration (a turn
 * joined mid-stream replayed with no gap and no repeat), and every session error code.
 */
jest.setTimeout(60_000);

const REPO = path.resolve(__dirname, '../..');
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-edn-scripts-'));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-edn-project-'));
let stack: TestStack;
const clients: EdnTestClient[] = [];
const children: ChildProcess[] = [];

// psi-rpc-default-topics of the Emacs client: no tool/delta.
const EMACS_TOPICS = ['assistant/delta', 'assistant/thinking-delta', 'assistant/message', 'tool/start', 'tool/executing', 'tool/update', 'tool/result', 'session/updated', 'session/resumed', 'session/rehydrated', 'context/updated', 'footer/updated', 'command-result', 'error', 'ui/dialog-requested', 'ui/frontend-action-requested', 'ui/widgets-updated', 'ui/widget-specs-updated', 'ui/status-updated', 'ui/notification'];
const EMACS_CLIENT_INFO = { name: 'psi-emacs', version: '0.1.0', 'protocol-version': '1.0', features: [] };
const SLOW_WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);

beforeAll(async () => {
  const script = (n: string, steps: unknown[]) => fs.writeFileSync(path.join(scripts, `${n}.json`), JSON.stringify({ steps }));
  script('edn-write', [[{ type: 'text', text: 'I will write the note.' }, { type: 'tool_call', name: 'write_file', args: { path: 'note.txt', content: 'hello from edn' } }], [{ type: 'text', text: 'Done: {{tool_result_first_line}}' }]]);
  script('edn-slow', [SLOW_WORDS.flatMap((w) => [{ type: 'text', text: [w] }, { type: 'delay', ms: 60 }]).concat([{ type: 'text', text: ['the end.'] }])]);
  script('edn-read-slow', [[{ type: 'text', text: 'Reading first. ' }, { type: 'tool_call', name: 'read_file', args: { path: 'seed.txt' } }], SLOW_WORDS.slice(0, 25).flatMap((w) => [{ type: 'text', text: [w] }, { type: 'delay', ms: 60 }])]);
  fs.writeFileSync(path.join(workspace, 'seed.txt'), 'seed\n');
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

afterEach(() => {
  for (const c of clients) expect(c.violations).toEqual([]);
});

async function tcp(): Promise<EdnTestClient> {
  const c = await EdnTestClient.tcp(stack.urls.edn);
  clients.push(c);
  return c;
}

function stdio(args: string[]): EdnTestClient {
  const env = { ...process.env, STRAND_NATS_URL: stack.urls.nats, STRAND_TEMPORAL_ADDRESS: stack.urls.temporal, STRAND_LOG_LEVEL: 'warn' };
  const { client, child } = EdnTestClient.stdio(process.execPath, [path.join(REPO, 'bin/strand.cjs'), 'rpc-edn', ...args], env);
  clients.push(client);
  children.push(child);
  return client;
}

/** Handshake + the Emacs client's subscribe; returns the focus session id. */
async function bootstrap(c: EdnTestClient): Promise<string> {
  const info = (await c.request('handshake', { 'client-info': EMACS_CLIENT_INFO }, 60_000))['server-info'] as EdnMap;
  await c.request('subscribe', { topics: EMACS_TOPICS });
  return info['session-id'] as string;
}

const text = (frames: Frame[]) => frames.map((f) => dataOf(f).text).join('');
const idleAfter = (c: EdnTestClient, from: number) => c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['is-streaming'] === false, 30_000, from);

/** A session in `workspace` (over HTTP), focused on this connection with the rehydration sequence. */
async function focusNewSession(c: EdnTestClient): Promise<string> {
  const created = await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace });
  expect(created.status).toBe(201);
  await c.request('switch_session', { 'session-id': created.body.session_id });
  return created.body.session_id;
}

test('an Emacs-style session over stdio: handshake, subscribe, get_messages, query_eql, prompt, deltas, message, idle', async () => {
  const c = stdio(['--cwd', workspace]);
  const hs = c.send('handshake', { 'client-info': EMACS_CLIENT_INFO });
  const info = dataOf(await c.answer(hs, 60_000))['server-info'] as EdnMap;
  expect(info).toMatchObject({ 'protocol-version': '1.0', 'model-id': 'echo', 'thinking-level': 'off' });
  const sid = info['session-id'] as string;
  expect((await http(stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).body.project_path).toBe(workspace);

  const sub = c.send('subscribe', { topics: EMACS_TOPICS });
  expect(dataOf(await c.answer(sub)).subscribed).toEqual([...EMACS_TOPICS].sort());
  for (const topic of ['session/updated', 'footer/updated', 'context/updated']) expect(c.events(topic).find((f) => f.id === sub)).toBeDefined();
  expect(dataOf(c.events('footer/updated')[0]!)).toMatchObject({ 'session-id': sid, 'model-text': '(scripted) echo • thinking off' });

  expect(await c.request('get_messages')).toEqual({ messages: [] });
  const query = await c.request('query_eql', { query: '[:psi.extension/command-names :psi.agent-session/prompt-templates]' });
  expect(query).toEqual({ result: { 'psi.extension/command-names': [], 'psi.agent-session/prompt-templates': [] } });

  const start = c.frames.length;
  const id = c.send('prompt', { message: 'hello edn world' });
  const response = await c.answer(id);
  expect(response).toMatchObject({ ok: true, data: { accepted: true } });
  const message = await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, start);
  const idle = await idleAfter(c, c.index(message));
  await c.waitFor((f) => topicOf(f) === 'footer/updated', 10_000, c.index(idle));
  const turn = c.frames.slice(start);
  // The response first; then streaming state + footer, the deltas, the message, idle + footer.
  expect(c.index(response)).toBeLessThan(c.index(c.events('session/updated', start)[0]!));
  const order = turn.filter((f) => kindOf(f) === 'event').map((f) => topicOf(f));
  expect(order.slice(0, 2)).toEqual(['session/updated', 'footer/updated']);
  expect(dataOf(turn.find((f) => topicOf(f) === 'session/updated')!)).toMatchObject({ 'is-streaming': true, phase: 'streaming' });
  const deltas = c.events('assistant/delta', start);
  expect(deltas.length).toBeGreaterThan(2);
  expect(text(deltas)).toBe('You said: hello edn world');
  expect(c.index(deltas[deltas.length - 1]!)).toBeLessThan(c.index(message));
  expect(dataOf(message)).toMatchObject({ role: 'assistant', text: 'You said: hello edn world' });
  expect(name(dataOf(message)['stop-reason'])).toBe('stop');
  expect(((dataOf(message).content as EdnMap[])[0]!.type as { name: string }).name).toBe('text');
  expect(order.slice(-2)).toEqual(['session/updated', 'footer/updated']);
  expect(dataOf(c.events('footer/updated').pop()!)['usage-parts']).toEqual(expect.arrayContaining([expect.stringMatching(/^↓\d/)]));
  // Every event of the turn was caused by the prompt and names the session.
  for (const f of turn.filter((x) => kindOf(x) === 'event')) {
    expect(f.id).toBe(id);
    expect(dataOf(f)['session-id']).toBe(sid);
  }
  expect(c.events('tool/delta')).toEqual([]);

  const replay = (await c.request('get_messages')).messages as EdnMap[];
  expect(replay.map((m) => [m.role, m.text])).toEqual([
    ['user', 'hello edn world'],
    ['assistant', 'You said: hello edn world'],
  ]);
  c.close();
  await c.closed;
});

test('a tool approval over stdio: a confirm dialog, true approves and the file is written; nil rejects', async () => {
  const c = stdio(['--cwd', workspace]);
  await bootstrap(c);
  await c.request('set_model', { provider: 'scripted', 'model-id': 'edn-write' });
  const start = c.frames.length;
  const id = c.send('prompt', { message: 'write the note' });
  const dialog = await c.waitFor((f) => topicOf(f) === 'ui/dialog-requested', 30_000, start);
  const d = dataOf(dialog);
  expect(typeof d.kind).toBe('string');
  expect(d).toMatchObject({ kind: 'confirm', title: 'Allow write_file?' });
  expect(String(d.message)).toContain('write_file note.txt');
  const toolStart = c.events('tool/start', start)[0]!;
  expect(dataOf(toolStart)).toMatchObject({ 'tool-id': d['dialog-id'], 'tool-name': 'write_file', 'call-summary': 'write_file note.txt' });
  expect(fs.existsSync(path.join(workspace, 'note.txt'))).toBe(false);
  expect(await c.request('resolve_dialog', { 'dialog-id': d['dialog-id']!, result: true })).toEqual({ accepted: true });
  const result = await c.waitFor((f) => topicOf(f) === 'tool/result', 30_000, start);
  expect(dataOf(result)).toMatchObject({ 'tool-id': d['dialog-id'], 'tool-name': 'write_file', 'is-error': false });
  const message = await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, start);
  expect(String(dataOf(message).text)).toMatch(/^Done: /);
  expect(c.events('assistant/message', start)).toHaveLength(1);
  expect(c.events('tool/executing', start)).toHaveLength(1);
  expect(fs.readFileSync(path.join(workspace, 'note.txt'), 'utf8')).toBe('hello from edn');
  await idleAfter(c, c.index(message));
  // The turn's events carry the prompt's id (set_model's own state update may land in between, with its id or none).
  const turnTopics = /^(assistant|tool)\/|^ui\/dialog/;
  const noId = c.frames.slice(start).filter((f) => turnTopics.test(topicOf(f) ?? '') && f.id !== id);
  expect(noId.map(topicOf)).toEqual([]);

  // Once answered the dialog is gone; a "no" (nil) rejects the next call.
  expect((await c.failure('resolve_dialog', { 'dialog-id': d['dialog-id']!, result: true }))['error-code']).toBe('request/no-active-dialog');
  fs.rmSync(path.join(workspace, 'note.txt'));
  const again = c.frames.length;
  c.send('prompt', { message: 'write it again' });
  const second = dataOf(await c.waitFor((f) => topicOf(f) === 'ui/dialog-requested', 30_000, again));
  await c.request('resolve_dialog', { 'dialog-id': second['dialog-id']!, result: null });
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'tool/result', 30_000, again))['is-error']).toBe(true);
  await idleAfter(c, c.index(await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, again)));
  expect(fs.existsSync(path.join(workspace, 'note.txt'))).toBe(false);
});

test('abort mid-stream: after the abort answer no delta and no assistant/message; the turn ends idle; the partial is stored', async () => {
  const c = await tcp();
  await bootstrap(c);
  const sid = await focusNewSession(c);
  await c.request('set_model', { provider: 'scripted', 'model-id': 'edn-slow' });
  const start = c.frames.length;
  c.send('prompt', { message: 'talk slowly' });
  await c.waitFor((f) => topicOf(f) === 'assistant/delta' && c.events('assistant/delta', start).length >= 3, 30_000, start);
  const sentAt = c.frames.length;
  const abort = c.send('abort');
  const answer = await c.answer(abort);
  expect(dataOf(answer)).toMatchObject({ accepted: true, aborted: true });
  // The turn's end may be told before the abort's answer (the session ends the turn, then answers).
  const idle = await idleAfter(c, sentAt);
  await new Promise((r) => setTimeout(r, 500));
  const after = c.frames.slice(c.index(answer) + 1).map(topicOf);
  expect(after).not.toContain('assistant/delta');
  expect(c.frames.slice(sentAt).map(topicOf)).not.toContain('assistant/message');
  expect(c.events('assistant/message', start)).toEqual([]);
  expect(dataOf(idle)).toMatchObject({ 'session-id': sid, phase: 'idle' });
  const stored = (await http(stack.urls.gateway, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const last = stored[stored.length - 1].message;
  expect(last).toMatchObject({ role: 'assistant', stop_reason: 'aborted' });
  expect(last.content[0].text.startsWith('w0 w1 w2')).toBe(true);
});

test('the /model picker: frontend action, choice applied, "✓ Model set to ..."', async () => {
  const c = await tcp();
  await bootstrap(c);
  const id = c.send('command', { text: '/model' });
  expect(dataOf(await c.answer(id))).toMatchObject({ accepted: true });
  const picker = dataOf(await c.waitFor((f) => topicOf(f) === 'ui/frontend-action-requested' && f.id === id));
  const action = picker['ui/action'] as EdnMap;
  expect(name(action['ui/action-name'])).toBe('select-model');
  expect(name(action['ui/action-kind'])).toBe('select');
  expect(picker['request-id']).toBe(id);
  const item = (action['ui/items'] as EdnMap[]).find((i) => i['ui.item/label'] === 'scripted slow')!;
  expect(item['ui.item/value']).toEqual({ provider: 'scripted', id: 'slow' });
  // The client echoes the action and the item's value back.
  const answer = c.send('frontend_action_result', { 'request-id': id, 'action-name': 'select-model', 'ui/action': action, status: 'submitted', value: item['ui.item/value']! });
  expect(dataOf(await c.answer(answer))).toEqual({ accepted: true, 'request-id': id });
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === answer))).toEqual({ type: 'text', message: '✓ Model set to scripted slow' });
  const updated = await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['model-id'] === 'slow');
  expect(dataOf(updated)['model-provider']).toBe('scripted');
  expect((await c.request('get_state')).state).toMatchObject({ model: { provider: 'scripted', id: 'slow' } });
  // Cancelled: said so, nothing changed.
  const again = c.send('command', { text: '/thinking' });
  await c.waitFor((f) => topicOf(f) === 'ui/frontend-action-requested' && f.id === again);
  const cancel = c.send('frontend_action_result', { 'request-id': again, 'action-name': 'select-thinking-level', status: 'cancelled', value: null });
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === cancel)).message).toBe('Cancelled select-thinking-level.');
});

test('new, fork and switch: the rehydration sequence; a fresh connection joining a running turn gets the transcript and every delta once', async () => {
  const a = await tcp();
  await bootstrap(a);
  const first = await focusNewSession(a);
  const p1 = a.frames.length;
  a.send('prompt', { message: 'remember this' });
  await idleAfter(a, a.index(await a.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, p1)));
  const sequence = (c: EdnTestClient, id: string) => c.frames.filter((f) => f.id === id && kindOf(f) === 'event').map(topicOf);
  const REHYDRATE = ['session/resumed', 'session/rehydrated', 'session/updated', 'footer/updated', 'context/updated'];

  const made = a.send('new_session');
  const fresh = dataOf(await a.answer(made))['session-id'] as string;
  expect(fresh).not.toBe(first);
  expect(sequence(a, made)).toEqual(REHYDRATE);
  expect(dataOf(a.events('session/rehydrated').pop()!).messages).toEqual([]);
  expect((await http(stack.urls.gateway, 'GET', `/api/sessions/${fresh}`)).body.project_path).toBe(workspace);

  const forks = (await a.request('get_fork_messages', { 'session-id': first })).messages as EdnMap[];
  expect(forks.map((f) => f.text)).toEqual(['remember this']);
  const switched = a.send('switch_session', { 'session-id': first });
  await a.answer(switched);
  expect(sequence(a, switched)).toEqual(REHYDRATE);
  const forked = a.send('fork', { 'entry-id': forks[0]!['entry-id']! });
  const forkId = dataOf(await a.answer(forked))['session-id'] as string;
  expect(sequence(a, forked)).toEqual(REHYDRATE);
  const rehydrated = dataOf(a.events('session/rehydrated').pop()!);
  expect(rehydrated['session-id']).toBe(forkId);
  expect((rehydrated.messages as EdnMap[]).map((m) => m.text)).toEqual(['remember this']);
  const ctx = dataOf(a.events('context/updated').pop()!);
  expect(ctx['active-session-id']).toBe(forkId);
  expect((ctx.sessions as EdnMap[]).map((s) => s.id)).toEqual(expect.arrayContaining([first, fresh, forkId]));

  // A running turn on `first`, joined mid-stream by a fresh connection.
  await a.request('switch_session', { 'session-id': first });
  await a.request('set_model', { provider: 'scripted', 'model-id': 'edn-slow' });
  const p2 = a.frames.length;
  a.send('prompt', { message: 'a long one' });
  await a.waitFor((f) => topicOf(f) === 'assistant/delta' && a.events('assistant/delta', p2).length >= 5, 30_000, p2);
  const b = await tcp();
  await bootstrap(b);
  const join = b.send('switch_session', { 'session-id': first });
  await b.answer(join);
  // Another client resumes its own stream after the 5th delta it saw (its :session-seq).
  const seen = a.events('assistant/delta', p2).slice(0, 5);
  const resume = await tcp();
  await bootstrap(resume);
  const resumed = resume.send('subscribe', { 'session-id': first, since: dataOf(seen[4]!)['session-seq']! });
  await resume.answer(resumed);
  expect(sequence(resume, resumed)).toEqual(['session/rehydrated', 'session/updated', 'footer/updated', 'context/updated']);
  const joined = dataOf(b.events('session/rehydrated').pop()!);
  expect((joined.messages as EdnMap[]).map((m) => m.text)).toEqual(['remember this', 'You said: remember this', 'a long one']);
  const done = await b.waitFor((f) => topicOf(f) === 'assistant/message' && dataOf(f)['session-id'] === first, 30_000);
  const full = `${SLOW_WORDS.join('')}the end.`;
  expect(dataOf(done).text).toBe(full);
  const bDeltas = b.frames.filter((f) => topicOf(f) === 'assistant/delta' && dataOf(f)['session-id'] === first);
  expect(text(bDeltas)).toBe(full);
  expect(b.index(bDeltas[0]!)).toBeGreaterThan(b.index(b.events('session/rehydrated').pop()!));
  await resume.waitFor((f) => topicOf(f) === 'assistant/message' && dataOf(f)['session-id'] === first, 30_000);
  const resumedDeltas = resume.frames.filter((f) => topicOf(f) === 'assistant/delta' && dataOf(f)['session-id'] === first);
  expect(text(seen) + text(resumedDeltas)).toBe(full);
  // Its first session (from the handshake) sends nothing here any more.
  expect(b.frames.filter((f) => kindOf(f) === 'event' && b.index(f) > b.index(b.events('session/rehydrated').pop()!)).every((f) => dataOf(f)['session-id'] === first)).toBe(true);
  await idleAfter(a, a.index(await a.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, p2)));
});

test('joining a turn after its tool step: the transcript holds that step, only the running step is replayed', async () => {
  const a = await tcp();
  await bootstrap(a);
  const sid = await focusNewSession(a);
  await a.request('set_model', { provider: 'scripted', 'model-id': 'edn-read-slow' });
  const from = a.frames.length;
  a.send('prompt', { message: 'read then talk' });
  const result = await a.waitFor((f) => topicOf(f) === 'tool/result', 30_000, from);
  await a.waitFor((f) => topicOf(f) === 'assistant/delta' && a.index(f) > a.index(result) && a.events('assistant/delta', a.index(result)).length >= 3, 30_000, from);
  const b = await tcp();
  await bootstrap(b);
  await b.request('switch_session', { 'session-id': sid });
  const rehydrated = dataOf(b.events('session/rehydrated').pop()!);
  const shown = (m: EdnMap) => m.text ?? ((m.content as EdnMap[])[0]?.text as string);
  expect((rehydrated.messages as EdnMap[]).map((m) => [m.role, shown(m)])).toEqual([
    ['user', 'read then talk'],
    ['assistant', 'Reading first. '],
    ['toolResult', expect.stringContaining('seed')],
  ]);
  const done = await b.waitFor((f) => topicOf(f) === 'assistant/message' && dataOf(f)['session-id'] === sid, 30_000);
  const step1 = SLOW_WORDS.slice(0, 25).join('');
  expect(dataOf(done).text).toBe(step1);
  const mine = b.frames.filter((f) => dataOf(f)['session-id'] === sid);
  expect(text(mine.filter((f) => topicOf(f) === 'assistant/delta'))).toBe(step1);
  expect(mine.filter((f) => topicOf(f)?.startsWith('tool/'))).toEqual([]);
  await idleAfter(a, a.index(await a.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, from)));
});

test('reads and settings: stats, last text, commands, models, export_html, name, toggles, cycles, list, abort_retry', async () => {
  const c = await tcp();
  await bootstrap(c);
  const sid = await focusNewSession(c);
  const from = c.frames.length;
  c.send('prompt', { message: 'count me' });
  await idleAfter(c, c.index(await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, from)));
  const stats = (await c.request('get_session_stats')).stats as EdnMap;
  expect(stats).toMatchObject({ 'session-id': sid, model: 'scripted/echo', steps: 1, turns: 1, messages: { user: 1, assistant: 1, total: 2 } });
  expect((stats.tokens as EdnMap).output).toBeGreaterThan(0);
  expect(await c.request('get_last_assistant_text')).toMatchObject({ text: 'You said: count me' });
  expect(((await c.request('get_commands')).commands as EdnMap[]).map((x) => x.name)).toEqual(expect.arrayContaining(['model', 'thinking', 'compact', 'new', 'resume', 'tree', 'quit']));
  expect((await c.request('get_available_models')).models).toEqual(expect.arrayContaining([expect.objectContaining({ provider: 'scripted', id: 'echo' })]));
  const exported = await c.request('export_html');
  const html = fs.readFileSync(exported.path as string, 'utf8');
  expect(html).toContain('<!DOCTYPE html>');
  expect(html).toContain('You said: count me');
  fs.rmSync(exported.path as string);

  const named = c.frames.length;
  expect(await c.request('set_session_name', { name: 'edn work' })).toEqual({ 'session-name': 'edn work' });
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['session-name'] === 'edn work', 10_000, named))['session-id']).toBe(sid);
  expect(String(dataOf(await c.waitFor((f) => topicOf(f) === 'footer/updated', 10_000, named))['path-line'])).toMatch(/ • edn work$/);
  expect(await c.request('set_auto_retry', { enabled: false })).toEqual({ enabled: false });
  expect(await c.request('set_auto_compaction', { enabled: false })).toEqual({ enabled: false });
  expect((await c.request('get_state')).state).toMatchObject({ 'session-name': 'edn work', 'auto-retry-enabled': false, 'auto-compaction-enabled': false });
  const next = (await c.request('cycle_model', { direction: 'next' })).model as EdnMap;
  const back = (await c.request('cycle_model', { direction: 'prev' })).model as EdnMap;
  expect(next.id).not.toBe('echo');
  expect(back).toEqual({ provider: 'scripted', id: 'echo' });
  expect(await c.request('cycle_thinking_level')).toEqual({ 'thinking-level': 'off' });
  expect(await c.request('abort_retry')).toEqual({ accepted: true, cancelled: false });
  const listed = await c.request('list_sessions');
  expect(listed['active-session-id']).toBe(sid);
  expect((listed.sessions as EdnMap[]).find((x) => x.id === sid)).toMatchObject({ 'is-active': true, 'worktree-path': workspace });
  expect(await c.request('ping')).toEqual({ pong: true, 'protocol-version': '1.0' });
});

test('every session error code', async () => {
  const c = await tcp();
  await bootstrap(c);
  const sid = await focusNewSession(c);
  const code = async (op: string, params?: EdnMap) => (await c.failure(op, params))['error-code'];
  expect(await code('teleport')).toBe('request/op-not-supported');
  const unsupported = await c.failure('teleport');
  expect((dataOf(unsupported)['supported-ops'] as string[]).length).toBeGreaterThan(30);
  expect(unsupported).toMatchObject({ id: unsupported.id, op: 'teleport' });
  expect(await code('prompt', {})).toBe('request/invalid-params');
  expect(await code('switch_session', { 'session-id': 'sess_does_not_exist' })).toBe('request/not-found');
  expect(await code('get_messages', { 'session-id': 'sess_does_not_exist' })).toBe('request/not-found');
  expect(await code('fork', { 'entry-id': 'no-such-entry' })).toBe('request/not-found');
  expect(await code('set_model', { provider: 'openai', 'model-id': 'gpt-5' })).toBe('request/unknown-model');
  expect(await code('resolve_dialog', { 'dialog-id': 'call_nope', result: true })).toBe('request/no-active-dialog');
  expect(await code('cancel_dialog', { 'dialog-id': 'call_nope' })).toBe('request/no-active-dialog');
  expect(await code('login_complete', { input: 'code' })).toBe('request/no-pending-login');
  expect(await code('login_begin', { provider: 'anthropic' })).toBe('runtime/failed');
  expect(await code('bash', { command: 'ls' })).toBe('runtime/failed');
  expect(await code('query_eql', { query: '[:psi.agent-session/model-id' })).toBe('request/invalid-query');
  expect(await code('query_eql', { query: ':psi.agent-session/model-id' })).toBe('request/invalid-query');
  const unknown = await c.failure('query_eql', { query: '[:psi.agent-session/model-id :no.such/thing]' });
  expect(unknown['error-code']).toBe('request/invalid-query');
  expect(String(unknown['error-message'])).toContain(':no.such/thing');
  // Busy: a second prompt, and compact, while a turn runs.
  await c.request('set_model', { provider: 'scripted', 'model-id': 'edn-slow' });
  const start = c.frames.length;
  c.send('prompt', { message: 'keep talking' });
  await c.waitFor((f) => topicOf(f) === 'assistant/delta', 30_000, start);
  expect(await code('prompt', { message: 'me too' })).toBe('request/session-not-idle');
  expect(await code('compact')).toBe('request/session-not-idle');
  await c.request('abort');
  await idleAfter(c, start);
  expect((await c.request('get_state')).state).toMatchObject({ 'session-id': sid, 'is-streaming': false });
  // The EQL attributes the client asks for when switching sessions all resolve.
  const eql = (await c.request('query_eql', { query: '[{:psi.agent-session/tool-lifecycle-summaries [:psi.tool-lifecycle.summary/tool-id :psi.tool-lifecycle.summary/completed?]} :psi.turn/is-streaming {:psi.turn/tool-calls [:id :name :arguments]} :strand.session/id :strand.session/cost]' })).result as EdnMap;
  expect(eql).toMatchObject({ 'psi.turn/is-streaming': false, 'psi.turn/tool-calls': [], 'strand.session/id': sid });
  expect(isKeyword(eql['strand.session/id'])).toBe(false);
});
