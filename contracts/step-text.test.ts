import { StepTexts } from './step-text';

/** The one step-text rule every protocol applies (the WS and EDN mappers through this class). */

const sent = (texts: StepTexts, key: string, attempt: number, ...deltas: string[]) => deltas.map((d) => texts.delta(key, attempt, d));

test('a continuation (higher attempt, no reset) simply appends', () => {
  const t = new StepTexts();
  expect(sent(t, 's0', 1, 'Hello ', 'wor').map((o) => o.text)).toEqual(['Hello ', 'wor']);
  expect(sent(t, 's0', 2, 'ld', '!').map((o) => o.text)).toEqual(['ld', '!']);
  expect(t.shows('s0', 'Hello world!')).toBe(true);
});

test('a straggler of an older attempt is dropped, with or without a reset', () => {
  const t = new StepTexts();
  sent(t, 's0', 1, 'A');
  sent(t, 's0', 2, 'B');
  expect(t.delta('s0', 1, 'late')).toEqual({ text: '' });
  expect(t.thinking('s0', 1, 'late')).toBeUndefined();
  expect(t.shows('s0', 'AB')).toBe(true);
});

test('after a reset the new text replaces the old: its repeated part is swallowed, only what is new goes out', () => {
  const t = new StepTexts();
  sent(t, 's0', 1, 'You ', 'said');
  t.reset('s0', 2);
  expect(sent(t, 's0', 2, 'You ', 'sa', 'id: hi').map((o) => o.text)).toEqual(['', '', ': hi']);
  expect(t.shows('s0', 'You said: hi')).toBe(true);
});

test('after a reset, new text that says something else is flagged diverged and sent whole; then it appends', () => {
  const t = new StepTexts();
  sent(t, 's0', 1, 'Maybe ');
  t.reset('s0', 2);
  expect(t.delta('s0', 2, 'Surely ')).toEqual({ text: 'Surely ', diverged: true });
  expect(t.delta('s0', 2, 'yes')).toEqual({ text: 'yes' });
  // The client saw 'Maybe Surely yes' unless it replaced: the final text is authoritative.
  expect(t.shows('s0', 'Surely yes')).toBe(false);
});

test('thinking accumulates per step and a reset voids it; steps and forgotten turns are apart', () => {
  const t = new StepTexts();
  expect(t.thinking('t1:0', 1, 'Let')).toBe('Let');
  expect(t.thinking('t1:0', 1, ' me')).toBe('Let me');
  t.reset('t1:0', 2);
  expect(t.thinking('t1:0', 2, 'Again')).toBe('Again');
  sent(t, 't1:1', 1, 'x');
  t.forget('t1:');
  expect(t.shows('t1:1', 'x')).toBe(false);
});

test('thinking for a client that only appends follows the text rule: a reset swallows the repeat, a change is flagged', () => {
  const t = new StepTexts();
  expect(t.thinkingDelta('t1:0', 1, 'Let me ')?.out).toEqual({ text: 'Let me ' });
  t.reset('t1:0', 2);
  expect(t.thinkingDelta('t1:0', 2, 'Let ')).toEqual({ whole: 'Let ', out: { text: '' } });
  expect(t.thinkingDelta('t1:0', 2, 'me think')).toEqual({ whole: 'Let me think', out: { text: 'think' } });
  t.reset('t1:0', 3);
  expect(t.thinkingDelta('t1:0', 3, 'Other')?.out).toEqual({ text: 'Other', diverged: true });
  expect(t.thinkingDelta('t1:0', 2, 'late')).toBeUndefined();
});
