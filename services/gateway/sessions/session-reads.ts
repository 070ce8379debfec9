import type { StoreClient } from '../../../contracts/session-store/client';

const textOf = (content: ReadonlyArray<{ type: string; text?: string }>) => content.flatMap((b) => (b.type === 'text' && b.text ? [b.text] : [])).join('');

/** The user messages of a session's active branch, oldest first, with their entry ids (fork points). */
export async function readForkPoints(store: StoreClient, sessionId: string): Promise<Array<{ entry_id: string; text: string }>> {
  const out: Array<{ entry_id: string; text: string }> = [];
  let cursor: string | undefined;
  do {
    const page = await store.messages({ session_id: sessionId, roles: ['user'], limit: 500, ...(cursor ? { cursor } : {}) });
    if (!page) break;
    for (const m of page.messages) if (m.message?.role === 'user') out.push({ entry_id: m.entry_id, text: textOf(m.message.content) });
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/** The text of the newest assistant message on the active branch, or nulls when there is none. */
export async function readLastAssistantText(store: StoreClient, sessionId: string): Promise<{ entry_id: string | null; text: string | null }> {
  let last: { entry_id: string; text: string } | undefined;
  let cursor: string | undefined;
  do {
    const page = await store.messages({ session_id: sessionId, roles: ['assistant'], limit: 500, ...(cursor ? { cursor } : {}) });
    if (!page) break;
    const m = page.messages[page.messages.length - 1];
    if (m?.message?.role === 'assistant') last = { entry_id: m.entry_id, text: textOf(m.message.content) };
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return last ?? { entry_id: null, text: null };
}
