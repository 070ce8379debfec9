import type { AgentEvent } from '../../contracts/agent-events';
import { foldPublishedStep, memoryPublishedText, type PublishedEvent } from './published-text';

/** Folding a session's published events into what a retried step's earlier attempts left clients. */

const q = { turn_id: 't1', step: 1, attempt: 3 };
const delta = (attempt: number, chunk: number, text: string, step = 1, turn = 't1'): PublishedEvent => ({
  id: `${turn}:s${step}:a${attempt}:c${chunk}`,
  attempt,
  event: { type: 'assistant.delta', turn_id: turn, step, text },
});
const reset = (attempt: number): PublishedEvent => ({ id: `t1:s1:a${attempt}:reset`, attempt, event: { type: 'stream.reset', turn_id: 't1', step: 1 } });
const other = (event: AgentEvent): PublishedEvent => ({ id: 'x', event });

test('deltas of earlier attempts join in stream order; other steps, turns and events do not count', () => {
  const events = [
    delta(1, 1, 'old step', 0),
    other({ type: 'tool.result', tool_call_id: 'c', status: 'success', is_error: false, summary: '', result: null }),
    delta(1, 1, 'Hello '),
    delta(1, 2, 'wor'),
    delta(1, 1, 'other turn', 1, 't2'),
    delta(2, 1, 'ld, '),
    delta(2, 2, 'friend'),
  ];
  expect(foldPublishedStep(events, q)).toEqual({ text: 'Hello world, friend', thinking: false, gapless: true });
});

test('a reset voids what came before it; the asking attempt and later ones are not read', () => {
  expect(foldPublishedStep([delta(1, 1, 'Maybe '), reset(2), delta(2, 1, 'Surely'), delta(3, 1, 'mine')], q)).toEqual({ text: 'Surely', thinking: false, gapless: true });
});

test('a straggler of an older attempt after a newer one spoke is ignored', () => {
  expect(foldPublishedStep([delta(1, 1, 'A'), delta(2, 1, 'B'), delta(1, 2, 'late')], q).text).toBe('AB');
});

test('thinking is reported; a gap in an attempt\'s chunks (a tool call, a lost delta) makes it not gapless', () => {
  const thinking: PublishedEvent = { id: 't1:s1:a1:c1', attempt: 1, event: { type: 'assistant.thinking_delta', turn_id: 't1', step: 1, text: 'hmm' } };
  expect(foldPublishedStep([thinking, delta(1, 2, 'A')], q)).toEqual({ text: 'A', thinking: true, gapless: true });
  // c1..c3 were a tool call that is not published: a model given only 'B' would drop it.
  expect(foldPublishedStep([delta(1, 4, 'B')], q).gapless).toBe(false);
  expect(foldPublishedStep([delta(1, 1, 'A'), delta(1, 5, 'B')], q).gapless).toBe(false);
  // Each attempt numbers its own chunks from 1.
  expect(foldPublishedStep([delta(1, 1, 'A'), delta(2, 2, 'B')], q).gapless).toBe(false);
  // An id that is not a delta id cannot be checked.
  expect(foldPublishedStep([{ attempt: 1, event: { type: 'assistant.delta', turn_id: 't1', step: 1, text: 'A' } }], q).gapless).toBe(false);
});

test('the memory implementation folds what a recording publisher kept', async () => {
  const published = [{ id: 't1:s1:a1:c1', turn_id: 't1', attempt: 1, event: { type: 'assistant.delta' as const, turn_id: 't1', step: 1, text: 'Hi' } }];
  expect(await memoryPublishedText(published).read({ session_id: 's', since: 0, ...q })).toEqual({ text: 'Hi', thinking: false, gapless: true });
});
