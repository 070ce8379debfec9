import { gateSubscription } from './send-gate';

test('a gated subscription reads the next event only when the client is ready, and stops when it will not be', async () => {
  const events = [1, 2, 3, 4].map((seq) => ({ seq, envelope: {} as never }));
  let stopped = 0;
  const source = {
    stop: () => stopped++,
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
  };
  const answers = [true, false];
  const gated = gateSubscription(source, async () => answers.shift() ?? true);
  const seen: number[] = [];
  for await (const e of gated) seen.push(e.seq);
  expect(seen).toEqual([1, 2]);
  expect(stopped).toBeGreaterThan(0);
});
