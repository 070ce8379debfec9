import { judgeTrial, wordDiff, type TrialObservation } from './checks';

const answer = 's0w0 s0w1 s0w2.';
function observation(over: Partial<TrialObservation> = {}): TrialObservation {
  return {
    turns: { first: 't1', next: 't2' },
    expectedEntries: ['t1:user', 't1:s0:assistant', 't2:user', 't2:s0:assistant'],
    truth: { first: [{ text: answer, requests: 2 }], next: [{ text: 'Second.', requests: 1 }] },
    stored: [
      { entry_id: 't1:user', role: 'user', text: 'q' },
      { entry_id: 't1:s0:assistant', role: 'assistant', text: answer },
      { entry_id: 't2:user', role: 'user', text: 'q2' },
      { entry_id: 't2:s0:assistant', role: 'assistant', text: 'Second.' },
    ],
    client: { first: [answer], next: ['Second.'], finished: [{ turn: 't1', outcome: 'done' }, { turn: 't2', outcome: 'done' }], duplicateDeltaIds: 0 },
    replay: { finished: [{ turn: 't1', outcome: 'done' }, { turn: 't2', outcome: 'done' }] },
    nextPrompt: { status: 202, finished: true },
    ...over,
  };
}

test('a trial where everything holds passes', () => {
  expect(judgeTrial(observation())).toMatchObject({ finished: true, storedOnce: true, clientExact: true, nextPrompt: true, passed: true, problems: [] });
});

test('a turn that ended twice on the stream, or with an error, is not finished', () => {
  const twice = judgeTrial(observation({ replay: { finished: [{ turn: 't1', outcome: 'done' }, { turn: 't1', outcome: 'done' }] } }));
  expect(twice).toMatchObject({ finished: false, passed: false });
  expect(judgeTrial(observation({ replay: { finished: [{ turn: 't1', outcome: 'error' }] } })).finished).toBe(false);
});

test('an entry written twice, or a stored text that is not what the provider sent, fails stored once', () => {
  const o = observation();
  const stored = o.stored as { entry_id: string; role: string; text: string }[];
  expect(judgeTrial(observation({ stored: [...stored.slice(0, 2), stored[1]!, ...stored.slice(2)] })).storedOnce).toBe(false);
  expect(judgeTrial(observation({ stored: stored.map((e) => (e.entry_id === 't1:s0:assistant' ? { ...e, text: 's0w0' } : e)) })).storedOnce).toBe(false);
});

test('lost and doubled words at the client are counted, and duplicate delta ids fail the trial', () => {
  const lost = judgeTrial(observation({ client: { ...observation().client, first: ['s0w0 s0w2.'] } }));
  expect(lost).toMatchObject({ clientExact: false, lostWords: 1, extraWords: 0, passed: false });
  const doubled = judgeTrial(observation({ client: { ...observation().client, first: ['s0w0 s0w1 s0w0 s0w1 s0w2.'] } }));
  expect(doubled).toMatchObject({ clientExact: false, lostWords: 0, extraWords: 2 });
  expect(judgeTrial(observation({ client: { ...observation().client, duplicateDeltaIds: 3 } }))).toMatchObject({ duplicates: 3, passed: false });
});

test('a refused next prompt fails the trial', () => {
  expect(judgeTrial(observation({ nextPrompt: { status: 409, finished: false } }))).toMatchObject({ nextPrompt: false, passed: false });
});

test('wordDiff counts a multiset difference', () => {
  expect(wordDiff('a b c d', 'a c c')).toEqual({ missing: 2, extra: 1 });
});
