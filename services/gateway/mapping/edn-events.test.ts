import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { Keyword } from '../edn/edn-value';
import { TurnStream } from '../events/turn-stream';
import { sessionUpdatedPayload, toEdnEvents, TOOL_UPDATE_MAX_CHARS } from './edn-events';

/** A focus feed's view of one session: its turn stream, and the pure mapping of what it reads. */
class EdnEventMapper extends TurnStream {
  constructor(readonly sessionId: string) {
    super({ outputTailChars: TOOL_UPDATE_MAX_CHARS });
  }

  map(envelope: AgentEventEnvelope) {
    const read = this.next(envelope);
    return read ? toEdnEvents(this.sessionId, read) : { events: [] };
  }

  recorded(steps: string[], toolResults: string[]): void {
    this.known(steps, toolResults);
  }
}

const SID = 'sess_1';
let seq = 0;
const env = (event: AgentEvent, extra: Partial<AgentEventEnvelope> = {}): AgentEventEnvelope => ({ v: 1, session_id: SID, ts: Date.now(), seq: ++seq, turn_id: 'turn_1', event, ...extra });
const state = (over: Partial<Extract<AgentEvent, { type: 'session.state' }>> = {}): AgentEvent => ({
  type: 'session.state',
  phase: 'thinking',
  model: 'anthropic/claude-sonnet-4-5',
  thinking_level: 'high',
  queue_length: 0,
  turn_id: 'turn_1',
  streaming: true,
  retry_attempt: 0,
  ...over,
});
const delta = (text: string, step = 0): AgentEvent => ({ type: 'assistant.delta', turn_id: 'turn_1', step, text });
const message = (text: string, stop: 'end' | 'function_call' | 'aborted' = 'end', step = 0): AgentEvent => ({
  type: 'assistant.message',
  turn_id: 'turn_1',
  step,
  entry_id: `e${step}`,
  text,
  content: [{ type: 'text', text }],
  stop_reason: stop,
  usage: { input: 10, output: 5, cache_read: 0, cache_write: 0, cost_usd: 0.001 },
});
const topics = (m: EdnEventMapper, events: AgentEvent[]) => events.flatMap((e) => m.map(env(e)).events.map((o) => o.topic));

describe('EdnEventMapper', () => {
  test('a prompt: session/updated (streaming, with a footer), true deltas, one final assistant/message, session/updated idle', () => {
    const m = new EdnEventMapper(SID);
    const first = m.map(env(state()));
    expect(first.footer).toMatchObject({ turnActive: true, model: 'anthropic/claude-sonnet-4-5' });
    expect(first.events[0]).toMatchObject({ topic: 'session/updated', data: { 'session-id': SID, phase: 'streaming', 'is-streaming': true, 'model-provider': 'anthropic', 'model-id': 'claude-sonnet-4-5', 'thinking-level': 'high' } });
    // Same facts again (a progress report): no new footer.
    expect(m.map(env(state({ streaming: false }))).footer).toBeUndefined();
    const d1 = m.map(env(delta('Hel'))).events;
    const d2 = m.map(env(delta('lo'))).events;
    expect([d1[0]!.data.text, d2[0]!.data.text]).toEqual(['Hel', 'lo']);
    expect(d1[0]!.data['session-id']).toBe(SID);
    const msg = m.map(env(message('Hello'))).events[0]!;
    expect(msg.topic).toBe('assistant/message');
    expect(msg.data).toMatchObject({ 'session-id': SID, role: 'assistant', text: 'Hello', usage: { input: 10, output: 5, 'cost-usd': 0.001 } });
    expect((msg.data['stop-reason'] as Keyword).name).toBe('stop');
    const block = (msg.data.content as Array<Record<string, unknown>>)[0]!;
    expect(block.type).toBeInstanceOf(Keyword);
    expect((block.type as Keyword).name).toBe('text');
    expect(m.map(env({ type: 'turn.finished', turn_id: 'turn_1', outcome: 'done' })).events).toEqual([]);
    const idle = m.map(env(state({ phase: 'idle', turn_id: null, streaming: false })));
    expect(idle.footer).toMatchObject({ turnActive: false });
    expect(idle.events[0]!.data).toMatchObject({ phase: 'idle', 'is-streaming': false });
  });

  test('a step that calls tools is not an assistant/message; its tool events name the call; the result carries its text', () => {
    const m = new EdnEventMapper(SID);
    expect(topics(m, [delta('I will write.'), message('I will write.', 'function_call')])).toEqual(['assistant/delta']);
    const start = m.map(env({ type: 'tool.call', turn_id: 'turn_1', step: 0, tool_call_id: 'c1', tool: 'write_file', params: { path: 'a.txt', content: 'x' }, requires_approval: true })).events[0]!;
    expect(start).toMatchObject({ topic: 'tool/start', data: { 'tool-id': 'c1', 'tool-name': 'write_file', 'call-summary': 'write_file a.txt' } });
    expect(JSON.parse(start.data.arguments as string)).toEqual({ path: 'a.txt', content: 'x' });
    const dialog = m.map(env({ type: 'approval.requested', tool_call_id: 'c1', tool: 'write_file', params: { path: 'a.txt' }, timeout_s: 600 })).events[0]!;
    expect(dialog).toMatchObject({ topic: 'ui/dialog-requested', data: { 'dialog-id': 'c1', kind: 'confirm' } });
    expect(typeof dialog.data.kind).toBe('string');
    expect(dialog.data.message).toContain('write_file a.txt');
    expect(m.map(env({ type: 'tool.executing', tool_call_id: 'c1' })).events[0]).toMatchObject({ topic: 'tool/executing', data: { 'tool-name': 'write_file' } });
    m.map(env({ type: 'tool.output', tool_call_id: 'c1', content: 'line 1\n' }));
    const update = m.map(env({ type: 'tool.output', tool_call_id: 'c1', content: 'line 2\n' })).events[0]!;
    expect(update.data['result-text']).toBe('line 1\nline 2\n');
    // A long-running command's updates carry its newest output, bounded.
    const big = m.map(env({ type: 'tool.output', tool_call_id: 'c1', content: `${'x'.repeat(TOOL_UPDATE_MAX_CHARS)}END` })).events[0]!;
    expect((big.data['result-text'] as string).length).toBe(TOOL_UPDATE_MAX_CHARS);
    expect(big.data['result-text']).toMatch(/^…x+END$/);
    const result = m.map(env({ type: 'tool.result', tool_call_id: 'c1', status: 'success', is_error: false, summary: 'wrote a.txt', result: 'wrote 1 byte to a.txt' })).events[0]!;
    expect(result).toMatchObject({ topic: 'tool/result', data: { 'tool-id': 'c1', 'tool-name': 'write_file', 'result-text': 'wrote 1 byte to a.txt', 'is-error': false } });
    const rejected = m.map(env({ type: 'tool.result', tool_call_id: 'c1', status: 'rejected', is_error: true, summary: 'no', result: 'The user rejected this call.' })).events[0]!;
    expect(rejected.data['is-error']).toBe(true);
  });

  test('thinking deltas carry the whole thinking text so far', () => {
    const m = new EdnEventMapper(SID);
    const texts = ['Let', ' me', ' think'].map((t) => m.map(env({ type: 'assistant.thinking_delta', turn_id: 'turn_1', step: 0, text: t })).events[0]!.data.text);
    expect(texts).toEqual(['Let', 'Let me', 'Let me think']);
  });

  test('a retried step: the repeated prefix is swallowed, late deltas of the old attempt dropped, only new text sent', () => {
    const m = new EdnEventMapper(SID);
    const sent = (e: AgentEvent, attempt: number) => m.map(env(e, { attempt })).events.map((o) => o.data.text);
    expect(sent(delta('Hello '), 1)).toEqual(['Hello ']);
    m.map(env({ type: 'stream.reset', turn_id: 'turn_1', step: 0 }, { attempt: 2 }));
    expect(sent(delta('late'), 1)).toEqual([]);
    expect(sent(delta('Hel'), 2)).toEqual([]);
    expect(sent(delta('lo wor'), 2)).toEqual(['wor']);
    expect(sent(delta('ld'), 2)).toEqual(['ld']);
  });

  test('a retried step that continues (no reset): its deltas append; one that says something else after a reset is announced', () => {
    const m = new EdnEventMapper(SID);
    const sent = (e: AgentEvent, attempt: number) => m.map(env(e, { attempt })).events.map((o) => [o.topic, o.data.text ?? o.data.message]);
    expect(sent(delta('Hello '), 1)).toEqual([['assistant/delta', 'Hello ']]);
    expect(sent(delta('world'), 2)).toEqual([['assistant/delta', 'world']]);
    expect(sent(delta('late'), 1)).toEqual([]);
    m.map(env({ type: 'stream.reset', turn_id: 'turn_1', step: 0 }, { attempt: 3 }));
    expect(sent(delta('Goodbye'), 3)).toEqual([
      ['ui/notification', expect.stringMatching(/retried and answered differently/)],
      ['assistant/delta', 'Goodbye'],
    ]);
  });

  test('after the client aborts: no delta, tool row or assistant/message of that turn; session/updated still flows', () => {
    const m = new EdnEventMapper(SID);
    m.map(env(state()));
    m.map(env({ type: 'turn.started', turn_id: 'turn_1', prompt: 'hi' }));
    m.map(env(delta('partial')));
    m.abortRequested();
    expect(topics(m, [delta(' more')])).toEqual([]);
    m.aborted('turn_1');
    expect(topics(m, [delta(' more'), message('partial more', 'aborted'), { type: 'turn.finished', turn_id: 'turn_1', outcome: 'aborted' }, state({ phase: 'idle', turn_id: null, streaming: false })])).toEqual(['session/updated']);
    // The next turn speaks again.
    expect(m.map(env({ type: 'assistant.delta', turn_id: 'turn_2', step: 0, text: 'new' }, { turn_id: 'turn_2' })).events.map((o) => o.topic)).toEqual(['assistant/delta']);
  });

  test('an aborted step never becomes assistant/message, even when another client aborted it', () => {
    const m = new EdnEventMapper(SID);
    expect(topics(m, [delta('part'), message('part', 'aborted')])).toEqual(['assistant/delta']);
  });

  test('what a rehydrated transcript holds is not replayed: recorded steps and tool results', () => {
    const m = new EdnEventMapper(SID);
    m.recorded(['turn_1:0'], ['c0']);
    expect(topics(m, [delta('old', 0), message('old', 'function_call', 0)])).toEqual([]);
    expect(topics(m, [{ type: 'tool.call', turn_id: 'turn_1', step: 0, tool_call_id: 'c0', tool: 'read_file', params: {}, requires_approval: false }, { type: 'tool.result', tool_call_id: 'c0', status: 'success', is_error: false, summary: '', result: 'x' }])).toEqual([]);
    expect(topics(m, [{ type: 'tool.call', turn_id: 'turn_1', step: 0, tool_call_id: 'c1', tool: 'read_file', params: {}, requires_approval: false }])).toEqual(['tool/start']);
    expect(topics(m, [delta('new', 1), message('new', 'end', 1)])).toEqual(['assistant/delta', 'assistant/message']);
  });

  test('events carry the id of the prompt that started their turn, once known', () => {
    const m = new EdnEventMapper(SID);
    const before = m.map(env(delta('a'))).events[0]!;
    expect(before.id).toBeUndefined();
    expect(before.turn).toBe('turn_1');
    m.attribute('turn_1', 'req-7');
    expect(m.requestOf('turn_1')).toBe('req-7');
    expect(m.map(env(delta('b'))).events[0]!.id).toBe('req-7');
  });

  test('a turn failure is an error event with runtime/failed', () => {
    const m = new EdnEventMapper(SID);
    m.attribute('turn_1', 'req-3');
    const err = m.map(env({ type: 'error', code: 'LLM_API_ERROR', message: 'provider said no', turn_id: 'turn_1', kind: 'permanent' })).events[0]!;
    expect(err).toMatchObject({ topic: 'error', id: 'req-3', data: { 'error-code': 'runtime/failed', 'error-message': 'provider said no', id: 'req-3', op: 'prompt', 'strand-code': 'LLM_API_ERROR' } });
  });

  test('notices and provider retries become ui/notification', () => {
    const m = new EdnEventMapper(SID);
    expect(m.map(env({ type: 'retry.scheduled', attempt: 1, delay_ms: 2000, reason: '429' })).events[0]).toMatchObject({ topic: 'ui/notification', data: { level: 'warning' } });
    expect(m.map(env({ type: 'notice', level: 'info', message: 'hi' })).events[0]).toMatchObject({ topic: 'ui/notification', data: { level: 'info', message: 'hi' } });
  });
});

describe('sessionUpdatedPayload', () => {
  test.each([
    ['idle', false, 'idle'],
    ['thinking', true, 'streaming'],
    ['tool_execution', true, 'streaming'],
    ['waiting_approval', true, 'streaming'],
    ['retrying', true, 'retrying'],
    ['compacting', false, 'compacting'],
    ['error', false, 'idle'],
  ] as const)('phase %s → %s', (phase, turnActive, psi) => {
    const p = sessionUpdatedPayload(SID, { phase, turnActive, queueLength: 2, retryAttempt: 0, model: 'scripted/echo', thinkingLevel: 'off', sessionName: 'n' });
    expect(p).toMatchObject({ phase: psi, 'agent-phase': phase, 'is-streaming': turnActive, 'is-compacting': phase === 'compacting', 'pending-message-count': 2, 'session-name': 'n' });
  });
});
