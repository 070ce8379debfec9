import { commandsFor } from '../../../../contracts/slash-commands';
import pino from 'pino';
import type { AgentEvent } from '../../../../contracts/agent-events';
import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { builtinModelCatalog } from '../../../../contracts/model-catalog';
import type { SequencedEvent } from '../../events/agent-event-reader';
import { readSessionRecord } from '../../../../contracts/session-record';
import { ModelChoice } from '../../sessions/model-choice';
import type { JobService } from '../../jobs/job-service';
import type { SessionService } from '../../sessions/session-service';
import { StackModels } from '../../sessions/stack-models';
import { isKeyword, type EdnMap } from '../edn-value';
import { EdnOpError } from '../protocol';
import { ednSessionHandlerFactory } from './index';
import { ednPromptRequestId } from './prompt-request-id';

// Op-level behaviour against an in-memory stand-in for SessionService (the real one needs Temporal,
// NATS and the store: test/e2e/edn-session*.test.ts drive it end to end).
class Feed implements AsyncIterable<SequencedEvent> {
  private queue: SequencedEvent[] = [];
  private wake: (() => void) | undefined;
  stopped = false;
  private seq = 0;
  constructor(readonly sessionId: string) {}
  push(event: AgentEvent, turn = 'turn_1') {
    this.queue.push({ seq: ++this.seq, envelope: { v: 1, session_id: this.sessionId, turn_id: turn, ts: Date.now(), event } });
    this.wake?.();
  }
  stop = () => void ((this.stopped = true), this.wake?.());
  async *[Symbol.asyncIterator]() {
    while (!this.stopped) {
      const next = this.queue.shift();
      if (next) yield next;
      else await new Promise<void>((r) => (this.wake = r));
    }
  }
}

interface FakeSession {
  project: string;
  model: string;
  thinking: string;
  name?: string;
  busy: boolean;
  pending: string[];
}

function fakeSessions() {
  const store = new Map<string, FakeSession>();
  const feeds: Feed[] = [];
  const calls: Array<[string, ...unknown[]]> = [];
  const models = new ModelChoice(builtinModelCatalog, []);
  let n = 0;
  const get = (id: string) => {
    const s = store.get(id);
    if (!s) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${id}`);
    return s;
  };
  const view = (id: string) => {
    const s = get(id);
    return { session_id: id, status: 'active', agent_state: s.busy ? 'thinking' : 'idle', project_path: s.project, model: s.model, thinking_level: s.thinking, queue_length: 0, active_turn: s.busy ? 'turn_1' : null, message_count: 0, started_at: 0, updated_at: 0, title: 'proj' };
  };
  const service = {
    models,
    runnable: new StackModels(models, 'scripted/echo', []),
    providers: () => ['scripted'],
    create: async (input: { project_path: string }) => {
      const id = `sess_${++n}`;
      store.set(id, { project: input.project_path, model: 'scripted/echo', thinking: 'off', busy: false, pending: [] });
      return { session_id: id, meta: {} };
    },
    require: async (id: string) => (get(id), { session_id: id, metadata: {}, message_count: 0 }),
    describe: async (id: string) => view(id),
    list: async () => ({ sessions: [...store.keys()].map(view) }),
    events: async (id: string) => {
      const feed = new Feed(id);
      feeds.push(feed);
      return feed;
    },
    messages: async (id: string) => {
      if (get(id).project === '/broken') throw new Error('store timed out');
      return { messages: [] };
    },
    stats: async () => ({ model: 'scripted/echo', usage: { input: 1200, output: 30, cache_read: 0, cache_write: 0, cost_usd: 0 }, messages: { user: 0, assistant: 0, tool_results: 0, total: 0 }, steps: 0, turns: 0, context: { tokens: 1230, window: 200_000, share: 0.006 } }),
    prompt: async (id: string, cmd: { text: string; behavior: string }) => {
      calls.push(['prompt', id, cmd]);
      const s = get(id);
      if (s.busy && cmd.behavior === 'reject') throw new StrandError(ErrorCode.SESSION_BUSY, `session ${id} is busy`);
      s.busy = true;
      // The session's first event can reach the gateway before the prompt's answer does.
      feeds.filter((f) => f.sessionId === id && !f.stopped).forEach((f) => f.push({ type: 'session.state', phase: 'thinking', model: s.model, thinking_level: s.thinking, queue_length: 0, turn_id: 'turn_1', streaming: false, retry_attempt: 0 }));
      await new Promise((r) => setTimeout(r, 20));
      return { turn_id: 'turn_1', turn_number: 1, agent_state: 'thinking', queued: false, duplicate: false };
    },
    updateSettings: async (id: string, change: { model?: string; thinking_level?: string }) => {
      calls.push(['updateSettings', id, change]);
      const s = get(id);
      if (change.model) s.model = models.resolve(change.model).ref;
      if (change.thinking_level) s.thinking = change.thinking_level;
      return { model: s.model, thinking_level: s.thinking, auto_retry: true, auto_compaction: true, approval: {} };
    },
    pendingApprovals: async (id: string) => get(id).pending.map((c) => ({ tool_call_id: c, tool: 'write_file', params: {}, turn_id: 'turn_1' })),
    stillPending: async (id: string, callId: string) => get(id).pending.includes(callId),
    answerApproval: async (id: string, cmd: { tool_call_id: string; decision: string }) => {
      calls.push(['answerApproval', id, cmd]);
      const s = get(id);
      if (!s.pending.includes(cmd.tool_call_id)) throw new StrandError(ErrorCode.INVALID_TOOL_CALL, 'not waiting');
      s.pending = s.pending.filter((p) => p !== cmd.tool_call_id);
      return { resolved: true };
    },
  };
  // A session reference: the session looked up once, then each call is the service's per-id one above.
  const open = async (id: string) => {
    get(id);
    const meta = { session_id: id, metadata: {}, message_count: 0 };
    return new Proxy({} as Record<string, unknown>, {
      get: (_t, name: string) => {
        if (name === 'then') return undefined;
        if (name === 'id') return id;
        if (name === 'meta') return meta;
        if (name === 'storedSettings') return () => readSessionRecord(meta.metadata).settings;
        const method = (service as unknown as Record<string, (id: string, ...args: unknown[]) => unknown>)[name];
        if (!method) throw new Error(`the fake session has no ${name}`);
        return (...args: unknown[]) => method(id, ...args);
      },
    });
  };
  // No jobs exist here: every job op answers as for an unknown (or another principal's) job.
  const noJob = async (id: string) => {
    throw new StrandError(ErrorCode.JOB_NOT_FOUND, `no job ${id}`);
  };
  const jobs = { get: noJob, report: noJob, cancel: noJob, answer: noJob, list: async () => [] } as unknown as JobService;
  // SessionService.prompt(id, principal, cmd): the same fake prompt (no principal with auth off).
  const prompt = (id: string, _principal: string | undefined, cmd: { text: string; behavior: string }) => service.prompt(id, cmd);
  return { sessions: { ...service, open, prompt } as unknown as SessionService, jobs, store, feeds, calls };
}

function connect() {
  const fake = fakeSessions();
  const log: Array<{ topic: string; data: EdnMap; id?: string } | { response: string }> = [];
  const handler = ednSessionHandlerFactory({ sessions: fake.sessions, jobs: fake.jobs, log: pino({ level: 'silent' }) })({ event: (topic, data, id) => log.push({ topic, data, ...(id ? { id } : {}) }) }, { transport: 'stdio', cwd: '/work/proj' });
  let n = 0;
  const request = async (op: string, params: EdnMap = {}) => {
    const id = `req-${++n}`;
    const data = await handler.request({ id, op, params });
    log.push({ response: id });
    return { id, data };
  };
  const failure = async (op: string, params: EdnMap = {}) => {
    const err = await request(op, params).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EdnOpError);
    return err as EdnOpError;
  };
  const events = () => log.flatMap((e) => ('topic' in e ? [e] : []));
  return { fake, handler, log, request, failure, events };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

test('handshake: a session in the working directory, its id, model and thinking level', async () => {
  const c = connect();
  const { serverInfo } = await c.handler.handshake({});
  expect(serverInfo).toMatchObject({ 'protocol-version': '1.0', 'session-id': 'sess_1', 'model-provider': 'scripted', 'model-id': 'echo', 'thinking-level': 'off' });
  expect(c.fake.store.get('sess_1')!.project).toBe('/work/proj');
  c.handler.close();
});

test('subscribe: sorted topics, a snapshot tagged with the request id, and only the asked topics flow', async () => {
  const c = connect();
  await c.handler.handshake({});
  const { id, data } = await c.request('subscribe', { topics: ['session/updated', 'footer/updated', 'assistant/delta', 'bogus/topic'] });
  expect(data).toEqual({ subscribed: ['assistant/delta', 'footer/updated', 'session/updated'] });
  const snap = c.events();
  expect(snap.map((e) => e.topic)).toEqual(['session/updated', 'footer/updated']);
  expect(snap.every((e) => e.id === id && e.data['session-id'] === 'sess_1')).toBe(true);
  expect(snap[1]!.data['usage-parts']).toEqual(['↑1.2k', '↓30', '1%/200k']);
  c.handler.close();
});

test('prompt: the response goes out before the turn’s first event, which carries the prompt’s id', async () => {
  const c = connect();
  await c.handler.handshake({});
  const { id, data } = await c.request('prompt', { message: 'hello' });
  expect(data).toEqual({ accepted: true });
  // The prompt carries a request id derived from the frame, so a resent frame starts no second turn.
  expect(c.fake.calls.find((x) => x[0] === 'prompt')?.[2]).toMatchObject({ text: 'hello', request_id: ednPromptRequestId('sess_1', id, 'reject', 'hello') });
  await settle();
  const order = c.log.map((e) => ('response' in e ? `response ${e.response}` : e.topic));
  expect(order.indexOf(`response ${id}`)).toBeLessThan(order.indexOf('session/updated'));
  expect(c.events().find((e) => e.topic === 'session/updated')).toMatchObject({ id, data: { 'is-streaming': true, phase: 'streaming' } });
  expect(c.events().find((e) => e.topic === 'footer/updated')?.id).toBe(id);
  // A second prompt while the first runs: request/session-not-idle.
  expect((await c.failure('prompt', { message: 'again' })).code).toBe('request/session-not-idle');
  c.handler.close();
});

test('params are checked: missing message, images, bad behavior, bad thinking level', async () => {
  const c = connect();
  await c.handler.handshake({});
  expect((await c.failure('prompt', {})).code).toBe('request/invalid-params');
  expect((await c.failure('prompt', { message: 'x', images: [{ data: 'AA==' }] })).code).toBe('request/invalid-params');
  expect((await c.failure('prompt_while_streaming', { message: 'x', behavior: 'shout' })).code).toBe('request/invalid-params');
  expect((await c.failure('set_thinking_level', { level: 'extreme' })).code).toBe('request/invalid-params');
  expect((await c.failure('set_auto_retry', { enabled: 'yes' })).code).toBe('request/invalid-params');
  c.handler.close();
});

test('a param an op does not take is refused before the op runs, naming it; a job op for no job is request/not-found', async () => {
  const c = connect();
  await c.handler.handshake({});
  const refused = await c.failure('prompt', { message: 'hi', mesage: 'hi' });
  expect([refused.code, refused.message]).toEqual(['request/invalid-params', 'invalid params for prompt: :mesage: unrecognized key']);
  expect(c.fake.calls.filter(([name]) => name === 'prompt')).toEqual([]);
  expect((await c.failure('set_model', { 'model-id': 'echo', provider: 'scripted', modle: 'x' })).message).toBe('invalid params for set_model: :modle: unrecognized key');
  const missing = await c.failure('watch_job', { 'job-id': 'j1' });
  expect([missing.code, missing.message]).toEqual(['request/not-found', 'no job j1']);
  c.handler.close();
});

test('error codes: unknown op, unknown model, unknown session, no dialog, no login, bash', async () => {
  const c = connect();
  await c.handler.handshake({});
  const unknown = await c.failure('teleport');
  expect(unknown.code).toBe('request/op-not-supported');
  expect(unknown.data?.['supported-ops']).toEqual(expect.arrayContaining(['handshake', 'prompt', 'query_eql', 'resolve_dialog', 'export_html']));
  expect((await c.failure('set_model', { provider: 'openai', 'model-id': 'gpt-5' })).code).toBe('request/unknown-model');
  expect((await c.failure('switch_session', { 'session-id': 'nope' })).code).toBe('request/not-found');
  expect((await c.failure('get_state', { 'session-id': 'nope' })).code).toBe('request/not-found');
  expect((await c.failure('resolve_dialog', { 'dialog-id': 'call_x', result: true })).code).toBe('request/no-active-dialog');
  expect((await c.failure('login_complete', {})).code).toBe('request/no-pending-login');
  expect((await c.failure('login_begin', {})).message).toContain('ANTHROPIC_API_KEY');
  expect((await c.failure('bash', {})).code).toBe('request/invalid-params');
  c.handler.close();
});

test('query_eql: not EDN, not a vector, unknown attributes are request/invalid-query; a good query answers', async () => {
  const c = connect();
  await c.handler.handshake({});
  expect((await c.failure('query_eql', { query: '[:a' })).code).toBe('request/invalid-query');
  expect((await c.failure('query_eql', { query: '{:a 1}' })).code).toBe('request/invalid-query');
  const unknown = await c.failure('query_eql', { query: '[:psi.agent-session/model-id :no/such]' });
  expect(unknown.code).toBe('request/invalid-query');
  expect(unknown.message).toContain(':no/such');
  const { data } = await c.request('query_eql', { query: '[:psi.agent-session/model-id :psi.agent-session/authenticated-providers :strand.session/project-path {:psi.agent-session/model-catalog [:provider :id]}]' });
  const result = data.result as EdnMap;
  expect(result).toMatchObject({ 'psi.agent-session/model-id': 'echo', 'psi.agent-session/authenticated-providers': ['scripted'], 'strand.session/project-path': '/work/proj' });
  expect(result['psi.agent-session/model-catalog']).toEqual(expect.arrayContaining([{ provider: 'scripted', id: 'slow' }]));
  c.handler.close();
});

test('an approval becomes a confirm dialog; true approves, nil rejects; the dialog is then gone', async () => {
  const c = connect();
  await c.handler.handshake({});
  c.fake.store.get('sess_1')!.pending.push('call_1', 'call_2');
  c.fake.feeds[0]!.push({ type: 'approval.requested', tool_call_id: 'call_1', tool: 'write_file', params: { path: 'a.txt' }, timeout_s: 600 });
  await settle();
  expect(c.events().find((e) => e.topic === 'ui/dialog-requested')?.data).toMatchObject({ 'dialog-id': 'call_1', kind: 'confirm', 'session-id': 'sess_1' });
  await c.request('resolve_dialog', { 'dialog-id': 'call_1', result: true });
  await c.request('resolve_dialog', { 'dialog-id': 'call_2', result: null });
  expect(c.fake.calls.filter((x) => x[0] === 'answerApproval').map((x) => (x[2] as { decision: string }).decision)).toEqual(['approve', 'reject']);
  expect((await c.failure('resolve_dialog', { 'dialog-id': 'call_1', result: true })).code).toBe('request/no-active-dialog');
  c.handler.close();
});

test('/model picker round trip: the action the client reads, then the choice applied and confirmed', async () => {
  const c = connect();
  await c.handler.handshake({});
  const { id } = await c.request('command', { text: '/model' });
  const picker = c.events().find((e) => e.topic === 'ui/frontend-action-requested')!;
  expect(picker.data['request-id']).toBe(id);
  const action = picker.data['ui/action'] as EdnMap;
  expect(isKeyword(action['ui/action-name']) && action['ui/action-name'].name).toBe('select-model');
  const items = action['ui/items'] as EdnMap[];
  const slow = items.find((i) => i['ui.item/label'] === 'scripted slow')!;
  expect(slow['ui.item/value']).toEqual({ provider: 'scripted', id: 'slow' });
  // The snapshot after the command sets the client idle again.
  expect(c.events().filter((e) => e.id === id).map((e) => e.topic)).toEqual(['ui/frontend-action-requested', 'session/updated', 'footer/updated']);
  const answer = await c.request('frontend_action_result', { 'request-id': id, 'action-name': 'select-model', status: 'submitted', value: slow['ui.item/value']! });
  expect(answer.data).toEqual({ accepted: true, 'request-id': id });
  expect(c.events().find((e) => e.topic === 'command-result' && e.id === answer.id)?.data).toEqual({ type: 'text', message: '✓ Model set to scripted slow.' });
  expect(c.fake.store.get('sess_1')!.model).toBe('scripted/slow');
  c.handler.close();
});

test('slash commands: /thinking X, /quit, an unknown one, and a failing one', async () => {
  const c = connect();
  await c.handler.handshake({});
  const results = async (text: string) => {
    const { id } = await c.request('command', { text });
    return c.events().filter((e) => e.id === id && e.topic === 'command-result').map((e) => e.data);
  };
  expect(await results('/thinking off')).toEqual([{ type: 'text', message: '✓ Thinking level set to off.' }]);
  expect(await results('/quit')).toEqual([{ type: 'quit' }]);
  expect(await results('/exit')).toEqual([{ type: 'quit' }]);
  expect(await results('/frobnicate now')).toEqual([{ type: 'text', message: '[not a command] /frobnicate now' }]);
  // The chat's own commands are not this client's; a bad argument answers the usage.
  expect(await results('/budget 5')).toEqual([{ type: 'text', message: '[not a command] /budget 5' }]);
  expect(await results('/thinking lots')).toEqual([{ type: 'error', message: expect.stringMatching(/^✗ \/thinking takes one of off, minimal, .*\(usage: \/thinking \[level\]\)$/) }]);
  const failed = await results('/model openai gpt-5');
  expect(failed[0]).toMatchObject({ type: 'error' });
  expect(failed[0]!.message).toContain('not configured');
  c.handler.close();
});

test('switch_session: resumed, rehydrated, updated, footer, context, in that order, then the new session’s events only', async () => {
  const c = connect();
  await c.handler.handshake({});
  await c.fake.sessions.create({ project_path: '/work/other' });
  const { id, data } = await c.request('switch_session', { 'session-id': 'sess_2' });
  expect(data).toMatchObject({ 'session-id': 'sess_2' });
  expect(c.events().filter((e) => e.id === id).map((e) => e.topic)).toEqual(['session/resumed', 'session/rehydrated', 'session/updated', 'footer/updated', 'context/updated']);
  expect(c.events().filter((e) => e.id === id).every((e) => e.data['session-id'] === 'sess_2')).toBe(true);
  // The old session's feed is stopped; the new one is the connection's only feed.
  expect(c.fake.feeds[0]!.stopped).toBe(true);
  c.fake.feeds[1]!.push({ type: 'assistant.delta', turn_id: 'turn_1', step: 0, text: 'hi' });
  await settle();
  expect(c.events().filter((e) => e.topic === 'assistant/delta').map((e) => e.data['session-id'])).toEqual(['sess_2']);
  c.handler.close();
  expect(c.fake.feeds[1]!.stopped).toBe(true);
});

test('a read that fails is runtime/query-failed without its internal message; EQL the same', async () => {
  const c = connect();
  await c.handler.handshake({});
  c.fake.store.get('sess_1')!.project = '/broken';
  const read = await c.failure('get_messages');
  expect(read.code).toBe('runtime/query-failed');
  expect(read.message).not.toContain('store timed out');
  const eql = await c.failure('query_eql', { query: '[:psi.agent-session/messages]' });
  expect(eql.code).toBe('runtime/query-failed');
  expect(eql.message).toContain(':psi.agent-session/messages');
  expect(eql.message).not.toContain('store timed out');
  c.handler.close();
});

test('an op naming another session acts on it, but only the focus session’s events reach the client', async () => {
  const c = connect();
  await c.handler.handshake({});
  await c.fake.sessions.create({ project_path: '/work/other' });
  const { id } = await c.request('command', { 'session-id': 'sess_2', text: '/thinking off' });
  expect(c.fake.calls.find((x) => x[0] === 'updateSettings')?.[1]).toBe('sess_2');
  const caused = c.events().filter((e) => e.id === id);
  // The command's result (no session named) arrives; sess_2's snapshots do not.
  expect(caused.map((e) => e.topic)).toEqual(['command-result']);
  c.handler.close();
});

test("get_commands lists the shared table's EDN commands, in its order", async () => {
  const c = connect();
  await c.handler.handshake({});
  const { data } = await c.request('get_commands', {});
  const listed = (data.commands as Array<{ name: string; description: string }>).map((x) => [x.name, x.description]);
  expect(listed).toEqual(commandsFor('edn').map((x) => [x.name, x.help]));
  expect(listed.map(([name]) => name)).toContain('undo');
  expect(listed.map(([name]) => name)).not.toContain('budget');
  c.handler.close();
});
