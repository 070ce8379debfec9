import type { Message } from '../../../contracts/session-store/messages';
import type { SessionRef } from './session-ref';

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
 * The whole active branch of a session, oldest first, through its reference (so the owner check
 * has applied). Protocol adapters that replay a conversation (EDN `get_messages`, `session/rehydrated`,
 * export) read it here instead of paging the store themselves.
 */
export async function readTranscript(session: SessionRef): Promise<TranscriptItem[]> {
  const out: TranscriptItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await session.messages({ limit: PAGE, ...(cursor ? { cursor } : {}) });
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

