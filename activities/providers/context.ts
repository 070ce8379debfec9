import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import type { ProviderMessage } from './types';

/** Page size when reading the active path; the store clamps it to its own maximum. */
const PAGE = 500;

/**
 * Reads the session's active path from the store and turns it into provider messages, content blocks
 * as stored (text, thinking, images, function calls and results). Custom messages and entries are
 * bookkeeping, not conversation, and stay out.
 */
export async function buildProviderContext(store: StorePort, sessionId: string): Promise<ProviderMessage[]> {
  const out: ProviderMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await storeCall(`reading the conversation of ${sessionId}`, () =>
      store.messages({ session_id: sessionId, limit: PAGE, ...(cursor ? { cursor } : {}) }),
    );
    if (!page) break;
    for (const item of page.messages) {
      const m = item.message;
      if (!m) continue;
      if (m.role === 'user' || m.role === 'assistant') out.push({ role: m.role, content: m.content });
      else if (m.role === 'function_result') {
        out.push({ role: 'function_result', function_call_id: m.function_call_id, function_id: m.function_id, content: m.content, is_error: m.is_error ?? false });
      }
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}
