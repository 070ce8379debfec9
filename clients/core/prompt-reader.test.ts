import { PromptReader, type ForkPoint } from './prompt-reader';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a prompt not stored yet is read again later; one never stored is reported lost, once', async () => {
  let points: ForkPoint[] = [];
  const found: string[] = [];
  const lost: string[] = [];
  const reader = new PromptReader({
    forkPoints: async () => points,
    found: (turn, text) => found.push(`${turn}=${text}`),
    lost: (turn) => lost.push(turn),
    wanted: (turn) => !found.some((f) => f.startsWith(`${turn}=`)),
    attempts: 3,
    delayMs: 5,
  });
  reader.read('t1');
  reader.read('t2');
  await wait(1);
  expect(found).toEqual([]);
  points = [{ entry_id: 't1:user', text: 'hello' }];
  await wait(100);
  expect(found).toEqual(['t1=hello']);
  expect(lost).toEqual(['t2']);
  reader.close();
});

test('a prompt no longer wanted (the client moved on) is not reported lost', async () => {
  const lost: string[] = [];
  const reader = new PromptReader({ forkPoints: async () => [], found: () => undefined, lost: (t) => lost.push(t), wanted: () => false, attempts: 2, delayMs: 1 });
  reader.read('t1');
  await wait(30);
  expect(lost).toEqual([]);
  reader.close();
});
