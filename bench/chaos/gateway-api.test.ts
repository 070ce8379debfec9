import { whileUnavailable } from './gateway-api';

test('a 503 is asked again after its Retry-After until another answer comes; the answer counts the 503s', async () => {
  const answers = [503, 503, 202];
  const asked: number[] = [];
  const got = await whileUnavailable(async () => {
    asked.push(Date.now());
    return { status: answers.shift()!, retryAfterS: 0.05 };
  });
  expect([got.status, got.unavailable, asked.length]).toEqual([202, 2, 3]);
  expect(asked[1]! - asked[0]!).toBeGreaterThanOrEqual(45);
});

test('a 503 that outlasts the budget is the answer, and any other status is taken at once', async () => {
  let calls = 0;
  const still = await whileUnavailable(async () => ({ status: 503, retryAfterS: 0.05, n: ++calls }), 120);
  expect([still.status, still.unavailable]).toEqual([503, calls - 1]);
  expect(calls).toBeLessThanOrEqual(3);
  const notFound = await whileUnavailable(async () => ({ status: 404 }));
  expect([notFound.status, notFound.unavailable]).toEqual([404, 0]);
});
