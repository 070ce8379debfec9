import type { AgentEventEnvelope } from '../../../contracts/agent-events';
import { toHttpEvent } from './http-events';

const env = (event: AgentEventEnvelope['event'], attempt?: number): AgentEventEnvelope => ({ v: 1, session_id: 's', ts: 1, event, ...(attempt ? { attempt } : {}) });

describe('canonical → HTTP SSE events', () => {
  test('session state becomes agent.state', () => {
    expect(toHttpEvent(env({ type: 'session.state', phase: 'thinking', model: 'scripted/echo', thinking_level: 'off', queue_length: 0, turn_id: 't1', streaming: true, retry_attempt: 0 }))).toEqual({
      event: 'agent.state',
      data: { type: 'agent.state', state: 'thinking' },
    });
  });

  test('assistant deltas become message.delta with role, turn, step and attempt (what a client needs for the step-text rule)', () => {
    expect(toHttpEvent(env({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Hi ' }))).toEqual({
      event: 'message.delta',
      data: { type: 'message.delta', content: 'Hi ', role: 'assistant', turn_id: 't1', step: 0, attempt: 1 },
    });
    expect(toHttpEvent(env({ type: 'assistant.delta', turn_id: 't1', step: 2, text: 'more' }, 2))?.data).toMatchObject({ step: 2, attempt: 2 });
    expect(toHttpEvent(env({ type: 'assistant.thinking_delta', turn_id: 't1', step: 1, text: 'hmm' }, 3))?.data).toEqual({ type: 'thinking.delta', content: 'hmm', turn_id: 't1', step: 1, attempt: 3 });
  });

  test('the final assistant message becomes message.done', () => {
    const usage = { input: 1, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 };
    expect(
      toHttpEvent(env({ type: 'assistant.message', turn_id: 't1', step: 0, entry_id: 't1:s0:assistant', text: 'Hi', content: [{ type: 'text', text: 'Hi' }], stop_reason: 'end', usage })),
    ).toEqual({ event: 'message.done', data: { type: 'message.done', entry_id: 't1:s0:assistant', content: 'Hi', stop_reason: 'end', usage } });
  });

  test('retries and resets keep the contract names', () => {
    expect(toHttpEvent(env({ type: 'retry.scheduled', attempt: 2, delay_ms: 1000, reason: 'rate_limited' }))?.event).toBe('retry');
    expect(toHttpEvent(env({ type: 'retry.scheduled', attempt: 2, max_attempts: 7, delay_ms: 1000, kind: 'rate_limited', reason: 'shared backoff: …' }))?.data).toEqual({
      type: 'retry',
      attempt: 2,
      max_attempts: 7,
      delay_ms: 1000,
      kind: 'rate_limited',
      reason: 'shared backoff: …',
    });
    expect(toHttpEvent(env({ type: 'stream.reset', turn_id: 't1', step: 0 }, 2))?.data).toEqual({ type: 'stream.reset', turn_id: 't1', step: 0, attempt: 2 });
  });

  test('events the HTTP contract has no frame for are not sent', () => {
    expect(toHttpEvent(env({ type: 'turn.started', turn_id: 't1', prompt: 'x' }))).toBeUndefined();
  });

  test('a compaction is sent as it starts and with its summary as it finishes', () => {
    expect(toHttpEvent(env({ type: 'compaction.started', reason: 'manual' }))).toEqual({ event: 'compaction.started', data: { type: 'compaction.started', reason: 'manual' } });
    expect(toHttpEvent(env({ type: 'compaction.finished', summary: 'We fixed the parser.', tokens_before: 4200 }))).toEqual({
      event: 'compaction.finished',
      data: { type: 'compaction.finished', summary: 'We fixed the parser.', tokens_before: 4200 },
    });
  });

  test('a notice is sent with its level and message', () => {
    expect(toHttpEvent(env({ type: 'notice', level: 'warning', message: 'project instructions are capped at 4096 bytes' }))).toEqual({
      event: 'notice',
      data: { type: 'notice', level: 'warning', message: 'project instructions are capped at 4096 bytes' },
    });
  });

  test('turn.finished is sent: it is the last event of every turn', () => {
    expect(toHttpEvent(env({ type: 'turn.finished', turn_id: 't1', outcome: 'aborted', steps: 2 }))).toEqual({
      event: 'turn.finished',
      data: { type: 'turn.finished', turn_id: 't1', outcome: 'aborted' },
    });
  });
});
