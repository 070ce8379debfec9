/** The store's error codes (docs/store.md); `session/storage` is the retryable one. */
export const StoreErrorCode = {
  NOT_FOUND: 'session/not_found',
  ENTRY_NOT_FOUND: 'session/entry_not_found',
  PARENT_NOT_FOUND: 'session/parent_not_found',
  INVALID_ENTRY_KIND: 'session/invalid_entry_kind',
  DETAILS_NOT_SUPPORTED: 'session/details_not_supported',
  EMPTY_BATCH: 'session/empty_batch',
  INVALID_CURSOR: 'session/invalid_cursor',
  INVALID_REQUEST: 'session/invalid_request',
  STORAGE: 'session/storage',
} as const;
export type StoreErrorCode = (typeof StoreErrorCode)[keyof typeof StoreErrorCode];

/** A store failure with its wire code; thrown by the service's domain and rebuilt by the client. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The reply envelope every store function answers with. */
export type StoreEnvelope<T> = { ok: true; result: T } | { ok: false; error: { code: StoreErrorCode; message: string } };
