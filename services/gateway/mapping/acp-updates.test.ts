import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';
import { schemaErrors } from '../../../test/harness/acp-schema';
import { TurnStream } from '../events/turn-stream';
import { replayTranscript } from '../acp/replay';
import { toAcpUpdates, usageUpdate } from './acp-updates';

let seq = 0;
const env = (event: AgentEvent, turn?: string, attempt?: number): AgentEventEnvelope => ({ v: 1, session_id: 's', seq: ++seq, ts: 1_700_000_000_000, event, ...(turn ? { turn_id: turn } : {}), ...(attempt ? { attempt } : {}) });
const facts = { project: '/work/p', notices: false };

/** Every update the mapping makes must be valid ACP: the SDK's parser would silently drop a bad field. */
function mapAll(stream: TurnStream, envelopes: AgentEventEnvelope[], f = facts): SessionUpdate[] {
  const out = envelopes.flatMap((e) => {
    const read = stream.next(e);
    return read ? toAcpUpdates(read, f) : [];
  });
  for (const update of out) expect(schemaErrors('SessionNotification', { sessionId: 's', update })).toBe('');
  return out;
}

test('a prompted turn: text and thinking as chunks that extend, tool calls as rows with kind, title, paths and a diff', () => {
  const stream = new TurnStream();
  stream.attribute('t1', 'req');
  const got = mapAll(stream, [
    env({ type: 'turn.started', turn_id: 't1', prompt: 'fix it' }, 't1'),
    env({ type: 'assistant.thinking_delta', turn_id: 't1', step: 0, text: 'Hmm' }, 't1'),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'On it.' }, 't1'),
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'edit_file', params: { path: 'src/a.ts', old: 'x', new: 'y' }, requires_approval: true }, 't1'),
    env({ type: 'approval.requested', tool_call_id: 'c1', tool: 'edit_file', params: {}, timeout_s: 600 }, 't1'),
    env({ type: 'tool.executing', tool_call_id: 'c1' }, 't1'),
    env({ type: 'tool.result', tool_call_id: 'c1', status: 'success', is_error: false, summary: 'edited', result: 'Edited src/a.ts' }, 't1'),
    env({ type: 'checklist', items: [{ id: 'a', text: 'read', status: 'done' }, { id: 'b', text: 'write', status: 'in_progress' }] }, 't1'),
    env({ type: 'turn.finished', turn_id: 't1', outcome: 'done' }, 't1'),
  ]);
  expect(got).toEqual([
    { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'Hmm' }, messageId: 't1:s0:assistant' },
    { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'On it.' }, messageId: 't1:s0:assistant' },
    { sessionUpdate: 'tool_call', toolCallId: 'c1', title: 'Edit src/a.ts', kind: 'edit', status: 'pending', locations: [{ path: '/work/p/src/a.ts' }], rawInput: { path: 'src/a.ts', old: 'x', new: 'y' } },
    { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'in_progress' },
    { sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', content: [{ type: 'diff', path: '/work/p/src/a.ts', oldText: 'x', newText: 'y' }], rawOutput: { status: 'success', summary: 'edited' } },
    {
      sessionUpdate: 'plan',
      entries: [
        { content: 'read', priority: 'medium', status: 'completed' },
        { content: 'write', priority: 'medium', status: 'in_progress' },
      ],
    },
  ]);
});

test('command output replaces the row with its newest part; a rejected call fails; a silenced turn shows nothing', () => {
  const stream = new TurnStream({ outputTailChars: 5 });
  const got = mapAll(stream, [
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c1', tool: 'shell_exec', params: { command: 'make   all' }, requires_approval: false }, 't1'),
    env({ type: 'tool.output', tool_call_id: 'c1', content: 'abc' }, 't1'),
    env({ type: 'tool.output', tool_call_id: 'c1', content: 'defg' }, 't1'),
    env({ type: 'tool.call', turn_id: 't1', step: 0, tool_call_id: 'c2', tool: 'delete_file', params: { path: 'k' }, requires_approval: true }, 't1'),
    env({ type: 'tool.result', tool_call_id: 'c2', status: 'rejected', is_error: true, summary: 'no', result: 'The user rejected this delete_file call.' }, 't1'),
  ]);
  expect(got[0]).toMatchObject({ title: 'Run make all', kind: 'execute' });
  expect(got[2]).toMatchObject({ content: [{ type: 'content', content: { type: 'text', text: '…defg' } }] });
  expect(got[4]).toMatchObject({ toolCallId: 'c2', status: 'failed', content: [{ type: 'content', content: { text: 'The user rejected this delete_file call.' } }] });
  stream.silence('t1');
  expect(mapAll(stream, [env({ type: 'assistant.delta', turn_id: 't1', step: 1, text: 'late' }, 't1'), env({ type: 'tool.executing', tool_call_id: 'c1' }, 't1')])).toEqual([]);
});

test('a turn started elsewhere shows its prompt, its failure and its end; notices only go to clients that show them', () => {
  const stream = new TurnStream();
  const got = mapAll(stream, [
    env({ type: 'turn.started', turn_id: 't2', prompt: 'from emacs' }, 't2'),
    env({ type: 'notice', level: 'warning', message: 'careful' }, 't2'),
    env({ type: 'error', code: 'LLM_API_ERROR', message: 'boom' }, 't2'),
    env({ type: 'turn.finished', turn_id: 't2', outcome: 'error' }, 't2'),
  ]);
  expect(got.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_message_chunk', 'session_info_update']);
  expect(got[2]).toMatchObject({ _meta: { strand: { turnId: 't2', outcome: 'error' } } });
  expect(mapAll(new TurnStream(), [env({ type: 'notice', level: 'warning', message: 'careful' })], { ...facts, notices: true })).toEqual([{ sessionUpdate: 'notice', severity: 'warning', title: 'careful' }]);
});

test('a retried step that says something else is announced, thinking too, since chunks cannot be taken back', () => {
  const stream = new TurnStream();
  stream.attribute('t1', 'r');
  const got = mapAll(stream, [
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Maybe' }, 't1', 1),
    env({ type: 'stream.reset', turn_id: 't1', step: 0 }, 't1', 2),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'May' }, 't1', 2),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'be so' }, 't1', 2),
    env({ type: 'stream.reset', turn_id: 't1', step: 0 }, 't1', 3),
    env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Surely' }, 't1', 3),
  ]);
  const texts = got.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''));
  expect(texts[0]).toBe('Maybe');
  expect(texts[1]).toBe(' so');
  expect(texts[2]).toMatch(/retried/);
  expect(texts[3]).toBe('Surely');
});

test('usage says the context used of the window and the cost so far', () => {
  const step = { type: 'usage' as const, input: 1000, output: 200, cache_read: 50, cache_write: 0, cost_usd: 0.01 };
  const update = usageUpdate(step, { input: 5000, output: 900, cache_read: 50, cache_write: 0, cost_usd: 0.25 }, 200_000);
  expect(update).toEqual({ sessionUpdate: 'usage_update', used: 1250, size: 200_000, cost: { amount: 0.25, currency: 'USD' } });
  expect(schemaErrors('SessionNotification', { sessionId: 's', update })).toBe('');
});

test('a replayed transcript: prompts, thinking, text, calls with results; a call whose turn ended without a result failed', () => {
  const ts = 1;
  const r = replayTranscript(
    [
      { entry_id: 't1:user', turn: 't1', message: { role: 'user', content: [{ type: 'text', text: 'write it' }], timestamp: ts } },
      {
        entry_id: 't1:s0:assistant',
        turn: 't1',
        step: 0,
        message: { role: 'assistant', model: 'm', provider: 'p', stop_reason: 'function_call', timestamp: ts, content: [{ type: 'thinking', text: 'ok' }, { type: 'text', text: 'Writing.' }, { type: 'function_call', id: 'c1', function_id: 'write_file', arguments: { path: 'a.txt', content: 'A' } }, { type: 'function_call', id: 'c2', function_id: 'shell_exec', arguments: { command: 'ls' } }] },
      },
      { entry_id: 't1:s0:tool:c1', turn: 't1', step: 0, message: { role: 'function_result', function_call_id: 'c1', function_id: 'write_file', content: [{ type: 'text', text: 'Wrote a.txt' }], is_error: false, timestamp: ts } },
    ],
    '/p',
    null,
  );
  expect(r.known).toEqual({ steps: ['t1:0'], toolResults: ['c1'], prompts: ['t1'] });
  expect(r.updates.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call', 'tool_call_update', 'tool_call_update']);
  expect(r.updates[5]).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c1', status: 'completed', content: [{ type: 'diff', path: '/p/a.txt', oldText: null, newText: 'A' }] });
  expect(r.updates[6]).toEqual({ sessionUpdate: 'tool_call_update', toolCallId: 'c2', status: 'failed' });
  for (const update of r.updates) expect(schemaErrors('SessionNotification', { sessionId: 's', update })).toBe('');
  // While its turn still runs, the call without a result is left for the live stream.
  expect(replayTranscript([], '/p', 't1').updates).toEqual([]);
});
