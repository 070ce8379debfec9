import { ApplicationFailure } from '@temporalio/common';
import { StoreError } from '../../contracts/session-store/errors';
import { storeCall } from './store-failures';

const failWith = (code: ConstructorParameters<typeof StoreError>[0]) => storeCall('doing x', async () => {
  throw new StoreError(code, 'boom');
});

describe('store failures become typed ApplicationFailures', () => {
  test('an unknown session is final', async () => {
    await expect(failWith('session/not_found')).rejects.toMatchObject({ type: 'SESSION_NOT_FOUND', nonRetryable: true, message: 'doing x: boom' });
  });

  test('a malformed or conflicting request is final', async () => {
    for (const code of ['session/invalid_request', 'session/parent_not_found', 'session/entry_not_found'] as const) {
      await expect(failWith(code)).rejects.toMatchObject({ type: 'store.invalid', nonRetryable: true });
    }
  });

  test('a store that did not answer is retried', async () => {
    const err = await failWith('session/storage').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'store.unavailable', nonRetryable: false });
  });

  test('anything else passes through untouched', async () => {
    const boom = new Error('not a store error');
    await expect(storeCall('x', async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
