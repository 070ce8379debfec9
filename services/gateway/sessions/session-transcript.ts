import type { Message } from '../../../contracts/session-store/messages';
import { readSessionRecord } from '../../../contracts/session-record';
import type { SessionSettings } from '../../../contracts/session-settings';
import type { SessionService } from './session-service';

/** One message of a session's active branch, with the turn and model step that wrote it (when one did). */
export interface TranscriptItem {
  entry_id: string;
  message: Message;
  turn?: string;
  step?: number;
}

/** Longest transcript read at once; a longer session is read page by page. */
const PAGE = 500;

/**
 * The whole active branch of a session, oldest first, through SessionService (so the owner check
 * applies). Protocol adapters that replay a conversation (EDN `get_messages`, `session/rehydrated`,
 * export) read it here instead of paging the store themselves.
 */
export async function readTranscript(sessions: SessionService, sessionId: string, principal?: string): Promise<TranscriptItem[]> {
  const out: TranscriptItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await sessions.messages(sessionId, { limit: PAGE, ...(cursor ? { cursor } : {}) }, principal);
    for (const item of page.messages) {
      if (!item.message) continue;
      const turn = item.origin?.turn;
      const step = item.origin?.step;
      out.push({ entry_id: item.entry_id, message: item.message, ...(typeof turn === 'string' ? { turn } : {}), ...(typeof step === 'number' ? { step } : {}) });
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * The session's settings as stored (name, auto-retry, auto-compaction, approval policy): what its
 * workflow runs with when it last persisted them, or loads when it comes back (readSessionRecord).
 */
export async function readStoredSettings(sessions: SessionService, sessionId: string, principal?: string): Promise<SessionSettings> {
  const meta = await sessions.require(sessionId, principal);
  return readSessionRecord(meta.metadata).settings;
}
