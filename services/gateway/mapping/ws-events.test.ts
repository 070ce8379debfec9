import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { chatReplySchema, wsEventSchema, type WsEvent } from '../../../contracts/ws-rpc';
import { TurnStream } from '../events/turn-stream';
import { toWsEvents, wsReply } from './ws-events';

/** A chat's view of turn t1: its turn stream, and the pure mapping of what it reads. */
function wsMapper() {
  const stream = new TurnStream({ only: 't1' });
  return {
    map: (e: AgentEventEnvelope) => {
      const read = stream.next(e);
      return read ? toWsEvents(read) : [];
    },
    reply: (fallbackModel: string) => wsReply(stream.summary('t1'), fallbackModel),
  };
}
type WsTurnMapper = ReturnType<typeof wsMapper>;

let seq = 0;
const env = (event: AgentEvent, extra: Partial<AgentEventEnvelope> = {}): AgentEventEnvelope => ({ v: 1, session_id: 's1', turn_id: 't1', seq: ++seq, ts: 1, event, ...extra });
const delta = (text: string, step = 0) => env({ type: 'assistant.delta', turn_id: 't1', step, text });
const message = (text: string, step = 0, usage?: { input: number; output: number }) =>
  env({ type: 'assistant.message', turn_id: 't1', step, entry_id: `t1:s${step}:assistant`, text, content: [], stop_reason: 'end', ...(usage ? { usage: { ...usage, cache_read: 0, cache_write: 0, cost_usd: 0 } } : {}) });

function feed(mapper: WsTurnMapper, envelopes: AgentEventEnvelope[]): WsEvent[] {
  const out = envelopes.flatMap((e) => mapper.map(e));
  // Every event the mapper produces is valid on the wire.
  for (const e of out) expect(wsEventSchema.safeParse(e).success).toBe(true);
  return out;
}

const text = (events: WsEvent[]) => events.flatMap((e) => (e.type === 'text-delta' ? [e.text] : [])).join('');

test('deltas, reasoning, usage and the reply of a plain answer', () => {
  const m = wsMapper();
  const out = feed(m, [
    env({ type: 'session.state', phase: 'thinking', model: 'scripted/echo', thinking_level: 'off', queue_length: 0, turn_id: 't1', streaming: false, retry_attempt: 0 }),
    env({ type: 'turn.started', turn_id: 't1', prompt: 'hi' }),
    env({ type: 'assistant.thinking_delta', turn_id: 't1', step: 0, text: 'hmm' }),
    delta('Hello '),
    delta('world'),
    message('Hello world', 0, { input: 10, output: 2 }),
    env({ type: 'usage', input: 10, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 }),
    env({ type: 'turn.finished', turn_id: 't1', outcome: 'done' }),
  ]);
  expect(out).toEqual([
    { type: 'status', state: { kind: 'running' } },
    { type: 'reasoning', text: 'hmm' },
    { type: 'text-delta', text: 'Hello ' },
    { type: 'text-delta', text: 'world' },
    { type: 'usage', inputTokens: 10, outputTokens: 2 },
  ]);
  const reply = m.reply('fallback/x');
  expect(chatReplySchema.parse(reply)).toEqual({
    output: 'Hello world',
    outputStreamed: true,
    model: 'scripted/echo',
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
    toolCalls: [],
    modelCalls: 1,
  });
});

test('tool events name announced calls only; the reply lists the tools and takes the last step', () => {
  const m = wsMapper();
  const out = feed(m, [
    delta('Let me look.'),
    message('Let me look.', 0, { input: 5, output: 3 }),
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'shell_exec', params: { command: 'ls -la' }, requires_approval: true }),
    env({ type: 'approval.requested', tool_call_id: 'c1', tool: 'shell_exec', params: {}, timeout_s: 600 }),
    env({ type: 'tool.output', tool_call_id: 'c1', content: 'a.txt\n' }),
    // A call this turn never announced (another task's): nothing of it may show up here.
    env({ type: 'tool.output', tool_call_id: 'other', content: 'secret' }),
    env({ type: 'tool.result', tool_call_id: 'other', status: 'success', is_error: false, summary: 'x', result: 'secret' }),
    env({ type: 'tool.result', tool_call_id: 'c1', status: 'rejected', is_error: true, summary: 'rejected by the user', result: null }),
    delta('Done.', 1),
    message('Done.', 1, { input: 7, output: 1 }),
  ]);
  expect(out.map((e) => e.type)).toEqual(['text-delta', 'tool-call', 'tool-output', 'notice', 'tool-output', 'tool-output', 'tool-result', 'text-delta']);
  expect(out[1]).toEqual({ type: 'tool-call', toolCallId: 'c1', toolName: 'shell_exec', args: { command: 'ls -la' } });
  expect(out[2]).toEqual({ type: 'tool-output', toolCallId: 'c1', toolName: 'shell_exec', content: { kind: 'tool-header', labelKey: 'shell_exec', detail: 'ls -la' } });
  expect(out[6]).toMatchObject({ type: 'tool-result', toolCallId: 'c1', isError: true, errorCode: 'rejected' });
  expect(JSON.stringify(out)).not.toContain('secret');
  expect(m.reply('x')).toMatchObject({ output: 'Done.', outputStreamed: true, toolCalls: ['shell_exec'], modelCalls: 2, usage: { inputTokens: 12, outputTokens: 4, totalTokens: 16 } });
});

test('a retried step with the same text: the client gets every character exactly once', () => {
  const m = wsMapper();
  const out = feed(m, [
    delta('You '),
    delta('said: '),
    env({ type: 'stream.reset', turn_id: 't1', step: 0 }, { attempt: 2 }),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'You ' }, { attempt: 2 }),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'sa' }, { attempt: 2 }),
    // A straggler of the abandoned attempt is dropped.
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'zzz' }, { attempt: 1 }),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'id: hi' }, { attempt: 2 }),
    message('You said: hi'),
  ]);
  expect(text(out)).toBe('You said: hi');
  expect(out.some((e) => e.type === 'notice')).toBe(false);
  expect(m.reply('x').outputStreamed).toBe(true);
});

test('a retried step that continues (no reset): its deltas append, a straggler of the first attempt is dropped', () => {
  const m = wsMapper();
  const out = feed(m, [
    delta('Hello '),
    delta('wor'),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'ld!' }, { attempt: 2 }),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'zzz' }, { attempt: 1 }),
    message('Hello world!'),
  ]);
  expect(text(out)).toBe('Hello world!');
  expect(m.reply('x')).toMatchObject({ output: 'Hello world!', outputStreamed: true });
});

test('a retried step that says something else: a notice, the new text, and output marked not streamed', () => {
  const m = wsMapper();
  const out = feed(m, [delta('Maybe '), env({ type: 'stream.reset', turn_id: 't1', step: 0 }, { attempt: 2 }), env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Surely ' }, { attempt: 2 }), env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'yes' }, { attempt: 2 }), message('Surely yes')]);
  expect(out.map((e) => e.type)).toEqual(['text-delta', 'notice', 'text-delta', 'text-delta']);
  expect(m.reply('x')).toMatchObject({ output: 'Surely yes', outputStreamed: false });
});

test('checklist, notices, retries and errors use the protocol vocabulary', () => {
  const m = wsMapper();
  const out = feed(m, [
    env({ type: 'checklist', items: [{ id: 'a', text: 'Read', status: 'done' }, { id: 'b', text: '', status: 'in_progress' }] }),
    env({ type: 'notice', level: 'info', message: 'fyi' }),
    env({ type: 'retry.scheduled', attempt: 1, max_attempts: 3, delay_ms: 500, kind: 'overloaded', reason: '529 overloaded' }),
    env({ type: 'error', code: 'LLM_API_ERROR', message: 'boom', kind: 'permanent', provider: 'anthropic' }),
    env({ type: 'file.changed', path: 'a', operation: 'write', timestamp: 1 }),
    env({ type: 'tool.executing', tool_call_id: 'c1' }),
  ]);
  expect(out).toEqual([
    { type: 'tasklist', groupId: 't1', groupTitle: 'Checklist', items: [{ id: 'a', label: 'Read', status: 'done', order: 0 }, { id: 'b', label: 'b', status: 'in_progress', order: 1 }] },
    { type: 'notice', level: 'warn', message: 'fyi', source: 'strand' },
    { type: 'notice', level: 'warn', message: 'The model provider is overloaded (529 overloaded); retrying (attempt 1/3) in 0.5 s…', source: 'strand' },
    { type: 'error', errorMessage: 'boom', errorCode: 'LLM_API_ERROR', error: { code: 'LLM_API_ERROR', kind: 'permanent', source: 'anthropic' } },
  ]);
});

test('a reply before any model step names the fallback model', () => {
  expect(wsMapper().reply('scripted/echo')).toMatchObject({ output: '', outputStreamed: false, model: 'scripted/echo', modelCalls: 0 });
});
