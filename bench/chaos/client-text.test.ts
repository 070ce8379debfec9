import { ClientText } from './client-text';

const delta = (turn: string, content: string) => ['message.delta', { type: 'message.delta', turn_id: turn, content, role: 'assistant' }] as const;

test('deltas append to the step under way; message.done moves on to the next step', () => {
  const text = new ClientText();
  for (const [e, d] of [delta('t1', 'Running '), delta('t1', 'it.')]) text.apply(e, d);
  text.apply('message.done', { entry_id: 't1:s0:assistant' });
  text.apply('tool.result', { tool_call_id: 'c1' });
  for (const [e, d] of [delta('t1', 'All '), delta('t1', 'done.')]) text.apply(e, d);
  expect(text.texts('t1')).toEqual(['Running it.', 'All done.']);
});

test('stream.reset replaces the text of its step only, and makes it the step under way again', () => {
  const text = new ClientText();
  text.apply(...delta('t1', 'kept'));
  text.apply('message.done', { entry_id: 't1:s0:assistant' });
  text.apply(...delta('t1', 'w0 w1 '));
  text.apply('stream.reset', { turn_id: 't1', step: 1 });
  text.apply(...delta('t1', 'w0 w1 w2'));
  expect(text.texts('t1')).toEqual(['kept', 'w0 w1 w2']);
});

test('turns are kept apart, and a turn with no text has none', () => {
  const text = new ClientText();
  text.apply(...delta('t1', 'one'));
  text.apply(...delta('t2', 'two'));
  text.apply('message.done', { entry_id: 't3:s0:assistant' });
  expect([text.texts('t1'), text.texts('t2'), text.texts('t3'), text.texts('t4')]).toEqual([['one'], ['two'], [''], []]);
});
