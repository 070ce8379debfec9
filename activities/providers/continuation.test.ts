import { memoryPublishedText, type PublishedText } from '../events/published-text';
import type { OutgoingEvent } from '../events/publisher';
import type { PathItem } from './context';
import { planRetriedStep, stepStartBound } from './continuation';

/** When a retried step continues the published answer, and when it resets the stream instead. */

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });
const path: PathItem[] = [
  { entry_id: 't0:user', message: user('earlier'), timestamp: 100 },
  { entry_id: 't1:user', message: user('hi'), timestamp: 1_000 },
  { entry_id: 't1:s0:assistant', message: { role: 'assistant', content: [] }, timestamp: 2_000 },
  { entry_id: 't1:s0:tool:c1', message: { role: 'function_result', function_call_id: 'c1', function_id: 'read_file', content: [], is_error: false }, timestamp: 3_000 },
  // Written while step 1 ran (another writer, or this step's own later entries): not a bound.
  { entry_id: 'note', message: user('aside'), timestamp: 9_000 },
  { entry_id: 't1:s1:steer:0', message: user('steer'), timestamp: 9_500 },
];
const input = { session_id: 's', turn_id: 't1', step: 1, attempt: 2 };
const delta = (chunk: number, text: string, type: 'assistant.delta' | 'assistant.thinking_delta' = 'assistant.delta'): OutgoingEvent => ({
  id: `t1:s1:a1:c${chunk}`,
  turn_id: 't1',
  attempt: 1,
  event: { type, turn_id: 't1', step: 1, text },
});

test('the step starts after the newest entry the turn wrote before it', () => {
  expect(stepStartBound(path, 't1', 1)).toBe(3_000);
  expect(stepStartBound(path, 't1', 0)).toBe(1_000);
  expect(stepStartBound(path, 't9', 0)).toBeUndefined();
});

test('published text, gapless, no thinking, a model that continues: continue from it, asked from the step start', async () => {
  const asked: unknown[] = [];
  const inner = memoryPublishedText([delta(1, 'Hello '), delta(2, 'world ')]);
  const published: PublishedText = { read: (q) => (asked.push(q), inner.read(q)) };
  expect(await planRetriedStep(input, path, true, published)).toEqual({ continue: true, prefill: 'Hello world ' });
  expect(asked).toEqual([{ ...input, since: 3_000 }]);
});

test.each([
  ['a model that cannot continue', false, [delta(1, 'Hello')], /does not continue/],
  ['nothing published', true, [], /no text/],
  ['only whitespace published', true, [delta(1, ' \n')], /no text/],
  ['thinking published', true, [delta(1, 'hmm', 'assistant.thinking_delta'), delta(2, 'Hello')], /thinking/],
  ['a gap before the text (a tool call streamed first)', true, [delta(4, 'Hello')], /not published as text/],
])('%s: reset', async (_name, canContinue, events, why) => {
  const plan = await planRetriedStep(input, path, canContinue, memoryPublishedText(events));
  expect(plan.continue).toBe(false);
  expect(plan.continue ? '' : plan.why).toMatch(why);
});

test('no reader, no start bound, or a read that fails: reset, saying why', async () => {
  const failing: PublishedText = { read: async () => Promise.reject(new Error('NATS is down')) };
  expect(await planRetriedStep(input, path, true, undefined)).toMatchObject({ continue: false, why: expect.stringMatching(/cannot read/) });
  expect(await planRetriedStep({ ...input, turn_id: 't9' }, path, true, memoryPublishedText([]))).toMatchObject({ continue: false, why: expect.stringMatching(/dates the step/) });
  expect(await planRetriedStep(input, path, true, failing)).toMatchObject({ continue: false, why: expect.stringMatching(/NATS is down/) });
});
