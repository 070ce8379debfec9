import type { StoreClient } from '../../../contracts/session-store/client';
import { parseModelId } from '../../../contracts/models';
import { storedSettings } from './session-settings-change';
import type { SessionRef } from './session-ref';

/** One message of earlier conversation a client brings along (WebSocket `chat.start {history}`). */
export interface SeedItem {
  role: 'user' | 'assistant';
  text: string;
  timestamp?: number;
}

/**
 * Earlier conversation a client brings along, written as plain user/assistant text messages before
 * the session's first turn; a session that already has messages is left alone (0 written). Apart
 * from the session reference because only a chat that creates its session seeds it.
 */
export class HistorySeeding {
  constructor(private readonly deps: { store: Pick<StoreClient, 'appendMany'> }) {}

  async seed(session: SessionRef, items: readonly SeedItem[]): Promise<number> {
    const meta = session.meta;
    if (meta.message_count > 0 || items.length === 0) return 0;
    const { provider, model } = parseModelId(storedSettings(meta).model);
    const now = Date.now();
    const messages = items.map((m) => {
      const content = [{ type: 'text' as const, text: m.text }];
      const timestamp = m.timestamp ?? now;
      return m.role === 'user' ? { role: 'user' as const, content, timestamp } : { role: 'assistant' as const, content, model, provider, stop_reason: 'end' as const, timestamp };
    });
    await this.deps.store.appendMany({ session_id: meta.session_id, messages, origin: { seeded: true } });
    session.appended(messages.length);
    return messages.length;
  }
}
