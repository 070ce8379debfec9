import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { StoreError, StoreErrorCode } from '../../contracts/session-store/errors';

/**
 * Runs a store call and turns its failure into the typed ApplicationFailure the workflows' retry
 * policies understand: an unknown session and a rejected request are final (retrying twenty times
 * cannot help); a store that did not answer or could not write is retried.
 */
export async function storeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw storeFailure(what, err);
  }
}

function storeFailure(what: string, err: unknown): unknown {
  if (!(err instanceof StoreError)) return err;
  const message = `${what}: ${err.message}`;
  if (err.code === StoreErrorCode.NOT_FOUND) return ApplicationFailure.nonRetryable(message, FailureType.SESSION_NOT_FOUND);
  if (err.code === StoreErrorCode.STORAGE) return ApplicationFailure.retryable(message, FailureType.STORE_UNAVAILABLE);
  return ApplicationFailure.nonRetryable(`${message} (${err.code})`, FailureType.STORE_INVALID);
}
