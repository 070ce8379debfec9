import type { AgentEventEnvelope } from '../../../contracts/agent-events';
import { TurnStream } from '../events/turn-stream';
import { toEdnEvents } from './edn-events';
import { toHttpEvent } from './http-events';
import { toWsEvents } from './ws-events';

const marker = { tool_call_id: 'call_a', session_id: 's~task~t1~call_a' };
const own = (event: AgentEventEnvelope['event']): AgentEventEnvelope => ({ v: 1, session_id: 's', turn_id: 't1', ts: 1, attempt: 1, event });
const child = (event: AgentEventEnvelope['event']): AgentEventEnvelope => ({ ...own(event), subagent: marker });

test("SSE: a sub-agent's event is a `subagent` frame wrapping its own frame, never one of the turn's", () => {
  expect(toHttpEvent(child({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'child text' }))).toEqual({
    event: 'subagent',
    data: { type: 'subagent', tool_call_id: 'call_a', session_id: 's~task~t1~call_a', event: 'message.delta', data: { type: 'message.delta', content: 'child text', role: 'assistant', turn_id: 't1', step: 0, attempt: 1 } },
  });
  // What HTTP sends no frame for stays unsent.
  expect(toHttpEvent(child({ type: 'turn.started', turn_id: 't1', prompt: 'p' }))).toBeUndefined();
  expect(toHttpEvent(own({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'mine' }))?.event).toBe('message.delta');
});

test("TurnStream: the parent's text, approvals and sums ignore a sub-agent's events; what it does is its task call's output", () => {
  const stream = new TurnStream();
  stream.next(own({ type: 'turn.started', turn_id: 't1', prompt: 'p' }));
  expect(stream.next(own({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Parent ' }))?.text?.text).toBe('Parent ');
  stream.next(own({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'call_a', tool: 'task', params: { description: 'look', prompt: 'p' }, requires_approval: false }));
  expect(stream.next(child({ type: 'turn.started', turn_id: 't1', prompt: 'child prompt' }))).toBeUndefined();
  expect(stream.next(child({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'child words' }))).toBeUndefined();
  expect(stream.next(child({ type: 'usage', input: 50, output: 7, cache_read: 0, cache_write: 0, cost_usd: 0 }))).toBeUndefined();
  expect(stream.next(child({ type: 'approval.requested', tool_call_id: 'x', tool: 'shell_exec', params: {}, timeout_s: 5 }))).toBeUndefined();
  // The sub-agent's tool call and its result: lines of the task call's output, for every protocol's tool row.
  const called = stream.next(child({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'read_file', params: { path: 'README.md' }, requires_approval: false }));
  expect(called?.event).toEqual({ type: 'tool.output', tool_call_id: 'call_a', content: '→ read_file README.md\n' });
  expect(called?.call?.name).toBe('task');
  // WebSocket: output of the task's tool row; EDN: a tool/update of the task call.
  expect(toWsEvents(called!)).toEqual([{ type: 'tool-output', toolCallId: 'call_a', toolName: 'task', content: { kind: 'shell-output', stream: 'stdout', text: '→ read_file README.md\n' } }]);
  expect(toEdnEvents('s', called!).events.map((e) => e.topic)).toEqual(['tool/update']);
  const result = stream.next(child({ type: 'tool.result', tool_call_id: 'c1', status: 'success', is_error: false, summary: 'read_file: # Demo', result: '# Demo' }));
  expect(result?.output).toEqual({ tail: '→ read_file README.md\n  read_file: # Demo\n', clipped: false });
  const said = stream.next(child({ type: 'assistant.message', turn_id: 't1', step: 1, entry_id: 't1:s1:assistant', text: 'child words', content: [], stop_reason: 'end', usage: { input: 50, output: 7, cache_read: 0, cache_write: 0, cost_usd: 0 } }));
  expect(said?.event).toMatchObject({ type: 'tool.output', content: 'child words\n' });
  expect(said?.turn).toBe('t1');
  expect(stream.next(own({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'answer' }))?.text?.text).toBe('answer');
  stream.next(own({ type: 'assistant.message', turn_id: 't1', step: 0, entry_id: 't1:s0:assistant', text: 'Parent answer', content: [], stop_reason: 'end', usage: { input: 10, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 } }));
  expect(stream.pendingApprovals).toEqual([]);
  expect(stream.turn).toBe('t1');
  expect(stream.summary('t1')).toMatchObject({ finalText: 'Parent answer', finalStreamed: true, modelCalls: 1, inputTokens: 10, outputTokens: 2, tools: ['task'] });
});

test('a client that aborted the parent turn is not shown its sub-agents either', () => {
  const stream = new TurnStream();
  stream.next(own({ type: 'turn.started', turn_id: 't1', prompt: 'p' }));
  stream.next(own({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'call_a', tool: 'task', params: {}, requires_approval: false }));
  stream.abortRequested();
  expect(stream.next(child({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'read_file', params: { path: 'a' }, requires_approval: false }))?.silenced).toBe(true);
});
