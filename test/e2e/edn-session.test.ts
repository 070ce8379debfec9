import fs from 'node:fs';
import path from 'node:path';
import type { EdnMap } from '../../services/gateway/edn/edn-value';
import { http } from '../harness/stack-fixture';
import { dataOf, kindOf, name, topicOf, type EdnTestClient } from './edn-session-client';
import { bootstrap, EMACS_CLIENT_INFO, EMACS_TOPICS, idleAfter, text, useEdnStack } from './edn-session-fixture';

/**
 * The EDN session layer against the real stack, the way psi's Emacs client drives it (its exact
 * handshake, topic list and queries, v0.1.2049), over `strand rpc-edn` (stdio, as the editor spawns
 * it) and the gateway's TCP listener: prompt streaming and its event order, a tool approval through
 * a dialog, abort mid-stream, the /model picker, reads and settings.
 * (Navigation, rehydration and error codes: edn-session-navigation.test.ts.)
 */
const edn = useEdnStack('edn-session');
const { workspace } = edn;
const stdio = (args: string[]) => edn.stdio(args);
const tcp = () => edn.tcp();
const focusNewSession = (c: EdnTestClient) => edn.focusNewSession(c);

test('an Emacs-style session over stdio: handshake, subscribe, get_messages, query_eql, prompt, deltas, message, idle', async () => {
  const c = stdio(['--cwd', workspace]);
  const hs = c.send('handshake', { 'client-info': EMACS_CLIENT_INFO });
  const info = dataOf(await c.answer(hs, 60_000))['server-info'] as EdnMap;
  expect(info).toMatchObject({ 'protocol-version': '1.0', 'model-id': 'echo', 'thinking-level': 'off' });
  const sid = info['session-id'] as string;
  expect((await http(edn.stack.urls.gateway, 'GET', `/api/sessions/${sid}`)).body.project_path).toBe(workspace);

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
  // The turn ends with the idle state and its footer; the footer with the store's fresh figures follows
  // whenever that read lands (feed.ts), here or later.
  const ending = order.slice(order.lastIndexOf('session/updated'));
  expect(ending.slice(0, 2)).toEqual(['session/updated', 'footer/updated']);
  expect(ending.slice(2).filter((t) => t !== 'footer/updated')).toEqual([]);
  expect(ending.length).toBeLessThanOrEqual(3);
  expect(turn.filter((f) => topicOf(f) === 'session/updated').pop()).toBe(idle);
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
  expect(dataOf(idle)).toMatchObject({ 'session-id': sid, phase: 'idle' });
  // Instead of waiting a while for nothing: a next turn, whose message comes after anything the aborted
  // one could still have sent. Up to it, nothing of the aborted turn; its deltas are exactly its own text.
  await c.request('set_model', { provider: 'scripted', 'model-id': 'echo' });
  const nextAt = c.frames.length;
  const next = c.send('prompt', { message: 'after the abort' });
  const nextAnswer = await c.answer(next);
  const nextMessage = await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, nextAt);
  await idleAfter(c, c.index(nextMessage));
  expect(dataOf(nextMessage)).toMatchObject({ text: 'You said: after the abort' });
  expect(c.frames.slice(c.index(answer) + 1, c.index(nextAnswer)).map(topicOf)).not.toContain('assistant/delta');
  expect(text(c.events('assistant/delta', c.index(answer) + 1))).toBe('You said: after the abort');
  expect(c.events('assistant/message', start)).toEqual([nextMessage]);
  const stored = (await http(edn.stack.urls.gateway, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const answers = stored.map((m: any) => m.message).filter((m: any) => m.role === 'assistant');
  expect(answers.map((m: any) => m.stop_reason)).toEqual(['aborted', 'end']);
  expect(answers[0].content[0].text.startsWith('w0 w1 w2')).toBe(true);
});

test('interrupt (psi\'s C-c C-c) mid-step: the step and its tool finish, the model is not called again, the turn ends idle; idle: a no-op', async () => {
  const c = await tcp();
  await bootstrap(c);
  const sid = await focusNewSession(c);
  await c.request('set_model', { provider: 'scripted', 'model-id': 'edn-interrupt' });
  const start = c.frames.length;
  c.send('prompt', { message: 'read the seed, then talk' });
  await c.waitFor((f) => topicOf(f) === 'assistant/delta' && c.events('assistant/delta', start).length >= 3, 30_000, start);
  const answer = await c.answer(c.send('interrupt'));
  expect(dataOf(answer)).toMatchObject({ accepted: true, pending: true, 'dropped-steering-text': null });
  // Told to the client as the session's state, then the turn runs its step to the end.
  await c.waitFor((f) => topicOf(f) === 'session/updated' && (dataOf(f) as EdnMap)['interrupt-pending'] === true, 30_000, start);
  const idle = await idleAfter(c, c.index(answer));
  expect(dataOf(idle)).toMatchObject({ 'session-id': sid, phase: 'idle', 'interrupt-pending': false });
  const texts = c.events('assistant/delta', start).map((f) => String((dataOf(f) as EdnMap).text ?? ''));
  expect(texts.join('')).not.toContain('second step');
  expect(c.events('tool/result', start).length).toBe(1);
  expect(c.events('ui/notification', start).map((f) => String((dataOf(f) as EdnMap).message))).toEqual([expect.stringMatching(/^interrupted: the turn stopped after step 1/)]);
  // The transcript: the prompt, the first step's answer with its tool call, the tool's result, and nothing after.
  const stored = (await http(edn.stack.urls.gateway, 'GET', `/api/sessions/${sid}/messages`)).body.messages as Array<{ message: { role: string; content: Array<{ type: string; text?: string }> } }>;
  expect(stored.map((m) => m.message.role)).toEqual(['user', 'assistant', 'function_result']);
  expect(JSON.stringify(stored)).not.toContain('second step');
  // Idle: nothing to interrupt.
  expect(dataOf(await c.answer(c.send('interrupt')))).toMatchObject({ accepted: true, pending: false });
});

test('bash runs the user\'s command in the workspace (tool events, recorded for the model); abort_bash stops a long one; prompts wait', async () => {
  const c = await tcp();
  await bootstrap(c);
  const sid = await focusNewSession(c);
  const start = c.frames.length;
  const ran = await c.request('bash', { command: 'echo strand-$((6*7)) && pwd' });
  expect(ran).toMatchObject({ 'exit-code': 0, cancelled: false, truncated: false });
  expect(ran.output).toContain('strand-42');
  expect(ran.output).toContain(fs.realpathSync(workspace));
  expect(c.frames.slice(start).map(topicOf)).toEqual(expect.arrayContaining(['tool/start', 'tool/result']));
  const failing = await c.request('bash', { command: 'exit 3' });
  expect(failing['exit-code']).toBe(3);
  // The conversation holds the command and its output: the model reads it with the next prompt.
  const stored = (await http(edn.stack.urls.gateway, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.message.content[0].text).join('\n')).toContain('$ echo strand-$((6*7)) && pwd\nstrand-42');

  const long = c.send('bash', { command: 'sleep 30; echo never' });
  await c.waitFor((f) => topicOf(f) === 'tool/start' && String(dataOf(f)['call-summary'] ?? dataOf(f)['arguments'] ?? '').includes('sleep'), 15_000, start);
  expect((await c.failure('prompt', { message: 'while the command runs' }))['error-code']).toBe('request/session-not-idle');
  expect(await c.request('abort_bash')).toEqual({ accepted: true, aborted: true });
  // `sleep 30` would answer on its own only after 30 s; the test's 15 s wait cannot see that answer.
  const stopped = dataOf(await c.answer(long, 15_000));
  expect(stopped).toMatchObject({ cancelled: true });
  expect(await c.request('abort_bash')).toEqual({ accepted: true, aborted: false });
  // Idle again: a prompt is taken.
  expect(await c.request('prompt', { message: 'after the command' })).toEqual({ accepted: true });
  await idleAfter(c, c.frames.length);
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
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === answer))).toEqual({ type: 'text', message: '✓ Model set to scripted slow.' });
  const updated = await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['model-id'] === 'slow');
  expect(dataOf(updated)['model-provider']).toBe('scripted');
  expect((await c.request('get_state')).state).toMatchObject({ model: { provider: 'scripted', id: 'slow' } });
  // Cancelled: said so, nothing changed.
  const again = c.send('command', { text: '/thinking' });
  await c.waitFor((f) => topicOf(f) === 'ui/frontend-action-requested' && f.id === again);
  const cancel = c.send('frontend_action_result', { 'request-id': again, 'action-name': 'select-thinking-level', status: 'cancelled', value: null });
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'command-result' && f.id === cancel)).message).toBe('Cancelled select-thinking-level.');
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
  // The footer of the turn's end (its usage read afresh) may still land first: the name's footer follows it.
  const footers = () => c.frames.slice(named).filter((f) => topicOf(f) === 'footer/updated').map((f) => String(dataOf(f)['path-line']));
  await c.waitFor((f) => topicOf(f) === 'footer/updated' && / • edn work$/.test(String(dataOf(f)['path-line'])), 10_000, named);
  // Footers never go back in time: none without the name after the first with it.
  const withName = footers().findIndex((line) => / • edn work$/.test(line));
  expect(footers().slice(withName).every((line) => / • edn work$/.test(line))).toBe(true);
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
