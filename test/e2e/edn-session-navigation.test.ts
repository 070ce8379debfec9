import { isKeyword, type EdnMap } from '../../services/gateway/edn/edn-value';
import { http } from '../harness/stack-fixture';
import { dataOf, kindOf, topicOf, type EdnTestClient } from './edn-session-client';
import { bootstrap, idleAfter, SLOW_WORDS, text, useEdnStack } from './edn-session-fixture';

/**
 * Sessions and focus over EDN against the real stack: new, fork and switch with the rehydration
 * sequence; a turn joined mid-stream by a fresh connection (transcript + every delta once) and a
 * stream resumed with `:since`; joining after a tool step; every session error code.
 */
const edn = useEdnStack('edn-nav');
const { workspace } = edn;
const tcp = () => edn.tcp();
const focusNewSession = (c: EdnTestClient) => edn.focusNewSession(c);

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
  expect((await http(edn.stack.urls.gateway, 'GET', `/api/sessions/${fresh}`)).body.project_path).toBe(workspace);

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
  expect(await code('bash', {})).toBe('request/invalid-params');
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
