import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { providerFailureType, type ProviderFailureDetails } from '../../contracts/failures';
import { ProviderError, UnservableModelError } from './types';

/**
 * A provider failure as the turn workflow reads it: type `provider.<kind>`, details with the provider,
 * HTTP status and requested wait. Always non-retryable at the activity level: the workflow decides.
 * A model the worker cannot serve is benign to Temporal (logged at debug, not as a warning with two
 * stack traces on every turn): the turn ends with the reason, which its client and the UI show.
 */
export function toProviderFailure(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  const details: ProviderFailureDetails = {
    ...(err.provider ? { provider: err.provider } : {}),
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retry_after_ms: err.retryAfterMs } : {}),
    ...(err.sharedBackoff ? { shared_backoff: true } : {}),
  };
  return ApplicationFailure.create({
    message: err.message,
    type: providerFailureType(err.kind),
    nonRetryable: true,
    details: [details],
    cause: err,
    ...(err instanceof UnservableModelError ? { category: ApplicationFailureCategory.BENIGN } : {}),
  });
}
