import { ErrorCode, StrandError } from '../../../contracts/errors';
import { sendPatiently, type Patience } from './patient-update';

/** A gRPC status error as @grpc/grpc-js builds it: `code` on the error, the reason in the message. */
const grpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
const taskFailed = () => grpcError(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.');
const deadline = () => grpcError(4, '4 DEADLINE_EXCEEDED: Deadline exceeded after 10.001s');

/** A clock that only moves when the code sleeps or an attempt runs: the figures are exact. */
function patience(attemptCostMs = 0): Patience & { slept: number[]; deadlines: number[] } {
  let t = 0;
  const slept: number[] = [];
  const deadlines: number[] = [];
  return {
    attemptMs: 10_000,
    patienceMs: 60_000,
    now: () => t,
    sleep: async (ms) => void (slept.push(ms), (t += ms)),
    withDeadline: async (ms, fn) => {
      deadlines.push(ms);
      t += attemptCostMs;
      return fn();
    },
    slept,
    deadlines,
  };
}

function answers<T>(...seq: Array<Error | T>) {
  let calls = 0;
  const call = async () => {
    const next = seq[Math.min(calls++, seq.length - 1)]!;
    if (next instanceof Error) throw next;
    return next;
  };
  return { call, calls: () => calls };
}

test('a command refused while the workflow task failed is sent again after a growing pause, and its answer returned', async () => {
  const p = patience();
  const a = answers<string>(taskFailed(), taskFailed(), taskFailed(), taskFailed(), taskFailed(), 'accepted');
  await expect(sendPatiently('r1', a.call, p)).resolves.toBe('accepted');
  expect(a.calls()).toBe(6);
  expect(p.slept).toEqual([250, 750, 1_500, 3_000, 3_000]);
});

test('an attempt that ran out of its deadline is sent again at once, each within the attempt deadline and the patience left', async () => {
  const p = patience(10_000);
  const a = answers<string>(deadline(), deadline(), 'accepted');
  await expect(sendPatiently('r1', a.call, p)).resolves.toBe('accepted');
  expect(p.slept).toEqual([]);
  expect(p.deadlines).toEqual([10_000, 10_000, 10_000]);
});

test('a workflow task that keeps failing is answered UNAVAILABLE after the patience, with its reason and the request id', async () => {
  const p = patience();
  const a = answers(taskFailed());
  const err = (await sendPatiently('r-42', a.call, p).catch((e: unknown) => e)) as StrandError;
  expect(err).toBeInstanceOf(StrandError);
  expect(err.code).toBe(ErrorCode.UNAVAILABLE);
  expect(err.message).toMatch(/its last workflow task failed.*still so after 60 s: send it again with request id r-42/);
  expect(err.details).toEqual({ request_id: 'r-42' });
  expect(p.slept.reduce((x, y) => x + y, 0)).toBe(60_000);
});

test('an update with no answer within the patience says it may still be applied', async () => {
  const p = patience(10_000);
  const err = (await sendPatiently('r-7', answers(deadline()).call, p).catch((e: unknown) => e)) as StrandError;
  expect(err.code).toBe(ErrorCode.UNAVAILABLE);
  expect(err.message).toMatch(/did not answer within 60 s; the command may still be applied: send it again with request id r-7/);
  expect(p.deadlines).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
});

test('any other failure is thrown as it came, at once', async () => {
  const other = grpcError(9, 'some other precondition');
  const p = patience();
  const a = answers(other);
  await expect(sendPatiently('r1', a.call, p)).rejects.toBe(other);
  expect(a.calls()).toBe(1);
});
