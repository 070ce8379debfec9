import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { TurnStream, type StreamedEvent } from './turn-stream';

let seq = 0;
const env = (event: AgentEvent, extra: Partial<AgentEventEnvelope> = {}): AgentEventEnvelope => ({ v: 1, session_id: 's1', seq: ++seq, ts: 1, event, ...extra });
const delta = (turn: string, text: string, attempt = 1, step = 0) => env({ type: 'assistant.delta', turn_id: turn, step, text }, { turn_id: turn, attempt });
const state = (turn: string | null, extra: Partial<Extract<AgentEvent, { type: 'session.state' }>> = {}) =>
  env({ type: 'session.state', phase: turn ? 'thinking' : 'idle', model: 'scripted/a', thinking_level: 'off', queue_length: 0, turn_id: turn, streaming: false, retry_attempt: 0, ...extra }, turn ? { turn_id: turn } : {});
const read = (stream: TurnStream, envelopes: AgentEventEnvelope[]) => envelopes.map((e) => stream.next(e)).filter((s): s is StreamedEvent => s !== undefined);
const texts = (events: StreamedEvent[]) => events.map((e) => e.text?.text ?? '').join('');

test('membership: the turn comes from the envelope, else from the event; a followed turn skips others and turnless events before it', () => {
  const stream = new TurnStream({ only: 't2' });
  const got = read(stream, [
    env({ type: 'notice', level: 'info', message: 'before' }),
    delta('t1', 'other turn'),
    env({ type: 'turn.started', turn_id: 't2', prompt: 'hi' }),
    env({ type: 'notice', level: 'info', message: 'during' }),
    env({ type: 'assistant.delta', turn_id: 't2', step: 0, text: 'mine' }),
  ]);
  expect(got.map((s) => [s.event.type, s.turn])).toEqual([
    ['turn.started', 't2'],
    ['notice', undefined],
    ['assistant.delta', 't2'],
  ]);
  expect(texts(got)).toBe('mine');
});

test('the step-text rule is applied once per turn and step: continuation appends, reset replaces, stragglers drop', () => {
  const stream = new TurnStream();
  const got = read(stream, [
    delta('t1', 'Hello '),
    delta('t1', 'wor', 2),
    delta('t1', 'stale', 1),
    env({ type: 'stream.reset', turn_id: 't1', step: 0 }, { turn_id: 't1', attempt: 3 }),
    delta('t1', 'Hello world', 3),
    delta('t1', '!', 3),
  ]);
  expect(texts(got)).toBe('Hello wor' + 'ld!');
  expect(stream.next(env({ type: 'assistant.message', turn_id: 't1', step: 0, entry_id: 'e', text: 'Hello world!', content: [], stop_reason: 'end' }))?.streamed).toBe(true);
});

test('abort silencing: everything during the abort, then the stopped turn only; status events are told apart from content', () => {
  const stream = new TurnStream();
  read(stream, [env({ type: 'turn.started', turn_id: 't1', prompt: 'a' })]);
  expect(stream.turn).toBe('t1');
  stream.abortRequested();
  expect(stream.next(delta('t1', 'x'))?.silenced).toBe(true);
  expect(stream.next(env({ type: 'tool.executing', tool_call_id: 'c' }))?.silenced).toBe(true);
  stream.aborted('t1');
  const after = read(stream, [delta('t1', 'late'), env({ type: 'error', code: 'x', message: 'm', turn_id: 't1' }), delta('t2', 'next turn')]);
  expect(after.map((s) => [s.silenced, s.content])).toEqual([
    [true, true],
    [true, false],
    [false, true],
  ]);
  expect(texts(after)).toBe('next turn');
});

test('what the client already holds is marked known; tool events name the announced call and keep its output tail', () => {
  const stream = new TurnStream({ outputTailChars: 4 });
  stream.known(['t1:0'], ['c1']);
  const [d, call, out1, out2, other] = read(stream, [
    delta('t1', 'already shown'),
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c2', tool: 'shell_exec', params: { command: 'ls' }, requires_approval: false }, { turn_id: 't1' }),
    env({ type: 'tool.output', tool_call_id: 'c2', content: 'ab' }),
    env({ type: 'tool.output', tool_call_id: 'c2', content: 'cdef' }),
    env({ type: 'tool.result', tool_call_id: 'c1', status: 'success', is_error: false, summary: '', result: '' }),
  ]);
  expect(d!.known).toBe(true);
  expect(d!.text).toBeUndefined();
  expect(call!.call).toEqual({ name: 'shell_exec', params: { command: 'ls' }, turn: 't1' });
  expect(out1!.output).toEqual({ tail: 'ab', clipped: false });
  expect(out2!.output).toEqual({ tail: 'cdef', clipped: true });
  expect(other).toMatchObject({ known: true, call: undefined });
  read(stream, [env({ type: 'turn.finished', turn_id: 't1', outcome: 'done' })]);
  expect(stream.next(env({ type: 'tool.output', tool_call_id: 'c2', content: 'x' }))?.call).toBeUndefined();
});

test('approvals stay pending until answered, their call has a result, or their turn ends', () => {
  const stream = new TurnStream();
  const ask = (id: string, turn: string) => env({ type: 'approval.requested', tool_call_id: id, tool: 'write_file', params: {}, timeout_s: 60 }, { turn_id: turn });
  read(stream, [ask('a', 't1'), ask('b', 't1'), ask('c', 't1')]);
  expect(stream.pendingApprovals).toEqual(['a', 'b', 'c']);
  read(stream, [env({ type: 'approval.resolved', tool_call_id: 'a', decision: 'approved' }), env({ type: 'tool.result', tool_call_id: 'b', status: 'rejected', is_error: true, summary: '', result: '' })]);
  expect(stream.pendingApprovals).toEqual(['c']);
  read(stream, [env({ type: 'turn.finished', turn_id: 't1', outcome: 'aborted' })]);
  expect(stream.pendingApprovals).toEqual([]);
});

test('a turn sums its model calls, tokens, tools and final text; the model is the latest state named; status changes are flagged once', () => {
  const stream = new TurnStream();
  const first = read(stream, [state('t1'), state('t1')]);
  expect(first.map((s) => s.statusChanged)).toEqual([true, false]);
  read(stream, [
    env({ type: 'assistant.message', turn_id: 't1', step: 0, entry_id: 'e0', text: 'look', content: [], stop_reason: 'function_call', usage: { input: 5, output: 1, cache_read: 0, cache_write: 0, cost_usd: 0 } }),
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c', tool: 'read_file', params: {}, requires_approval: false }),
    env({ type: 'assistant.message', turn_id: 't1', step: 1, entry_id: 'e1', text: 'done', content: [], stop_reason: 'end', usage: { input: 7, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 } }),
  ]);
  expect(read(stream, [state('t1', { model: 'scripted/b' })])[0]!.statusChanged).toBe(true);
  expect(stream.summary('t1')).toEqual({ finalText: 'done', finalStreamed: false, modelCalls: 2, inputTokens: 12, outputTokens: 3, tools: ['read_file'], model: 'scripted/b', stopReason: 'end' });
  stream.attribute('t1', 'req-1');
  expect(stream.next(delta('t1', 'x'))?.request).toBe('req-1');
});

test("a turn's summary keeps how it ended and its last error; thinking goes out as what extends it", () => {
  const stream = new TurnStream();
  const [, thought] = read(stream, [
    env({ type: 'assistant.thinking_delta', turn_id: 't1', step: 0, text: 'Hmm ' }, { turn_id: 't1' }),
    env({ type: 'assistant.thinking_delta', turn_id: 't1', step: 0, text: 'ok' }, { turn_id: 't1' }),
    env({ type: 'error', code: 'LLM_API_ERROR', message: 'boom', kind: 'permanent' }, { turn_id: 't1' }),
    env({ type: 'turn.finished', turn_id: 't1', outcome: 'error' }, { turn_id: 't1' }),
  ]);
  expect(thought).toMatchObject({ thinking: 'Hmm ok', thinkingText: { text: 'ok' } });
  expect(stream.summary('t1')).toMatchObject({ outcome: 'error', error: { code: 'LLM_API_ERROR', message: 'boom', kind: 'permanent' } });
  expect(stream.summary('t2').outcome).toBeUndefined();
});

test('a turn whose prompt the client already holds has its turn.started marked known', () => {
  const stream = new TurnStream();
  stream.known([], [], ['t1']);
  const [held, fresh] = read(stream, [env({ type: 'turn.started', turn_id: 't1', prompt: 'a' }), env({ type: 'turn.started', turn_id: 't2', prompt: 'b' })]);
  expect([held!.known, fresh!.known]).toEqual([true, false]);
});
