import { StoreError, StoreErrorCode } from '../../../contracts/session-store/errors';

/**
 * Opaque cursors: base64url JSON carrying what the next page needs and what it is bound to (an
 * order, a session, a path anchor), so a cursor used elsewhere fails loudly instead of skipping.
 */
export function encodeCursor(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Record<string, unknown> {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // Fall through.
  }
  throw new StoreError(StoreErrorCode.INVALID_CURSOR, 'cursor is not one this store issued');
}
