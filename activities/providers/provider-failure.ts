import { ApplicationFailure } from '@temporalio/common';
import { providerFailureType, type ProviderFailureDetails } from '../../contracts/failures';
import { ProviderError } from './types';

/**
 * A provider failure as the turn workflow reads it: type `provider.<kind>`, details with the provider,
 * HTTP status and requested wait. Always non-retryable at the activity level: the workflow decides.
 */
export function toProviderFailure(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err;
  const details: ProviderFailureDetails = {
    ...(err.provider ? { provider: err.provider } : {}),
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retry_after_ms: err.retryAfterMs } : {}),
  };
  return ApplicationFailure.create({ message: err.message, type: providerFailureType(err.kind), nonRetryable: true, details: [details], cause: err });
}
