import { madeOnceItWorks } from './until-it-works';

test('made once while it works; a failed attempt is made again by the next caller, not kept', async () => {
  const outcomes = ['fails', 'works', 'unused'];
  let calls = 0;
  const get = madeOnceItWorks(async () => {
    calls++;
    const outcome = outcomes.shift();
    if (outcome === 'fails') throw new Error('TIMEOUT');
    return outcome;
  });
  // Callers that share the failed attempt all see its failure...
  await expect(Promise.all([get(), get()])).rejects.toThrow('TIMEOUT');
  // ...and the next one makes it again.
  await expect(get()).resolves.toBe('works');
  await expect(get()).resolves.toBe('works');
  expect(calls).toBe(2);
});
