import { ApplicationFailure } from '@temporalio/common';
import { turnId } from '../../contracts/workflow-messages';
import type { StorePort } from './store-port';

/** What the session workflow needs from the store when it (re)starts. */
export interface SessionContext {
  /** The highest turn number already used, so a re-created workflow never reuses turn ids. */
  last_turn: number;
}

export interface RecordUserMessageInput {
  session_id: string;
  turn_number: number;
  entry_id: string;
  text: string;
}

/** Metadata key where the session workflow persists its turn counter. */
export const LAST_TURN_KEY = 'strand_last_turn';

/** Store-backed activities of the session and turn workflows. */
export function createSessionStoreActivities(store: StorePort, now: () => number = Date.now) {
  async function requireMeta(sessionId: string) {
    const got = await store.get({ session_id: sessionId });
    if (!got) {
      throw ApplicationFailure.nonRetryable(`session ${sessionId} does not exist in the store`, 'SESSION_NOT_FOUND');
    }
    return got.meta;
  }

  return {
    /** Reads the turn counter (and proves the session exists) when a session workflow starts. */
    async loadSessionContext(sessionId: string): Promise<SessionContext> {
      const meta = await requireMeta(sessionId);
      const raw = meta.metadata?.[LAST_TURN_KEY];
      return { last_turn: typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 ? raw : 0 };
    },

    /**
     * Persists the turn counter, then records the prompt as the turn's user message (idempotent on
     * its entry id). The counter goes first: once an entry id of turn n can exist, n is never handed
     * out again, even by a session workflow re-created after idling out.
     */
    async recordUserMessage(input: RecordUserMessageInput): Promise<{ entry_id: string }> {
      const meta = await requireMeta(input.session_id);
      const current = meta.metadata?.[LAST_TURN_KEY];
      if (typeof current !== 'number' || current < input.turn_number) {
        await store.setMeta({
          session_id: input.session_id,
          metadata: { ...(meta.metadata ?? {}), [LAST_TURN_KEY]: input.turn_number },
        });
      }
      await store.append({
        session_id: input.session_id,
        entry_id: input.entry_id,
        message: { role: 'user', content: [{ type: 'text', text: input.text }], timestamp: now() },
        origin: { turn: turnId(input.turn_number) },
      });
      return { entry_id: input.entry_id };
    },
  };
}
