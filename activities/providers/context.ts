import type { StorePort } from '../store/store-port';
import type { ProviderMessage } from './types';

type StoredMessage = NonNullable<Awaited<ReturnType<StorePort['getMessage']>>>['entry'];

/** Page size when reading the active path; the store clamps it to its own maximum. */
const PAGE = 500;

/** The text of a stored message's text blocks, in order. */
export function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string {
  return content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('');
}

/**
 * Reads the session's active path from the store and turns it into provider messages. Only user and
 * assistant text travels for now; tool calls and results join when tools do.
 */
export async function buildProviderContext(store: StorePort, sessionId: string): Promise<ProviderMessage[]> {
  const out: ProviderMessage[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.messages({ session_id: sessionId, limit: PAGE, ...(cursor ? { cursor } : {}) });
    if (!page) break;
    for (const item of page.messages) {
      const m = item.message;
      if (!m) continue;
      if (m.role === 'user' || m.role === 'assistant') out.push({ role: m.role, text: textOf(m.content) });
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

export type { StoredMessage };
