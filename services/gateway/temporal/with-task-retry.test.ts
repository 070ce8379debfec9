import { withTaskRetry } from './with-task-retry';

/** A gRPC status error as @grpc/grpc-js builds it: `code` on the error, the reason in the message. */
const grpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
const taskFailed = () => grpcError(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.');

test('a command refused while the workflow task failed is sent again, and its answer returned', async () => {
  const answers: Array<Error | string> = [taskFailed(), taskFailed(), 'accepted'];
  let calls = 0;
  const got = await withTaskRetry(async () => {
    const next = answers[calls++]!;
    if (next instanceof Error) throw next;
    return next;
  }, [1, 1, 1]);
  expect(got).toBe('accepted');
  expect(calls).toBe(3);
});

test('any other failure, and the last refusal, are thrown as they came', async () => {
  const other = grpcError(9, 'some other precondition');
  let calls = 0;
  await expect(withTaskRetry(async () => (calls++, Promise.reject(other)), [1, 1])).rejects.toBe(other);
  expect(calls).toBe(1);
  calls = 0;
  await expect(withTaskRetry(async () => (calls++, Promise.reject(taskFailed())), [1, 1])).rejects.toThrow(/workflow task failure/);
  expect(calls).toBe(3);
});
